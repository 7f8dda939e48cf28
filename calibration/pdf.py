"""A small vector PDF writer for the printable marker sheet, plus a rasteriser of the same pages.

Pages are drawn in millimetres with the origin at the top-left corner (y down), like the board
frame. Shapes are exact vectors, so markers print at true size with crisp module edges on any
printer; text uses the standard Helvetica fonts every PDF reader has (no embedding).
`rasterize(page, px_per_mm)` draws the same shapes (not the text) into a numpy image, so tests
can check that what the PDF contains is detectable by OpenCV.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Sequence

PT_PER_MM = 72.0 / 25.4
A4 = (210.0, 297.0)

# Helvetica advance widths (1/1000 em) for ASCII 32..126, from the standard AFM metrics.
_HELVETICA = [278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556,
              556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778,
              722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278,
              278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
              556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584]


def text_width_mm(text: str, size_pt: float, bold: bool = False) -> float:
    """Approximate width of `text` in Helvetica at `size_pt`, in mm."""
    units = sum(_HELVETICA[ord(c) - 32] if 32 <= ord(c) <= 126 else 556 for c in text)
    return units / 1000.0 * size_pt / PT_PER_MM * (1.06 if bold else 1.0)


def wrap(text: str, width_mm: float, size_pt: float, bold: bool = False) -> list[str]:
    """Greedy word wrap to `width_mm`."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}".strip()
            if line and text_width_mm(candidate, size_pt, bold) > width_mm:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines


@dataclass
class Page:
    """One page of shapes and text, in mm from the top-left corner."""

    width: float = A4[0]
    height: float = A4[1]
    ops: list[tuple] = field(default_factory=list)

    def rect(self, x: float, y: float, w: float, h: float, *, fill: float | None = 0.0, stroke: float | None = None,
             line_width: float = 0.2, dash: Sequence[float] = ()) -> None:
        """A rectangle; fill/stroke are grey levels 0 (black) .. 1 (white), or None for none."""
        self.ops.append(("rect", x, y, w, h, fill, stroke, line_width, tuple(dash)))

    def polygon(self, points: Sequence[tuple[float, float]], *, fill: float | None = 0.0,
                stroke: float | None = None, line_width: float = 0.2) -> None:
        self.ops.append(("poly", tuple(points), fill, stroke, line_width))

    def line(self, x1: float, y1: float, x2: float, y2: float, *, width: float = 0.3, grey: float = 0.0,
             dash: Sequence[float] = ()) -> None:
        self.ops.append(("line", x1, y1, x2, y2, width, grey, tuple(dash)))

    def text(self, x: float, y: float, text: str, *, size: float = 10.0, bold: bool = False, grey: float = 0.0,
             align: str = "left") -> None:
        """Text with its baseline at y; align left, centre or right of x."""
        if align != "left":
            w = text_width_mm(text, size, bold)
            x = x - (w / 2 if align == "centre" else w)
        self.ops.append(("text", x, y, text, size, bold, grey))

    def paragraph(self, x: float, y: float, text: str, width: float, *, size: float = 10.0, bold: bool = False,
                  leading: float = 1.3) -> float:
        """Wrapped text starting with its first baseline at y; returns the y below the last line."""
        step = size * leading / PT_PER_MM
        for line in wrap(text, width, size, bold):
            self.text(x, y, line, size=size, bold=bold)
            y += step
        return y


