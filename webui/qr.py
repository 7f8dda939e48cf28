"""The page's address on the local network and its QR code (segno: pure Python, no network)."""
from __future__ import annotations

import ipaddress
import socket


def lan_ip() -> str | None:
    """This machine's address on the local network, or None when it has none.

    Connecting a UDP socket sends nothing; it only makes the OS pick the outgoing interface.
    """
    for probe in ("192.0.2.1", "10.255.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                ip = s.getsockname()[0]
        except OSError:
            continue
        if ip and not ipaddress.ip_address(ip).is_loopback and ip != "0.0.0.0":
            return ip
    return None


def page_url(host: str, port: int, public_url: str | None = None) -> str:
    """The address phones open: the configured one, else the LAN address when serving on all interfaces."""
    if public_url:
        return public_url.rstrip("/") + "/"
    if host in ("", "0.0.0.0", "::"):
        host = lan_ip() or "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def qr_svg(url: str, scale: int = 4) -> str:
    """An SVG QR code of `url` to put inside an HTML page; it scales to its container (class "qr")."""
    import segno

    return segno.make(url, error="m").svg_inline(scale=scale, border=2, omitsize=True, svgclass="qr",
                                                 dark="#000", light="#fff")


def qr_svg_document(url: str, scale: int = 4) -> str:
    """The QR code of `url` as a standalone SVG file (served as /qr.svg for an <img>).

    An <img> only renders an SVG that declares the SVG namespace, and gets a natural size only
    when the file states width and height: the inline form has neither.
    """
    import io

    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=scale, border=2, xmldecl=False, svgns=True,
                                    svgclass="qr", dark="#000", light="#fff")
    return buf.getvalue().decode("utf-8")
