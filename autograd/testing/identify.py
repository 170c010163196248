"""The ops an engine has beyond the table, found and identified by behaviour.

:func:`extra_ops` lists every public method of the engine's class (and ``__abs__``,
``__pos__``) that maps Values to a Value: called with no argument (unary) or with one
other Value (binary), on a fresh Value, it returns a Value.  Methods the table already
calls (``exp``, ``log``, ...) and the engine's own API (backward, data, gradient) are left
out, and so are names that say they do something else (``zero_grad``, ``draw``, ...).

Each is then identified by its VALUES, never its name: at ``POINTS`` (pairs ``PAIRS`` for
a binary method) its results are compared with every row of
:mod:`autograd.testing.ops.catalogue` of its arity (binary: the table's binary ops first);
the first row that agrees to ``AGREE_RTOL`` at every point where both are defined, at
``MIN_AGREE`` points at least, names it (a family's parameter, leaky_relu's slope, is fitted
from the values first).  A method named after a row of its arity whose values agree with the
row's only to ``NAMESAKE_RTOL`` is that function computed inaccurately (tinygrad's float64 asin is
off by 1e-7): it is identified *by its name* (``ExtraOp.by_name``, said in the report) and judged
against the row, so that its wrong values are found, not hidden as unknown; a namesake further off
(a differently normalised sinc) is another function.  A method nobody identifies stays unknown:
:mod:`autograd.testing.checks.extra_ops` checks it by self-consistency.  Either way it becomes an
:class:`OpSpec` of its own (``ln~log``, ``bump~?``), registered in ``OPS`` only while it is being checked
(:func:`registered_extras`), so that graphs, strategies and oracles handle it like a
table op.  A method that takes a plain number, not a Value (``v.scaled(k)``), is tried
with the number ``NUMBER`` too: ``v.scaled(0.7)`` is then a unary op, nothing identifies
it, and self-consistency checks it.  A binary method whose value ignores its argument's
(``v.named(w)``: a copy of ``v`` labelled ``w``) takes a Value as it would take anything and
is no op of two Values: :func:`unjudged_methods` lists it (a fact), and nothing judges it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised, engine_call
from autograd.testing.engines import Engine
from autograd.testing.ops import AWAY_FROM_ZERO, KINK_MARGIN, OPS, Call, OpSpec, registered
from autograd.testing.ops.catalogue import CATALOGUE, FIT

__all__ = [
    "AGREE_RTOL",
    "MIN_AGREE",
    "NAMESAKE_RTOL",
    "NUMBER",
    "PAIRS",
    "POINTS",
    "ExtraOp",
    "extra_capabilities",
    "extra_ops",
    "registered_extras",
    "unjudged_methods",
]

#: Where a unary method's values are compared with the catalogue: then -3.5 and 7.5, where the
#: hard functions and relu6 saturate (relu6 is relu below 6), and 0.15 and 0.85, so that
#: functions of (0, 1) (logit) are seen at four points.
POINTS = (-2.5, -1.3, -0.6, -0.2, 0.3, 0.7, 1.1, 1.9, 2.7, -3.5, 0.15, 0.85, 7.5)
#: ... and a binary method's (a positive first operand but the last: ``v ** w`` is defined at the
#: first five; xlogy, whose second operand is positive, at four).
PAIRS = ((0.7, 1.3), (1.9, -0.4), (2.3, 0.6), (0.4, 2.2), (1.6, -1.1), (-0.9, 0.8))
#: Relative agreement that identifies a function (values computed by another formula agree
#: to a few ulps; a different function differs by far more at one of the points at least).
AGREE_RTOL = 1e-9
MIN_AGREE = 4
#: How closely a method named after a catalogue row must agree with it to be that row computed
#: inaccurately rather than another function (float32-grade kernels agree to 1e-7; a parameter
#: or a normalisation of its own differs by far more somewhere among the points).
NAMESAKE_RTOL = 1e-3
#: The plain number a method that takes one (and no Value) is called with.
NUMBER = 0.7
#: How far a binary method's argument is moved to see whether its value follows it.
SHIFT = 1.7
#: The table's binary ops a binary method is compared with.
BINARY_KNOWN = ("add", "sub", "mul", "div", "vpow")
#: Dunder operators that map one Value to a Value and are not in the table.
UNARY_DUNDERS = ("__abs__", "__pos__")
#: Names that say a method does something other than compute (never called), or stops the
#: gradient on purpose (detach: its gradient is 0 by design, not a defect).
SKIP = re.compile(
    r"back|grad|zero|draw|plot|show|save|load|dump|print|write|read|topo|param|graph|viz|dot"
    r"|detach|stop|freeze|const|clone|copy|step|update|item|numpy|list",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ExtraOp:
    """A method of the engine's class beyond the table, and what it was identified as."""

    method: str
    arity: int
    known: str | None  # the catalogue / table row it behaves like; None: unidentified
    spec: OpSpec  # registered under spec.name while it is checked
    number: float | None = None  # the plain number it is called with (a method that takes one)
    by_name: bool = False  # identified by its name: its values agree with the row's only roughly

    @property
    def form(self) -> str:
        return self.spec.label


