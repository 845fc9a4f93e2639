"""Field metadata shared by the payload parser and the trajectory schema generator."""

from __future__ import annotations

from typing import Any


def meta(
    description: str | None = None,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    optional: bool = False,
    key: str | None = None,
) -> dict[str, Any]:
    """Metadata for `dataclasses.field(metadata=...)` of a payload type.

    Args:
        description: Shown in the published schema.
        minimum: Inclusive lower bound.
        maximum: Inclusive upper bound.
        optional: The key may be absent from the JSON (the field's default is used then).
        key: The JSON key when it is not the field name (a Python keyword such as "from").
    """
    found = {"description": description, "minimum": minimum, "maximum": maximum, "key": key}
    return {name: value for name, value in found.items() if value is not None} | {"optional": optional}
