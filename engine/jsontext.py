"""Reading JSON that comes from outside (files, request bodies) so that any bad text is a
MalformedInput naming where, never a traceback.

`json.loads` alone lets through, or fails with the wrong kind of error on: bytes that are not
UTF-8 (UnicodeDecodeError), integers longer than Python's 4300-digit conversion limit
(ValueError), nesting deep enough to exhaust the stack (RecursionError), and NaN/Infinity (not
JSON at all). Here each becomes one line naming the source and, where it can, the field.
Nothing this project reads is nested more than a few levels or needs a number beyond 18 digits.
"""
from __future__ import annotations

import json
from typing import Any

from .errors import MalformedInput

#: Deepest nesting accepted (an observed state is 5 levels deep; a session.json 4).
MAX_DEPTH = 32
#: Longest integer accepted, in digits (a frame index, or a timestamp in nanoseconds, fits).
MAX_INT_DIGITS = 20


_TOO_BIG = 10 ** MAX_INT_DIGITS


class _LongNumber(str):
    """An integer literal too long to be a real value; reported with its field after parsing."""


def _parse_int(text: str) -> Any:
    digits = len(text.lstrip("-"))
    return _LongNumber(text) if digits > MAX_INT_DIGITS else int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise MalformedInput(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is out of range")
    return value


def _parse_constant(name: str) -> Any:
    raise MalformedInput(f"{name} is not a JSON value")


def _path(parts: list[Any]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(top level)"


def check_json_value(data: Any, source: str | None = None) -> Any:
    """Refuse nesting deeper than MAX_DEPTH and over-long integers, naming the field; returns data.

    Also for data parsed by another reader (the TOML config)."""
    stack: list[tuple[Any, list[Any], int]] = [(data, [], 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _TOO_BIG:
            value = _LongNumber(str(value))  # a parser that made the int itself (TOML)
        if isinstance(value, _LongNumber):
            digits = len(value.lstrip("-"))
            raise MalformedInput(f"a number with {digits} digits (at most {MAX_INT_DIGITS})", source=source,
                                 field=_path(where))
        if isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise MalformedInput(f"nested more than {MAX_DEPTH} levels deep", source=source,
                                     field=_path(where[:3]) + "…")
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, where + [k], depth + 1) for k, v in items)
    return data


def loads(text: str | bytes, source: str | None = None) -> Any:
    """Parse JSON text (or UTF-8 bytes); MalformedInput naming `source` (and the field) when it is bad."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedInput(f"not UTF-8 text (a binary file?): byte {exc.start} is 0x{text[exc.start]:02x}",
                                 source=source) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)
    except json.JSONDecodeError as exc:
        raise MalformedInput(f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                             source=source) from None
    except RecursionError:
        raise MalformedInput(f"nested more than {MAX_DEPTH} levels deep", source=source) from None
    except MalformedInput as exc:
        raise MalformedInput(str(exc), source=source) from None
    except ValueError as exc:  # anything else the parser refuses
        raise MalformedInput(f"not valid JSON: {exc}", source=source) from None
    return check_json_value(data, source)


def read_json_file(path: Any, error: type[MalformedInput] = MalformedInput) -> Any:
    """Read and parse a JSON file; `error` (a MalformedInput subclass) names the file. OSError passes."""
    from pathlib import Path

    raw = Path(path).read_bytes()
    try:
        return loads(raw, str(path))
    except MalformedInput as exc:
        raise error(_strip_source(str(exc), str(path)), source=str(path), field=exc.field) from None


def _strip_source(message: str, source: str) -> str:
    """The message without the "source, field 'x': " prefix MalformedInput added (it is added again)."""
    head = source
    if message.startswith(head):
        message = message[len(head):]
        if message.startswith(", field "):
            message = message.split(": ", 1)[1] if ": " in message else message
        elif message.startswith(": "):
            message = message[2:]
    return message