def _form(method: str, arity: int, number: float | None = None) -> tuple[str, Callable[[Any, Any], str]]:
    """How the method reads in a report (``abs(v)``) and the source applying it to named Values."""
    if number is not None:
        return f"v.{method}({number!r})", lambda n, c: f"{n[0]}.{method}({number!r})"
    if method == "__abs__":
        return "abs(v)", lambda n, c: f"abs({n[0]})"
    if method == "__pos__":
        return "+v", lambda n, c: f"+{n[0]}"
    if arity == 1:
        return f"v.{method}()", lambda n, c: f"{n[0]}.{method}()"
    return f"v.{method}(w)", lambda n, c: f"{n[0]}.{method}({n[1]})"


def _call(method: str, arity: int, number: float | None = None) -> Call:
    """The engine's method ``method`` called on the first Value (with the second, if binary; with
    ``number``, a plain number, for a method that takes one)."""
    if number is not None:
        return Call(method, ("v0",), numbers=(number,))
    return Call(method, ("v0",) if arity == 1 else ("v0", "v1"))


def _apply(eng: Engine, method: str, arity: int, args: Any, number: float | None = None) -> Any:
    """The method applied to fresh Values of ``args`` (and ``number``); what the engine raises is
    ``EngineRaised``."""
    values = [eng.make(a, stage=method) for a in args]
    numbers = () if number is None else (number,)
    return engine_call(method, operator.methodcaller(method, *values[1:arity], *numbers), values[0])


def _table_methods() -> set[str]:
    """The methods the table's unary ops call (``x.exp()`` -> exp): checked as table ops already."""
    names = set()
    for spec in OPS.values():
        if spec.arity == 1 and not spec.consts:
            found = re.fullmatch(r"x\.(\w+)\(\)", spec.source(["x"], None))
            if found:
                names.add(found.group(1))
    return names


def _candidates(eng: Engine) -> list[str]:
    skip = _table_methods() | {eng.backward_method, eng.data_attr, eng.grad_attr}
    public = [n for n in dir(eng.Value) if not n.startswith("_") and n not in skip and not SKIP.search(n)]
    dunders = [n for n in UNARY_DUNDERS if callable(getattr(eng.Value, n, None))]
    return [n for n in [*public, *dunders] if callable(getattr(eng.Value, n, None))]


def _arity(eng: Engine, method: str) -> int | None:
    """1 or 2 when the method maps one or two Values to a Value (at some ordinary point), else None."""
    for x in (0.5, 1.5, -0.5):
        try:
            out = engine_call(method, operator.methodcaller(method), eng.make(x, stage=method))
        except EngineRaised as raised:
            if not isinstance(raised.exc, TypeError):  # outside the method's domain, perhaps: the next point
                continue
            try:  # a required argument: try one other Value
                other = eng.make(0.7, stage=method)
                out = engine_call(method, operator.methodcaller(method, other), eng.make(x, stage=method))
            except EngineRaised:  # the engine's own refusal: not a binary op of Values here
                continue
            return 2 if isinstance(out, eng.Value) else None
        return 1 if isinstance(out, eng.Value) else None
    return None


def _number(eng: Engine, out: Any) -> float | None:
    """The output's finite float, or None (complex, not a number at all, or unreadable)."""
    try:
        y = engine_call("reading", float, eng.data(out, stage="reading"))
    except EngineRaised:
        return None
    return y if math.isfinite(y) else None


def _value_at(eng: Engine, method: str, arity: int, args: Any, number: float | None = None) -> float | None:
    """The method's finite value at ``args``, or None (the engine refuses, or no finite number)."""
    try:
        out = _apply(eng, method, arity, args, number)
    except EngineRaised:  # the engine's refusal at this point: no value to compare
        return None
    return _number(eng, out)


