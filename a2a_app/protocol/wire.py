"""Low-level readers of wire JSON, shared by every dialect the protocol package speaks.

A :class:`Dialect` reads the fields of a JSON object (typed getters that raise
:class:`InvalidParamsError` naming the failing field by its path), and writes them back
the way that dialect leaves fields out. The three dialects differ only in how a field is
found, what an error calls it and whether ProtoJSON's defaults apply:

* :data:`PROTOJSON` — v1.0 ProtoJSON (:mod:`.types`, :mod:`.params`);
* :data:`PLAIN_JSON` — v0.3 JSON-RPC and the pre-0.3 ``tasks/send`` (:mod:`.v03.jsonrpc`,
  :mod:`.legacy`);
* :data:`PROTOJSON_V03` — v0.3 HTTP+JSON, the ProtoJSON of the v0.3 proto (:mod:`.v03.rest`).

Paths name an object (``""`` for the request's top level, ``message.parts[0]``); a field's
path is :func:`join` of its object's path and its name. Also here: the list-of-parts reader
every dialect's message and artifact use, and the values that need more than a type check:
ProtoJSON enums, timestamps and base64.

This module imports nothing from Django, nor anything outside the protocol package.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError

JSON = dict[str, Any]

INT32_MAX = 2**31 - 1

#: Reads one part of a message or artifact: ``(the part, its path) -> the part read``.
PartReader = Callable[[Any, str], Any]

_CAMEL_RE = re.compile(r"(?<!^)(?=[A-Z])")
_DECIMAL_RE = re.compile(r"-?\d+")


def join(path: str, name: str) -> str:
    """The path of field ``name`` of the object at ``path`` (``""``: the top level)."""
    return f"{path}.{name}" if path else name


def snake(name: str) -> str:
    """The proto field name (snake_case) of a ProtoJSON name (camelCase)."""
    return _CAMEL_RE.sub("_", name).lower()


# --- how a field is found: (value, the key that names it in errors) ----------------------


def exact_key(obj: JSON, name: str, *aliases: str) -> tuple[Any, str]:
    """The first of ``name`` and ``aliases`` that is set (not null); ``name`` when none is."""
    for key in (name, *aliases):
        if obj.get(key) is not None:
            return obj[key], key
    return None, name


def camel_or_snake_key(obj: JSON, name: str, *aliases: str) -> tuple[Any, str]:
    """As :func:`exact_key`, the snake_case proto name tried after ``name``: errors then
    name the field as the client spelled it."""
    return exact_key(obj, name, snake(name), *aliases)


def camel_or_snake_name(obj: JSON, name: str) -> tuple[Any, str]:
    """``name`` when the key is present (even null), else its snake_case spelling; errors
    always use ``name``, so v1.0 paths read as in the spec whichever spelling was sent."""
    if name in obj:
        return obj[name], name
    return obj.get(snake(name)), name


def _absent(path: str, required: bool) -> None:
    """What reading an absent field gives: None, or the error when it is required."""
    if required:
        raise InvalidParamsError.for_field(path, "is required")
    return None


# --- the dialect -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one wire dialect reads the fields of a JSON object and leaves them out."""

    #: Finds a field: its value and the key an error names it by.
    lookup: Callable[..., tuple[Any, str]]
    #: What an error calls the top-level object (whose path is ``""``).
    root: str = "params"
    #: ProtoJSON: an integer may travel as a decimal string.
    numeric_strings: bool = False
    #: ProtoJSON: an empty string or list is a field's default, so it reads as absent; an
    #: empty string is not written either.
    empty_is_unset: bool = False

    def field(self, obj: JSON, name: str, path: str, *aliases: str) -> tuple[Any, str]:
        """A field's value (None when absent) and its path."""
        value, key = self.lookup(obj, name, *aliases)
        return value, join(path, key)

    def get(self, obj: JSON, name: str, *aliases: str) -> Any:
        return self.lookup(obj, name, *aliases)[0]

    def require_object(self, value: Any, path: str) -> JSON:
        if not isinstance(value, dict):
            raise InvalidParamsError.for_field(path or self.root, "must be a JSON object")
        return value

    def read_object(self, obj: JSON, name: str, path: str) -> JSON | None:
        value, where = self.field(obj, name, path)
        return None if value is None else self.require_object(value, where)

    def read_str(self, obj: JSON, name: str, path: str, *, required: bool = False) -> str | None:
        value, where = self.field(obj, name, path)
        if value is None or (value == "" and (required or self.empty_is_unset)):
            return _absent(where, required)
        if not isinstance(value, str):
            raise InvalidParamsError.for_field(where, "must be a string")
        return value

    def read_bool(self, obj: JSON, name: str, path: str) -> bool | None:
        value, where = self.field(obj, name, path)
        if value is not None and not isinstance(value, bool):
            raise InvalidParamsError.for_field(where, "must be true or false")
        return value

    def read_int(
        self,
        obj: JSON,
        name: str,
        path: str,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        value, where = self.field(obj, name, path)
        if value is None:
            return None
        if self.numeric_strings and isinstance(value, str) and _DECIMAL_RE.fullmatch(value.strip()):
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidParamsError.for_field(where, "must be an integer")
        if minimum is not None and value < minimum:
            raise InvalidParamsError.for_field(where, f"must be at least {minimum}")
        if maximum is not None and value > maximum:
            raise InvalidParamsError.for_field(where, f"must be at most {maximum}")
        return value

    def read_list(
        self, obj: JSON, name: str, path: str, *, required: bool = False
    ) -> list[Any] | None:
        value, where = self.field(obj, name, path)
        if value is None:
            return _absent(where, required)
        if not isinstance(value, list):
            raise InvalidParamsError.for_field(where, "must be a list")
        return value

    def read_str_list(self, obj: JSON, name: str, path: str) -> list[str] | None:
        value, where = self.field(obj, name, path)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            raise InvalidParamsError.for_field(where, "must be a list of strings")
        return None if self.empty_is_unset and value == [] else value

    def read_parts(
        self, obj: JSON, name: str, path: str, read_part: PartReader, *, allow_empty: bool = False
    ) -> list[Any]:
        """A required list of parts, each read by ``read_part(item, its path)``. An empty
        list is an error unless ``allow_empty`` (left to a later parser that says so)."""
        items = self.read_list(obj, name, path, required=True)
        base = self.field(obj, name, path)[1]
        if not items and not allow_empty:
            raise InvalidParamsError.for_field(base, "at least one part is required")
        return [read_part(item, f"{base}[{i}]") for i, item in enumerate(items)]

    def put(self, out: JSON, name: str, value: Any) -> None:
        """Set ``out[name]`` unless the value is absent in this dialect."""
        if value is not None and not (self.empty_is_unset and value == ""):
            out[name] = value

    def copy(self, src: JSON, dst: JSON, *names: str) -> None:
        for name in names:
            self.put(dst, name, src.get(name))


#: v1.0 ProtoJSON: camelCase or snake_case names, numeric strings for integers.
PROTOJSON = Dialect(camel_or_snake_name, numeric_strings=True, empty_is_unset=True)
#: v0.3 JSON-RPC (and pre-0.3): exact names; ``""`` is a value like any other.
PLAIN_JSON = Dialect(exact_key)
#: v0.3 HTTP+JSON: ProtoJSON as a2a-sdk 0.3.x parses it, errors in the client's spelling.
PROTOJSON_V03 = Dialect(camel_or_snake_key, root="body", numeric_strings=True, empty_is_unset=True)


# --- values --------------------------------------------------------------------------------


def enum_name(value: Any, names: Sequence[str]) -> str | None:
    """A ProtoJSON enum value's name: ``value`` itself when it is one of ``names``, or the
    name its number stands for (its position in ``names``); None when it is neither."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str) and value in names:
        return value
    return None


def parse_enum(value: Any, names: Sequence[str], path: str, what: str) -> str:
    """As :func:`enum_name`, an error naming ``path`` when ``value`` is no ``what``."""
    name = enum_name(value, names)
    if name is None:
        raise InvalidParamsError.for_field(path, f"unknown {what} {value!r}")
    return name


def parse_timestamp(value: Any, path: str) -> datetime:
    """An RFC 3339 timestamp, leniently (any precision, any offset, none meaning UTC), in UTC."""
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(path, "must be an RFC 3339 timestamp string")
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return parsed.astimezone(UTC)
    except (ValueError, OverflowError):  # overflow: year 1 with a positive offset
        raise InvalidParamsError.for_field(path, "must be an RFC 3339 timestamp") from None


def format_timestamp(value: datetime) -> str:
    """UTC, millisecond precision, ``Z`` suffix (spec §5.6.1)."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def normalize_base64(value: Any, path: str) -> str:
    """Accept standard or URL-safe, padded or not; return standard padded base64."""
    if not isinstance(value, str):
        raise InvalidParamsError.for_field(path, "must be a base64 string")
    text = value.strip().replace("-", "+").replace("_", "/")
    text += "=" * (-len(text) % 4)
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode("ascii")
    except (binascii.Error, ValueError):
        raise InvalidParamsError.for_field(path, "is not valid base64") from None
