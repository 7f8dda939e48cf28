"""Fair sharing of the event-stream slots: each open stream holds one server thread.

Three rules, so one phone (or one misbehaving script) cannot starve the table:
- at most `per_address` streams from one client address (429 beyond, with the limit named);
- viewers together never take the last `table_reserve` slots (503 beyond): those stay free for the
  table screen (a browser logged in with the PIN), which is never counted against its address;
- never more than `total` streams in all (503).
"""
from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """Why a stream was not opened: the HTTP status and the sentence the response carries."""

    status: int
    reason: str


class StreamSlots:
    """Counts open streams in all, per client address, and the table's; thread-safe."""

    def __init__(self, total: int, per_address: int, table_reserve: int = 1):
        self.total = max(1, total)
        self.per_address = max(1, per_address)
        self.table_reserve = min(max(0, table_reserve), self.total - 1) if self.total > 1 else 0
        self._lock = threading.Lock()
        self._by_address: Counter[str] = Counter()
        self._table = 0

    @property
    def in_use(self) -> int:
        with self._lock:
            return sum(self._by_address.values()) + self._table

    def acquire(self, address: str, *, table: bool = False) -> Refusal | None:
        """Take a slot for a stream from `address` (None), or say why not."""
        with self._lock:
            used = sum(self._by_address.values()) + self._table
            if table:
                if used >= self.total:
                    return Refusal(503, f"all {self.total} live connections are taken; "
                                        "the page falls back to polling")
                self._table += 1
                return None
            if self._by_address[address] >= self.per_address:
                return Refusal(429, f"at most {self.per_address} live connections per address "
                                    f"({address} has {self._by_address[address]} open); "
                                    "the page falls back to polling")
            if used >= self.total - self.table_reserve:
                return Refusal(503, f"all {self.total - self.table_reserve} live connections for viewers "
                                    "are taken; the page falls back to polling")
            self._by_address[address] += 1
            return None

    def release(self, address: str, *, table: bool = False) -> None:
        """Give back a slot taken with the same arguments."""
        with self._lock:
            if table:
                self._table = max(0, self._table - 1)
                return
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]