def engine_values(eng: Engine, method: str, arity: int, number: float | None = None) -> dict[Any, float]:
    """The method's finite values at ``POINTS`` (or ``PAIRS``), where the engine gives one
    (``number``: the plain number a method that takes one is called with)."""
    values: dict[Any, float] = {}
    points: tuple[Any, ...] = POINTS if arity == 1 else PAIRS
    for at in points:
        y = _value_at(eng, method, arity, (at,) if arity == 1 else tuple(at), number)
        if y is not None:
            values[at] = y
    return values


def _agrees(spec: OpSpec, values: dict[Any, float], c: Any, rtol: float = AGREE_RTOL) -> bool:
    agree = 0
    for at, y in values.items():
        args = [at] if not isinstance(at, tuple) else list(at)
        try:
            want = float(spec.num(args, c))
        except (ArithmeticError, ValueError, TypeError):  # outside the function's domain
            continue
        if not math.isfinite(want):
            continue
        if abs(y - want) > rtol * max(abs(want), 1e-12):
            return False
        agree += 1
    return agree >= MIN_AGREE


def identify(values: dict[Any, float], arity: int) -> tuple[OpSpec, Any] | None:
    """The first row (and parameter) whose values agree with ``values``, or None."""
    table = tuple(OPS[n] for n in BINARY_KNOWN) if arity == 2 else ()
    return _first_agreeing((*table, *(row for row in CATALOGUE if row.arity == arity)), values, AGREE_RTOL)


def namesake(method: str, values: dict[Any, float], arity: int) -> tuple[OpSpec, Any] | None:
    """The catalogue row named ``method`` (of that arity) when its values agree with ``values`` to
    ``NAMESAKE_RTOL``, or None: the function the method's name says, computed inaccurately."""
    rows = [row for row in CATALOGUE if row.arity == arity and row.name == method]
    return _first_agreeing(rows, values, NAMESAKE_RTOL)


def _first_agreeing(rows: Any, values: dict[Any, float], rtol: float) -> tuple[OpSpec, Any] | None:
    for spec in rows:
        if spec.consts:
            fit = FIT.get(spec.name)
            c = fit({k: v for k, v in values.items()}) if fit is not None and values else None
            if c is None:
                continue
        else:
            c = None
        if _agrees(spec, values, c, rtol):
            return spec, c
    return None


def _region_margin(spec: OpSpec) -> Callable[[Any, Any], bool]:
    """Graph operands of a catalogue row: inside its region by AWAY_FROM_ZERO, off its kinks."""

    def domain(args: Any, c: Any) -> bool:
        if not spec.domain(args, c):
            return False
        region = spec.region(c)[0]
        x = args[0]
        if any(abs(x - k) < KINK_MARGIN for k in spec.kinks):
            return False
        near = (x - AWAY_FROM_ZERO, x, x + AWAY_FROM_ZERO)
        return all(region.contains(sympy.Rational(t)) is sympy.true for t in near)

    return domain


def _known_spec(method: str, arity: int, spec: OpSpec, c: Any, probe: tuple[float, ...]) -> OpSpec:
    form, source = _form(method, arity)
    consts = (c,) if spec.consts else ()
    return replace(
        spec, name=f"{method}~{spec.name}", call=_call(method, arity), source=source, form=form,
        consts=consts, domain=_region_margin(spec) if arity == 1 else spec.domain, probe=probe,
    )  # fmt: skip


class _NotEvaluated(ValueError):
    """The engine gives no finite number here (the strategies skip such operands)."""


def _unknown_spec(
    eng: Engine, method: str, arity: int, probe: tuple[float, ...], number: float | None = None
) -> OpSpec:
    form, source = _form(method, arity, number)
    call = _call(method, arity, number)

    def num(args: Any, c: Any) -> float:
        try:
            y = _number(eng, _apply(eng, method, arity, [float(a) for a in args], number))
        except EngineRaised as raised:  # the engine's refusal: not a point of the function
            raise _NotEvaluated(f"{form} at {list(args)}: {type(raised.exc).__name__}") from raised
        if y is None:
            raise _NotEvaluated(f"{form} at {list(args)}: no finite number")
        return y

    def domain(args: Any, c: Any) -> bool:  # evaluable around the point (room for difference steps)
        for d in (-AWAY_FROM_ZERO, 0.0, AWAY_FROM_ZERO):
            try:
                num([args[0] + d, *args[1:]], c)
            except _NotEvaluated:
                return False
        return abs(float(args[0])) <= 3

    unknown = sympy.Function(f"unknown_{method.strip('_')}")
    return OpSpec(
        f"{method}~?", arity, call, lambda s, c: unknown(*s), num, source, domain=domain, form=form,
        probe=probe,
    )  # fmt: skip


