"""Settings of the web server: every number the web layer uses lives here, with its reason."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class WebConfig:
    """How the phone dashboard behaves; `create_app(..., config=WebConfig(...))`."""

    #: Seconds between SSE heartbeats: a dead phone connection is noticed on the next write.
    heartbeat_seconds: float = 15.0
    #: How long the broadcaster blocks in tracker.wait() before looking at its stop flag again.
    poll_seconds: float = 1.0
    #: Change messages kept for clients that resume with Last-Event-ID (older ones get a snapshot).
    backlog: int = 512
    #: Open event streams at most; each holds one server thread (waitress threads minus headroom).
    max_streams: int = 40
    #: Open event streams one client address may hold (a phone has one or two tabs; a script more).
    max_streams_per_address: int = 6
    #: Stream slots viewers never take, so the table screen (logged in with the PIN) always gets one.
    table_stream_reserve: int = 2
    #: Close a stream after this long; the browser reconnects at once with Last-Event-ID (0: never).
    stream_max_seconds: float = 0.0
    #: Largest request body accepted (a setup or correction is a few hundred bytes).
    max_body_bytes: int = 64 * 1024
    #: Wrong PINs allowed per client address within `pin_window_seconds` before 429.
    pin_attempts: int = 5
    pin_window_seconds: float = 300.0
    #: How long a table login lasts.
    table_session_hours: float = 12.0
    #: Languages offered (webui/i18n/<code>.json); the first is the fallback.
    languages: tuple[str, ...] = ("en", "it", "ja")
    #: The address printed as a QR code; None: work it out from the host's LAN address.
    public_url: str | None = None
    #: Where the Flask secret key and other server files live (None: a random key per start).
    data_dir: Path | None = None
    #: The table calibration (FORMATS §4) for the picture overlays; None: pictures without overlay.
    calibration_file: Path | None = None
    #: Small print under the page (for example "replay of session X"); None: derived from the game.
    source_label: str | None = None
    #: Free-form extras for tests and tools.
    extra: dict[str, Any] = field(default_factory=dict)

    def with_(self, **changes: Any) -> "WebConfig":
        """A copy with some fields changed."""
        return replace(self, **changes)
