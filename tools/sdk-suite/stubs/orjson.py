"""A pure-Python stand-in for the parts of orjson the hosted API's Python SDK
and its tests use (orjson is a Rust extension this machine cannot install).

Written for tools/sdk-suite/run.sh; never imported by the library. What it
keeps of orjson's behaviour:
- dumps returns compact UTF-8 bytes; NaN and +-Infinity become null;
- datetime/date/time become ISO 8601 strings, enums their value, UUIDs text,
  dataclasses their fields;
- numpy arrays and scalars only with OPT_SERIALIZE_NUMPY (bool, int, uint,
  float and datetime64 dtypes); an object-dtype array is a TypeError;
- dict keys must be str unless OPT_NON_STR_KEYS;
- loads takes bytes, bytearray, memoryview or str; JSONDecodeError is
  json.JSONDecodeError's subclass, JSONEncodeError a TypeError.
"""
import dataclasses
import datetime as _dt
import enum
import json
import math
import uuid

OPT_APPEND_NEWLINE = 1 << 10
OPT_INDENT_2 = 1
OPT_NAIVE_UTC = 1 << 1
OPT_NON_STR_KEYS = 1 << 2
OPT_OMIT_MICROSECONDS = 1 << 3
OPT_PASSTHROUGH_DATACLASS = 1 << 11
OPT_PASSTHROUGH_DATETIME = 1 << 9
OPT_PASSTHROUGH_SUBCLASS = 1 << 8
OPT_SERIALIZE_DATACLASS = 0
OPT_SERIALIZE_NUMPY = 1 << 4
OPT_SERIALIZE_UUID = 0
OPT_SORT_KEYS = 1 << 5
OPT_STRICT_INTEGER = 1 << 6
OPT_UTC_Z = 1 << 7


class JSONDecodeError(json.JSONDecodeError):
    pass


class JSONEncodeError(TypeError):
    pass


class Fragment:
    def __init__(self, contents):
        self.contents = contents


try:
    import numpy as _np
except ImportError:  # numpy is optional, as for orjson
    _np = None


def _datetime_text(value, option):
    if isinstance(value, _dt.datetime):
        if option & OPT_OMIT_MICROSECONDS:
            value = value.replace(microsecond=0)
        if value.tzinfo is None and option & OPT_NAIVE_UTC:
            value = value.replace(tzinfo=_dt.timezone.utc)
        text = value.isoformat()
        if option & OPT_UTC_Z and text.endswith("+00:00"):
            text = text[:-6] + "Z"
        return text
    return value.isoformat()


def _numpy_value(value, option):
    if not option & OPT_SERIALIZE_NUMPY:
        raise JSONEncodeError(f"Type is not JSON serializable: numpy.{type(value).__name__}")
    if isinstance(value, _np.ndarray):
        kind = value.dtype.kind
        if kind == "M":
            return [None if _np.isnat(v) else str(v.astype("datetime64[us]")) for v in value.reshape(-1)] if value.ndim == 1 else [
                _numpy_value(row, option) for row in value
            ]
        if kind not in "biuf":
            raise JSONEncodeError(f"unsupported datatype in numpy array: {value.dtype}")
        return value.tolist()
    if isinstance(value, _np.datetime64):
        return None if _np.isnat(value) else str(value.astype("datetime64[us]"))
    if isinstance(value, _np.generic) and value.dtype.kind in "biuf":
        return value.item()
    raise JSONEncodeError(f"Type is not JSON serializable: numpy.{type(value).__name__}")


def _prepare(value, default, option, depth=0):
    if depth > 254:
        raise JSONEncodeError("Recursion limit reached")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if option & OPT_STRICT_INTEGER and abs(value) > 2**53 - 1:
            raise JSONEncodeError("Integer exceeds 53-bit range")
        if not -(2**63) <= value < 2**64:
            raise JSONEncodeError("Integer exceeds 64-bit range")
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                if not option & OPT_NON_STR_KEYS:
                    raise JSONEncodeError("Dict key must be str")
                key = _datetime_text(key, option) if isinstance(key, (_dt.date, _dt.time)) else str(key)
            out[key] = _prepare(item, default, option, depth + 1)
        if option & OPT_SORT_KEYS:
            out = dict(sorted(out.items()))
        return out
    if isinstance(value, (list, tuple)):
        return [_prepare(item, default, option, depth + 1) for item in value]
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return _datetime_text(value, option)
    if isinstance(value, enum.Enum):
        return _prepare(value.value, default, option, depth + 1)
    if isinstance(value, uuid.UUID):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _prepare({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, default, option, depth + 1)
    if _np is not None and isinstance(value, (_np.ndarray, _np.generic)):
        return _prepare(_numpy_value(value, option), default, option, depth + 1)
    if default is not None:
        return _prepare(default(value), None, option, depth + 1)
    raise JSONEncodeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps(obj, default=None, option=None):
    option = option or 0
    prepared = _prepare(obj, default, option)
    text = json.dumps(
        prepared,
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":") if not option & OPT_INDENT_2 else (",", ": "),
        indent=2 if option & OPT_INDENT_2 else None,
    )
    if option & OPT_APPEND_NEWLINE:
        text += "\n"
    return text.encode("utf-8")


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def loads(data):
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = bytes(data).decode("utf-8")
    elif not isinstance(data, str):
        raise JSONDecodeError(f"Input must be bytes, bytearray, memoryview, or str: {type(data).__name__}", "", 0)
    try:
        return json.loads(data, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        raise JSONDecodeError(error.msg, error.doc, error.pos) from None
    except ValueError as error:
        raise JSONDecodeError(str(error), data, 0) from None