def _ignores_argument(eng: Engine, method: str) -> bool:
    """A binary method whose value stays the same when its argument's value changes, at every
    pair of ``PAIRS`` where it has one (``MIN_AGREE`` pairs at least): ``v.named(w)`` (a copy
    of ``v`` labelled ``w``) takes a Value as it would take anything, and is no op of two Values."""
    seen = [{_value_at(eng, method, 2, (x, other)) for other in (w, w + SHIFT)} for x, w in PAIRS]
    defined = [ys for ys in seen if None not in ys]  # a pair it refuses says nothing either way
    return len(defined) >= MIN_AGREE and all(len(ys) == 1 for ys in defined)


def _takes_number(eng: Engine, method: str) -> bool:
    """Whether ``v.method(NUMBER)`` gives a Value with a finite number at ``POINTS`` (a method
    that takes a plain number: called with a Value, it gives nothing that reads as one)."""
    return bool(engine_values(eng, method, 1, NUMBER))


@functools.lru_cache(maxsize=64)
def _discover(eng: Engine) -> tuple[tuple[ExtraOp, ...], dict[str, str]]:
    found, unjudged = [], {}
    for method in _candidates(eng):
        arity = _arity(eng, method)
        if (arity is None or (arity == 2 and not engine_values(eng, method, 2))) and _takes_number(
            eng, method
        ):
            # no number from it with Values: with a plain number it is a unary op (nothing identifies)
            probe = next(iter(engine_values(eng, method, 1, NUMBER)))
            spec = _unknown_spec(eng, method, 1, (probe,), NUMBER)
            found.append(ExtraOp(method, 1, None, spec, NUMBER))
            continue
        if arity is None:
            continue
        if arity == 2 and _ignores_argument(eng, method):
            unjudged[_form(method, arity)[0]] = (
                "its value does not depend on its argument's: not an op of Values"
            )
            continue
        values = engine_values(eng, method, arity)
        # where it gave a value: where the strategies' support probe tries it (not at 1.5 blindly)
        probe = next((at if arity == 2 else (at,) for at in values), ())
        match = identify(values, arity)
        by_name = match is None and (match := namesake(method, values, arity)) is not None
        if match is None:
            found.append(ExtraOp(method, arity, None, _unknown_spec(eng, method, arity, probe)))
        else:
            spec, c = match
            known = _known_spec(method, arity, spec, c, probe)
            found.append(ExtraOp(method, arity, spec.name, known, by_name=by_name))
    return tuple(found), unjudged


def extra_ops(eng: Engine) -> tuple[ExtraOp, ...]:
    """Every extra op of the engine's class, identified where the catalogue knows it (cached)."""
    return _discover(eng)[0]


def unjudged_methods(eng: Engine) -> dict[str, str]:
    """Methods that take one Value and return one but are no op of Values (form -> why): not judged."""
    return dict(_discover(eng)[1])


@contextlib.contextmanager
def registered_extras(eng: Engine, *, unknown: bool = False) -> Iterator[tuple[ExtraOp, ...]]:
    """The engine's identified extra ops (and with ``unknown`` the others) in ``OPS`` meanwhile."""
    extras = tuple(e for e in extra_ops(eng) if unknown or e.known is not None)
    with registered(*(e.spec for e in extras)):
        yield extras


def extra_capabilities(eng: Engine) -> dict[str, Any]:
    """For the report: ``aliases`` (a table op under another name, ``{"ln": "log"}``) and
    ``extra_ops`` (each extra op's form and what it was identified as, None if nothing), and
    ``not_judged`` when a method takes and returns a Value but is no op of Values (form -> why)."""
    extras = extra_ops(eng)
    table = set(OPS)
    caps: dict[str, Any] = {
        "aliases": {e.method: e.known for e in extras if e.known in table},
        "extra_ops": {e.form: e.known for e in extras},
    }
    if unjudged := unjudged_methods(eng):
        caps["not_judged"] = unjudged
    return caps