def _num(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return s if s not in ("-0", "") else "0"


def _escape(text: str) -> bytes:
    raw = text.encode("cp1252", "replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _content(page: Page) -> bytes:
    k, H = PT_PER_MM, page.height
    out: list[bytes] = []

    def X(x: float) -> str:
        return _num(x * k)

    def Y(y: float) -> str:
        return _num((H - y) * k)

    def style(fill: float | None, stroke: float | None, lw: float, dash: tuple = ()) -> str:
        parts = []
        if fill is not None:
            parts.append(f"{_num(fill)} g")
        if stroke is not None:
            parts.append(f"{_num(stroke)} G {_num(lw * k)} w")
            parts.append(f"[{' '.join(_num(d * k) for d in dash)}] 0 d")
        return " ".join(parts)

    def paint(fill: float | None, stroke: float | None) -> str:
        return "B" if fill is not None and stroke is not None else ("f" if fill is not None else "S")

    for op in page.ops:
        kind = op[0]
        if kind == "rect":
            _, x, y, w, h, fill, stroke, lw, dash = op
            if fill is None and stroke is None:
                continue
            out.append(f"q {style(fill, stroke, lw, dash)} {X(x)} {Y(y + h)} {_num(w * k)} {_num(h * k)} re "
                       f"{paint(fill, stroke)} Q".encode())
        elif kind == "poly":
            _, pts, fill, stroke, lw = op
            path = " ".join(f"{X(px)} {Y(py)} {'m' if i == 0 else 'l'}" for i, (px, py) in enumerate(pts))
            out.append(f"q {style(fill, stroke, lw)} {path} h {paint(fill, stroke)} Q".encode())
        elif kind == "line":
            _, x1, y1, x2, y2, w, grey, dash = op
            out.append(f"q {style(None, grey, w, dash)} 1 J {X(x1)} {Y(y1)} m {X(x2)} {Y(y2)} l S Q".encode())
        elif kind == "text":
            _, x, y, text, size, bold, grey = op
            font = "F2" if bold else "F1"
            out.append(b"BT " + f"{_num(grey)} g /{font} {_num(size)} Tf {X(x)} {Y(y)} Td (".encode()
                       + _escape(text) + b") Tj ET")
    return b"\n".join(out)


def pdf_bytes(pages: Sequence[Page], *, title: str = "keltis-cam") -> bytes:
    """A complete PDF document of `pages`."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_id = add(b"")
    font1 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    font2 = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    kids = []
    for page in pages:
        data = zlib.compress(_content(page), 9)
        stream = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
        media = f"[0 0 {_num(page.width * PT_PER_MM)} {_num(page.height * PT_PER_MM)}]".encode()
        kids.append(add(b"<< /Type /Page /Parent %d 0 R /MediaBox " % pages_id + media
                        + b" /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> /Contents %d 0 R >>"
                        % (font1, font2, stream)))
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R /ViewerPreferences << /PrintScaling /None >> >>" % pages_id
    objects[pages_id - 1] = (b"<< /Type /Pages /Kids [" + b" ".join(b"%d 0 R" % k for k in kids)
                             + b"] /Count %d >>" % len(kids))
    info = add(b"<< /Title (" + _escape(title) + b") /Producer (keltis-cam) >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, catalog, info, xref)
    return bytes(out)


def write_pdf(pages: Sequence[Page], target: str | BinaryIO, *, title: str = "keltis-cam") -> None:
    data = pdf_bytes(pages, title=title)
    if isinstance(target, str) or hasattr(target, "__fspath__"):
        with open(target, "wb") as fh:
            fh.write(data)
    else:
        target.write(data)


def rasterize(page: Page, px_per_mm: float = 4.0) -> Any:
    """The page's shapes (not its text) as a grey uint8 image, white paper; for tests and previews."""
    import cv2
    import numpy as np

    img = np.full((int(round(page.height * px_per_mm)), int(round(page.width * px_per_mm))), 255, np.uint8)
    s = px_per_mm
    shift = 4  # sub-pixel precision for cv2 drawing
    f = float(1 << shift)

    def pts(points: Sequence[tuple[float, float]]) -> Any:
        # pixel centres sit at +0.5: a shape edge at x mm covers pixels whose centre is inside
        return np.array([[(px * s - 0.5) * f, (py * s - 0.5) * f] for px, py in points], np.int64).astype(np.int32)

    for op in page.ops:
        kind = op[0]
        if kind == "rect":
            _, x, y, w, h, fill, stroke, lw, _dash = op
            poly = pts([(x, y), (x + w, y), (x + w, y + h), (x, y + h)])
            if fill is not None:
                cv2.fillPoly(img, [poly], int(round(fill * 255)), cv2.LINE_8, shift)
            if stroke is not None:
                cv2.polylines(img, [poly], True, int(round(stroke * 255)), max(1, int(round(lw * s))), cv2.LINE_8,
                              shift)
        elif kind == "poly":
            _, points, fill, stroke, lw = op
            poly = pts(points)
            if fill is not None:
                cv2.fillPoly(img, [poly], int(round(fill * 255)), cv2.LINE_8, shift)
            if stroke is not None:
                cv2.polylines(img, [poly], True, int(round(stroke * 255)), max(1, int(round(lw * s))), cv2.LINE_8,
                              shift)
        elif kind == "line":
            _, x1, y1, x2, y2, w, grey, _dash = op
            (a, b) = pts([(x1, y1), (x2, y2)])
            cv2.line(img, tuple(int(v) for v in a), tuple(int(v) for v in b), int(round(grey * 255)),
                     max(1, int(round(w * s))), cv2.LINE_8, shift)
    return img
