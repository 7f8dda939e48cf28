"""The real HTTP server: waitress (pure Python, threaded) sized for a table's phones.

Each open event stream holds one worker thread for as long as the phone keeps the page open, so
the pool is large (48 by default) and the app caps streams below it (WebConfig.max_streams) to
keep threads free for page loads, pictures and the table's commands.
"""
from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_THREADS = 48


def make_server(app: Any, *, host: str = "0.0.0.0", port: int = 8000, threads: int = DEFAULT_THREADS) -> Any:
    """A waitress server bound to host:port (port 0: any free port, see `.effective_port`)."""
    from waitress.server import create_server

    return create_server(
        app, host=host, port=port, threads=threads,
        connection_limit=max(100, threads * 4),  # phones reconnect; sockets are cheap, threads are not
        channel_timeout=60,                      # idle keep-alive sockets; streams are never idle (heartbeats)
        asyncore_use_poll=True,                  # no 1024-descriptor select() limit
        ident="keltis-cam", expose_tracebacks=False, clear_untrusted_proxy_headers=True,
    )


def shutdown(server: Any, timeout: float = 5.0) -> None:
    """Stop a server started with `server.run()` in another thread: end tasks, close every socket.

    Stop the app's broadcaster first (`app.extensions["keltis"].broadcaster.stop()`), so open
    event streams end instead of holding their threads.
    """
    from waitress import wasyncore

    try:
        server.task_dispatcher.shutdown(timeout=timeout)
    finally:
        wasyncore.close_all(server._map)
