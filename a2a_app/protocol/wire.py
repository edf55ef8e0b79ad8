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
every dialect's message and artifact use, the values that need more than a type check:
ProtoJSON enums, timestamps and base64, and :func:`decode_json`, the one way a request body
becomes Python values, with the limits every reader after it relies on.

This module imports nothing from Django, nor anything outside the protocol package.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from a2a_app.protocol.errors import InvalidParamsError, JSONParseError

JSON = dict[str, Any]

INT32_MAX = 2**31 - 1
#: The longest id a client may choose (task, context, message, artifact, push config): the
#: width of the columns that store them.
MAX_ID_LENGTH = 200
#: How deep :func:`decode_json` lets objects and arrays nest unless told otherwise (the
#: ``MAX_JSON_DEPTH`` setting's default).
DEFAULT_MAX_JSON_DEPTH = 64
#: The longest HTTP auth scheme a push config may name (its column's width).
MAX_AUTH_SCHEME_LENGTH = 50
#: The longest number literal :func:`decode_json` reads. Far past what a proto field (int64,
#: double) or a JSON reader in another language holds, and far below the length where
#: Python's int-from-text conversion turns quadratic (its own guard, ``sys.int_info``'s
#: 4,300 digits, can be switched off by the site, so it is not relied on).
MAX_NUMBER_LENGTH = 100
#: The most digits a numeric string read as an integer may have (int64 has 19).
_MAX_NUMERIC_STRING_DIGITS = 20

#: Reads one part of a message or artifact: ``(the part, its path) -> the part read``.
PartReader = Callable[[Any, str], Any]

_CAMEL_RE = re.compile(r"(?<!^)(?=[A-Z])")
# ASCII digits only: ``\d`` and int() would also take other scripts' digits.
_DECIMAL_RE = re.compile(r"-?[0-9]+")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# How a surrogate gets into a decoded string: a \u escape (UTF-8 cannot carry one, so
# decoding refuses a raw one). Valid pairs match too; only then is every string looked at.
_SURROGATE_ESCAPE_RE = re.compile(r"\\u[dD][89a-fA-F]")


def join(path: str, name: str) -> str:
    """The path of field ``name`` of the object at ``path`` (``""``: the top level)."""
    return f"{path}.{name}" if path else name


@functools.lru_cache(maxsize=512)
def snake(name: str) -> str:
    """The proto field name (snake_case) of a ProtoJSON name (camelCase); cached: every
    absent field of every request asks for one of the same few names."""
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

    def read_id(self, obj: JSON, name: str, path: str, *, required: bool = False) -> str | None:
        """A string a client chose to name something: at most :data:`MAX_ID_LENGTH` long,
        and no U+0000 (a REST path can carry one; PostgreSQL cannot even compare it)."""
        value = self.read_str(obj, name, path, required=required)
        if value is None:
            return None
        if len(value) > MAX_ID_LENGTH:
            problem = f"must be at most {MAX_ID_LENGTH} characters long"
        elif "\x00" in value:
            problem = "must not contain NUL characters"
        else:
            return value
        raise InvalidParamsError.for_field(self.field(obj, name, path)[1], problem)

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
            if len(value.strip().lstrip("-")) > _MAX_NUMERIC_STRING_DIGITS:
                raise InvalidParamsError.for_field(where, "is out of range")
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            # 2.0 is an integer to JSON (and JSON Schema, and protobuf's JSON reader)
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

    def read_str_list(
        self, obj: JSON, name: str, path: str, *, max_length: int | None = None
    ) -> list[str] | None:
        """A list of strings, each at most ``max_length`` long (None: any length)."""
        value, where = self.field(obj, name, path)
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(v, str) for v in value)
        ):
            raise InvalidParamsError.for_field(where, "must be a list of strings")
        for i, item in enumerate(value or ()):
            if max_length is not None and len(item) > max_length:
                raise InvalidParamsError.for_field(
                    f"{where}[{i}]", f"must be at most {max_length} characters long"
                )
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


# --- JSON text ---------------------------------------------------------------------------------


def _refuse_constant(name: str) -> Any:
    raise JSONParseError(f"{name} is not a JSON value")


def _read_int(text: str) -> int:
    if len(text) > MAX_NUMBER_LENGTH:
        raise JSONParseError(f"Numbers must be at most {MAX_NUMBER_LENGTH} characters long")
    return int(text)


def _read_float(text: str) -> float:
    if len(text) > MAX_NUMBER_LENGTH:
        raise JSONParseError(f"Numbers must be at most {MAX_NUMBER_LENGTH} characters long")
    value = float(text)
    if not math.isfinite(value):  # 1e400: no JSON writer could send it back
        raise JSONParseError(f"The number {text} is out of range")
    return value


#: One decoder for every request (json.loads with hooks builds a new one per call).
_DECODER = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_int=_read_int, parse_float=_read_float
)


def decode_json(body: bytes, *, max_depth: int = DEFAULT_MAX_JSON_DEPTH) -> Any:
    """A request body as Python values, or :class:`JSONParseError` saying what is wrong.

    Stricter than :func:`json.loads`, within the limits RFC 8259 §9 lets a parser set:
    UTF-8 only; no ``NaN``/``Infinity`` (not JSON) nor numbers that overflow a double or
    are longer than :data:`MAX_NUMBER_LENGTH`; no lone surrogates (``"\\ud800"``: no
    UTF-8 text can hold them, so neither the database nor a response could); objects and
    arrays nested at most ``max_depth`` deep. Whatever this returns can be stored as JSON
    and written back as JSON.
    """
    try:
        text = body.decode("utf-8")
        value = _DECODER.decode(text)
    except RecursionError:  # deeper than the C parser goes: far past max_depth
        raise JSONParseError(_too_deep(max_depth)) from None
    except (ValueError, UnicodeDecodeError):
        raise JSONParseError() from None
    _check_decoded(text, value, max_depth)
    return value


def _too_deep(max_depth: int) -> str:
    return f"JSON objects and arrays must be nested at most {max_depth} levels deep"


def _check_decoded(text: str, value: Any, max_depth: int) -> None:
    """Depth and lone surrogates, without recursion (the value may be deep), and walking
    the value only when the text says it may have either: most requests have neither."""
    if _SURROGATE_ESCAPE_RE.search(text) and _has_lone_surrogate(value):
        raise JSONParseError(
            "JSON strings must not contain lone surrogates (an unpaired \\ud800-\\udfff)"
        )
    if text.count("[") + text.count("{") > max_depth:
        _check_depth(value, max_depth)


def _check_depth(value: Any, max_depth: int) -> None:
    """Level by level through the containers (scalars are not visited)."""
    level = [value] if isinstance(value, dict | list) else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            raise JSONParseError(_too_deep(max_depth))
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend(child for child in children if isinstance(child, dict | list))
        level = below


def _has_lone_surrogate(value: Any) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE_RE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False
