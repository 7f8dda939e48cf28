"""Exceptions for malformed input. Rule problems are never exceptions: see violations.py."""
from __future__ import annotations


class MalformedInput(ValueError):
    """Input that cannot be read at all: names the file or field and quotes the bad value."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None):
        self.source = source
        self.field = field
        where = ", ".join(p for p in (source, f"field {field!r}" if field else None) if p)
        super().__init__(f"{where}: {message}" if where else message)


class FormatVersionError(MalformedInput):
    """A file's "format" names a kind or major version this reader does not know."""


class BoardFileError(MalformedInput):
    """A board file that breaks FORMATS §1 (names the stone and the broken rule)."""


class ObservationError(MalformedInput):
    """An observed state that breaks FORMATS §2."""


class MoveError(MalformedInput):
    """A move that cannot even be expressed (unknown seat, card or stone), not a rule break."""


def check_format(data: object, kind: str, known_major: int, source: str) -> None:
    """Refuse a file whose "format" is not `<kind>/<known_major>`, naming the file and version."""
    if not isinstance(data, dict):
        raise FormatVersionError(f"expected a JSON object, got {type(data).__name__}", source=source)
    fmt = data.get("format")
    if not isinstance(fmt, str) or "/" not in fmt:
        raise FormatVersionError(f"missing or malformed format {fmt!r}, expected '{kind}/{known_major}'",
                                 source=source, field="format")
    name, _, major = fmt.partition("/")
    if name != kind:
        raise FormatVersionError(f"format {fmt!r} is not a {kind} file", source=source, field="format")
    if major.split(".")[0] != str(known_major):
        raise FormatVersionError(f"format version {fmt!r} is not supported (this reader knows {kind}/{known_major})",
                                 source=source, field="format")
