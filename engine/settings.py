"""Rule settings (the variants RULES.md names) as frozen dataclasses, read from JSON with clear errors.

Each game declares its settings class with `typing.Literal` fields and defaults; `parse_settings`
checks names and values and fills in the defaults (RULES.md: "a named setting with the stated
default").
"""
from __future__ import annotations

import dataclasses
import typing
from typing import Any, TypeVar

from .errors import MalformedInput

T = TypeVar("T")


def parse_settings(cls: type[T], data: dict[str, Any] | None, source: str = "rules") -> T:
    """Build `cls` from a JSON object; unknown names or values raise MalformedInput naming them."""
    data = dict(data or {})
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - known)
    if unknown:
        raise MalformedInput(f"unknown rule setting(s) {unknown} (known: {sorted(known)})", source=source)
    for name, value in data.items():
        hint = hints[name]
        choices = typing.get_args(hint) if typing.get_origin(hint) is typing.Literal else None
        if choices is not None and value not in choices:
            raise MalformedInput(f"{value!r} is not one of {list(choices)}", source=source, field=name)
        if hint is bool and not isinstance(value, bool):
            raise MalformedInput(f"expected true or false, got {value!r}", source=source, field=name)
    return cls(**data)


def settings_to_json(settings: Any) -> dict[str, Any]:
    """All settings with their values, defaults included (the page shows which a game uses)."""
    return dataclasses.asdict(settings)
