"""The wire format: one JSON request per line in, one JSON response per line out.

    {"id": 7, "op": "click", "x": 10, "y": 20, "button": "left", "count": 1}
    {"id": 7, "ok": true, "result": {}}
    {"id": 7, "ok": false, "error": {"kind": "bad_args", "message": "..."}}
"""
import json
import math
import re

MAX_LINE = 1 << 20  # bytes, newline excluded
_REQUIRED = object()


class Params:
    """Typed access to a request's parameters; every bad value raises ValueError."""

    def __init__(self, op, values):
        self.op, self._values, self._used = op, values, {"id", "op"}

    def _get(self, name, default):
        self._used.add(name)
        if name not in self._values or (self._values[name] is None and default is not _REQUIRED):
            if default is _REQUIRED:
                raise ValueError(f"{self.op}: missing parameter '{name}'")
            return default
        return self._values[name]

    def int(self, name, lo, hi, default=_REQUIRED):
        v = self._get(name, default)
        if v is default:
            return v
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"{self.op}: '{name}' must be an integer, got {_kind(v)}")
        if not lo <= v <= hi:
            raise ValueError(f"{self.op}: '{name}' must be between {lo} and {hi}, got {v}")
        return v

    def number(self, name, lo, hi, default=_REQUIRED):
        v = self._get(name, default)
        if v is default:
            return v
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"{self.op}: '{name}' must be a finite number, got {_kind(v)}")
        if not lo <= v <= hi:
            raise ValueError(f"{self.op}: '{name}' must be between {lo} and {hi}, got {v}")
        return v

    def str(self, name, default=_REQUIRED):
        v = self._get(name, default)
        if v is not default and not isinstance(v, str):
            raise ValueError(f"{self.op}: '{name}' must be a string, got {_kind(v)}")
        return v

    def bool(self, name, default=_REQUIRED):
        v = self._get(name, default)
        if v is not default and not isinstance(v, bool):
            raise ValueError(f"{self.op}: '{name}' must be a boolean, got {_kind(v)}")
        return v

    def enum(self, name, choices, default=_REQUIRED):
        v = self.str(name, default)
        if v not in choices:
            raise ValueError(f"{self.op}: '{name}' must be one of {', '.join(choices)}; got {v!r}")
        return v

    def point(self, name, width, height, default=_REQUIRED):
        v = self._get(name, default)
        if v is default:
            return v
        return self._point_value(name, v, width, height)

    def _point_value(self, name, v, width, height):
        if (not isinstance(v, list) or len(v) != 2
                or any(isinstance(c, bool) or not isinstance(c, int) for c in v)):
            raise ValueError(f"{self.op}: '{name}' must be [x, y] with two integers")
        return (self.int_value(name + "[0]", v[0], width - 1),
                self.int_value(name + "[1]", v[1], height - 1))

    def point_list(self, name, width, height, max_len, default=_REQUIRED):
        """[[x, y], ...]: at most `max_len` points, each on the screen."""
        v = self._list(name, max_len, default)
        if v is default:
            return v
        return [self._point_value(f"{name}[{i}]", p, width, height) for i, p in enumerate(v)]

    def int_lists(self, name, lo, hi, max_lists, max_items, default=_REQUIRED):
        """[[n, ...], ...]: 1..max_lists non-empty lists of 1..max_items integers in lo..hi."""
        v = self._list(name, max_lists, default)
        if v is default:
            return v
        if not v:
            raise ValueError(f"{self.op}: '{name}' must not be empty")
        out = []
        for i, row in enumerate(v):
            if not isinstance(row, list) or not 1 <= len(row) <= max_items:
                raise ValueError(f"{self.op}: '{name}[{i}]' must be a list of 1 to "
                                 f"{max_items} integers")
            for j, n in enumerate(row):
                if isinstance(n, bool) or not isinstance(n, int) or not lo <= n <= hi:
                    raise ValueError(f"{self.op}: '{name}[{i}][{j}]' must be an integer "
                                     f"between {lo} and {hi}, got {n!r}")
            out.append(list(row))
        return out

    def _list(self, name, max_len, default):
        v = self._get(name, default)
        if v is default:
            return v
        if not isinstance(v, list):
            raise ValueError(f"{self.op}: '{name}' must be a list, got {_kind(v)}")
        if len(v) > max_len:
            raise ValueError(f"{self.op}: '{name}' has {len(v)} items; the limit is {max_len}")
        return v

    def int_value(self, name, v, hi):
        if not 0 <= v <= hi:
            raise ValueError(f"{self.op}: '{name}' must be between 0 and {hi}, got {v}")
        return v

    def ignored(self, name):
        """Accept a parameter without reading it (whatever its value)."""
        self._used.add(name)

    def object(self, name, default=_REQUIRED):
        """A JSON object, as a dict (its fields are the caller's to check)."""
        v = self._get(name, default)
        if v is not default and not isinstance(v, dict):
            raise ValueError(f"{self.op}: '{name}' must be an object, got {_kind(v)}")
        return v

    def str_list(self, name, default=_REQUIRED):
        v = self._get(name, default)
        if v is default:
            return v
        if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
            raise ValueError(f"{self.op}: '{name}' must be a list of strings")
        return v

    def done(self):
        unknown = sorted(set(self._values) - self._used)
        if unknown:
            raise ValueError(f"{self.op}: unknown parameter(s) {', '.join(unknown)}")


def _kind(v):
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
            type(None): "null", float: "a number", int: "an integer"}.get(type(v), type(v).__name__)


def parse_request(line):
    """bytes -> (id, op, Params). Raises ValueError with the id recovered when possible."""
    try:
        msg = json.loads(line)
    except (ValueError, UnicodeDecodeError) as e:
        raise RequestError(None, f"malformed JSON: {e}") from None
    if not isinstance(msg, dict):
        raise RequestError(None, "a request must be a JSON object")
    rid = msg.get("id")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, (int, str))):
        raise RequestError(None, "'id' must be an integer or a string")
    op = msg.get("op")
    if not isinstance(op, str):
        raise RequestError(rid, "'op' must be a string")
    return rid, op, Params(op, msg)


class RequestError(ValueError):
    def __init__(self, rid, message):
        super().__init__(message)
        self.rid = rid


def recover_id(prefix):
    """Best effort id from the start of an oversized line, so its error can be matched."""
    m = re.match(rb'\s*\{\s*"id"\s*:\s*(-?\d{1,18}|"[^"\\]{0,100}")', prefix)
    return json.loads(m.group(1)) if m else None


def ok(rid, result):
    return _line({"id": rid, "ok": True, "result": result})


def error(rid, kind, message, **details):
    return _line({"id": rid, "ok": False, "error": {"kind": kind, "message": message, **details}})


def _line(obj):
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
