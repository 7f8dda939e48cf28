"""The table PIN, CSRF tokens and the guard every state-changing request passes.

Viewers (the phones) only read. Anything that changes the game — a new game, a correction, an
undo, and the table screens themselves — needs the PIN the server prints on its console:
- a browser logs in once on /table/login (the session cookie then marks it as the table) and
  sends the session's CSRF token with every POST (form field `csrf_token` or header
  `X-CSRF-Token`), so another web page on a player's phone cannot post in its name;
- a script may instead send the PIN itself in the `X-Keltis-PIN` header (a custom header cannot
  be sent cross-site without CORS, which this server never grants).
Wrong PINs are counted per client address; too many in a window get 429.
"""
from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import defaultdict, deque
from typing import Callable

from flask import session

PIN_HEADER = "X-Keltis-PIN"
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"


def generate_pin(digits: int = 6) -> str:
    """A random numeric PIN (easy to type on a phone)."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def check_pin_format(pin: str) -> str:
    """Refuse a PIN that is too short or not digits (it is typed on phones)."""
    pin = str(pin).strip()
    if not (pin.isdigit() and 4 <= len(pin) <= 12):
        raise ValueError(f"the PIN must be 4 to 12 digits, got {pin!r}")
    return pin


#: PINs printed in the docs and service file as examples: whoever read them must not be able to use them.
EXAMPLE_PINS = frozenset({"4711", "123456", "1234", "0000"})


def check_pin_strength(pin: str) -> str:
    """Refuse a PIN anyone would try first: the docs' examples, one digit repeated, a straight run.

    Only for a PIN someone chose (--pin, KELTIS_CAM_PIN, a PIN file, the config); random PINs are
    6 digits and drawn from the secrets module.
    """
    pin = check_pin_format(pin)
    steps = {int(b) - int(a) for a, b in zip(pin, pin[1:])}
    if pin in EXAMPLE_PINS:
        raise ValueError(f"the PIN {pin} is the example in the docs: choose your own")
    if len(set(pin)) == 1 or steps in ({1}, {-1}):
        raise ValueError(f"the PIN {pin} is the first anyone would try (a repeated digit or a straight run)")
    return pin


def pin_matches(expected: str, given: str | None) -> bool:
    """Constant-time comparison."""
    if not given:
        return False
    return hmac.compare_digest(expected.encode(), str(given).strip().encode())


def csrf_token() -> str:
    """This browser session's CSRF token (created on first use)."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def csrf_ok(given: str | None) -> bool:
    """True when `given` is this session's CSRF token."""
    token = session.get("csrf")
    return bool(token and given and hmac.compare_digest(token.encode(), str(given).encode()))


def table_logged_in(clock: Callable[[], float] = time.time) -> bool:
    """True when this browser session logged in with the PIN and the login has not expired."""
    until = session.get("table_until")
    return isinstance(until, (int, float)) and until > clock()


def log_in(hours: float, clock: Callable[[], float] = time.time) -> None:
    """Mark this session as the table for `hours` (a fresh CSRF token goes with the new rights)."""
    session["table_until"] = clock() + hours * 3600
    session["csrf"] = secrets.token_urlsafe(24)
    session.permanent = True


def log_out() -> None:
    """Forget the table login."""
    session.pop("table_until", None)


class AttemptLimiter:
    """Counts failed PIN attempts per client address in a sliding window.

    After `attempts` wrong PINs within the window an address waits until the oldest leaves it.
    Each further round of wrong PINs from the same address (without a right one in between)
    doubles that wait, up to a day: guessing a 6-digit PIN stays out of reach.
    """

    MAX_BLOCK_SECONDS = 24 * 3600.0

    def __init__(self, attempts: int, window_seconds: float, clock: Callable[[], float] = time.monotonic):
        self.attempts = attempts
        self.window = window_seconds
        self._clock = clock
        self._failures: dict[str, deque[float]] = defaultdict(deque)
        self._rounds: dict[str, int] = defaultdict(int)       # times an address used up its attempts
        self._blocked_until: dict[str, float] = {}
        self._lock = threading.Lock()

    def _prune(self, key: str) -> deque[float]:
        q = self._failures[key]
        cutoff = self._clock() - self.window
        while q and q[0] < cutoff:
            q.popleft()
        return q

    def blocked_for(self, key: str) -> float:
        """Seconds until `key` may try again (0 when it may try now)."""
        with self._lock:
            now = self._clock()
            until = self._blocked_until.get(key, 0.0)
            if until > now:
                return until - now
            q = self._prune(key)
            if len(q) < self.attempts:
                return 0.0
            return max(0.0, q[0] + self.window - now)

    def failed(self, key: str) -> None:
        """Record one wrong PIN from `key`."""
        with self._lock:
            q = self._prune(key)
            q.append(self._clock())
            if len(q) >= self.attempts:
                self._rounds[key] += 1
                rounds = self._rounds[key]
                if rounds > 1:
                    block = min(self.MAX_BLOCK_SECONDS, self.window * 2 ** (rounds - 1))
                    self._blocked_until[key] = self._clock() + block
                    q.clear()

    def succeeded(self, key: str) -> None:
        """Forget `key`'s failures."""
        with self._lock:
            self._failures.pop(key, None)
            self._rounds.pop(key, None)
            self._blocked_until.pop(key, None)
