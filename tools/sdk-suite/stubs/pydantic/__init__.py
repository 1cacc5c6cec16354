"""A stand-in for the few names of pydantic 2 the hosted API's Python SDK
imports (BaseModel with model_dump, TypeAdapter.validate_python,
AfterValidator, ValidationError), because pydantic 2 needs pydantic-core, a
Rust extension this machine cannot install (Debian 12 ships pydantic 1.10).
Written for tools/sdk-suite/run.sh; it shadows Debian's pydantic only on the
suite's PYTHONPATH.

What it checks, as pydantic 2 does for these uses:
- a BaseModel field annotated str, int, datetime, a Literal, or an Optional
  of one: strings of ISO 8601 become datetimes, integral values ints; a value
  that does not fit is a ValidationError naming the field; undeclared keys
  are kept when the class says extra="allow";
- TypeAdapter(Annotated[Optional[Dict[...]], AfterValidator(f)]): None
  passes, a non-dict is a ValidationError "Input should be a valid
  dictionary", a dict goes through f (whose TypeError propagates, as in
  pydantic, which converts only ValueError and AssertionError).
"""
import datetime as _dt
import typing

__version__ = "2.0-sdk-suite-stand-in"
VERSION = __version__


class ValidationError(ValueError):
    def __init__(self, title, errors):
        self.title = title
        self._errors = errors
        lines = [f"{len(errors)} validation error{'s' if len(errors) != 1 else ''} for {title}"]
        for loc, msg, kind, value in errors:
            lines.append(loc if loc else title)
            lines.append(f"  {msg} [type={kind}, input_value={value!r}, input_type={type(value).__name__}]")
        super().__init__("\n".join(lines))

    def errors(self):
        return [{"loc": (loc,) if loc else (), "msg": msg, "type": kind, "input": value} for loc, msg, kind, value in self._errors]


class AfterValidator:
    def __init__(self, func):
        self.func = func


class _Invalid(Exception):
    def __init__(self, msg, kind):
        super().__init__(msg)
        self.msg = msg
        self.kind = kind


def _parse_datetime(value):
    if isinstance(value, _dt.datetime):
        return value
    if isinstance(value, str):
        text = value[:-1] + "+00:00" if value.endswith("Z") else value
        try:
            return _dt.datetime.fromisoformat(text)
        except ValueError:
            pass
    raise _Invalid("Input should be a valid datetime", "datetime_parsing")


def _coerce(tp, value):
    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return value
    if origin is typing.Annotated:
        base, *extras = typing.get_args(tp)
        out = _coerce(base, value)
        for extra in extras:
            if isinstance(extra, AfterValidator):
                out = extra.func(out)
        return out
    if origin is typing.Union:
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        last = None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(arg, value)
            except _Invalid as error:
                last = error
        raise last or _Invalid("Input should be None", "none_required")
    if origin is typing.Literal:
        if value in typing.get_args(tp):
            return value
        expected = " or ".join(repr(a) for a in typing.get_args(tp))
        raise _Invalid(f"Input should be {expected}", "literal_error")
    if origin in (dict, typing.Dict) or tp in (dict, typing.Dict):
        if not isinstance(value, dict):
            raise _Invalid("Input should be a valid dictionary", "dict_type")
        return value
    if origin in (list, typing.List) or tp in (list, typing.List):
        if not isinstance(value, (list, tuple)):
            raise _Invalid("Input should be a valid list", "list_type")
        return list(value)
    if tp is _dt.datetime:
        return _parse_datetime(value)
    if tp is bool:
        if isinstance(value, bool):
            return value
        raise _Invalid("Input should be a valid boolean", "bool_type")
    if tp is int:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        raise _Invalid("Input should be a valid integer", "int_parsing")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _Invalid("Input should be a valid number", "float_type")
    if tp is str:
        if isinstance(value, str):
            return value
        raise _Invalid("Input should be a valid string", "string_type")
    if isinstance(tp, type) and isinstance(value, tp):
        return value
    raise _Invalid(f"Input should be an instance of {getattr(tp, '__name__', tp)}", "is_instance_of")


class TypeAdapter:
    def __init__(self, tp):
        self.tp = tp

    def validate_python(self, value):
        try:
            return _coerce(self.tp, value)
        except _Invalid as error:
            raise ValidationError(str(self.tp), [(None, error.msg, error.kind, value)]) from None


class BaseModel:
    _extra = "ignore"

    def __init_subclass__(cls, extra=None, **kwargs):
        super().__init_subclass__(**kwargs)
        if extra is not None:
            cls._extra = extra

    @classmethod
    def _fields(cls):
        hints = {}
        for klass in reversed(cls.__mro__):
            if klass is object or klass is BaseModel:
                continue
            hints.update(typing.get_type_hints(klass, include_extras=True))
        return {name: tp for name, tp in hints.items() if not name.startswith("_")}

    def __init__(self, **data):
        fields = self._fields()
        errors = []
        values = {}
        for name, tp in fields.items():
            if name in data:
                try:
                    values[name] = _coerce(tp, data[name])
                except _Invalid as error:
                    errors.append((name, error.msg, error.kind, data[name]))
            elif hasattr(type(self), name):
                values[name] = getattr(type(self), name)
            else:
                errors.append((name, "Field required", "missing", data))
        extras = {k: v for k, v in data.items() if k not in fields}
        if extras and self._extra == "forbid":
            errors.extend((k, "Extra inputs are not permitted", "extra_forbidden", v) for k, v in extras.items())
        if errors:
            raise ValidationError(type(self).__name__, errors)
        if self._extra == "allow":
            values.update(extras)
        object.__setattr__(self, "__dict__", values)

    def model_dump(self):
        return dict(self.__dict__)

    def __eq__(self, other):
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def __repr__(self):
        inner = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"{type(self).__name__}({inner})"
