"""The one table of operations the harness knows: ``OPS[name] -> OpSpec``.

Each op says how to apply it to an engine's Values, what it is in sympy and in
plain Python numbers, where it is defined (with margins that keep float checks
well conditioned), where it has kinks, whether it maps rationals to rationals,
and how its floating-point evaluation can err (used by the derived tolerance of
the symbolic oracle, see :mod:`autograd.testing.oracles`).  Nothing here knows
a derivative rule: partial derivatives come from sympy's ``diff`` of the
``sym`` column.

Operands are graph nodes; a few ops also take one constant, drawn from
``consts``.  Every operator form is its own code path in an engine (``__add__``
and ``__radd__`` are different methods), so each has its own row: ``v + c``,
``c + v``, ``v - c``, ``c - v``, ``v * c``, ``c * v``, ``v / c``, ``c / v``,
``v ** c``, ``c ** v`` (the four forms added last come last in the table, so
that the shrinking of the older rows is unchanged).  ``form`` is how a report names an op (``c * v``); the
row's ``name`` (``mulc``) is the stable key the rest of the harness uses.
``vsum`` takes 1..4 operands; ``dot`` takes ``k`` weights, ``k`` inputs and a
start (``2k + 1`` operands).

``region`` describes where the op is defined, mathematically and without the
margins of ``domain``: one ``sympy.Set`` per operand (the others held at
``PARTNER``).  The edge and out-of-domain probes derive all their points from it
(:mod:`autograd.testing.probes.edges`); the functions the audit may meet beyond
the table are described the same way in :mod:`autograd.testing.catalogue`.
"""

from __future__ import annotations

import contextlib
import functools
import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

__all__ = [
    "BOUND", "KINK_MARGIN", "MP_MODULES", "OPS", "PARTNER", "REALS", "Call", "OpSpec", "Relu", "Step",
    "const_source", "display", "registered", "sym_const",
]  # fmt: skip

#: Largest magnitude a node may take in generated graphs (keeps exp, pow and products tame).
BOUND = 100.0
#: Smallest distance between a relu input and its kink at 0 in generated graphs.
KINK_MARGIN = 0.01
#: Smallest |denominator| (div, c / x, negative powers) and smallest log / non-integer-pow argument.
AWAY_FROM_ZERO = 0.1

#: The value of the other operand while the edge probes move one operand of a binary op.
PARTNER = 1.5
REALS = sympy.S.Reals

Num = Any  # int, float or Fraction
Args = Sequence[Num]


class Relu(sympy.Function):  # type: ignore[misc]
    """relu in sympy: evaluates on numbers, differentiates to ``Step`` (no Piecewise, so no
    comparisons with the 1/0 that sympy writes into never-taken branches)."""

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_Number:
            return x if x > 0 else sympy.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return Step(self.args[0])


class Step(sympy.Function):  # type: ignore[misc]
    """relu's derivative: 1 for x > 0, else 0 (the engine's convention at the kink 0)."""

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_Number:
            return sympy.S.One if x > 0 else sympy.S.Zero
        return None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return sympy.S.Zero  # away from the kink, which generated graphs avoid


#: What ``sympy.lambdify`` needs, on top of mpmath, for the functions defined here.
_RELU_STEP = {"Relu": lambda x: x if x > 0 else 0 * x, "Step": lambda x: 1 if x > 0 else 0}
MP_MODULES = [_RELU_STEP, "mpmath"]
FLOAT_MODULES = [_RELU_STEP, "math", "mpmath"]  # mpmath for what math lacks (polygamma)


def sym_const(c: Num) -> sympy.Expr:
    """A constant as an exact sympy number (a float becomes the rational it stores)."""
    if isinstance(c, Fraction):
        return sympy.Rational(c.numerator, c.denominator)
    return sympy.Integer(c) if isinstance(c, int) else sympy.Rational(c)


def const_source(c: Num) -> str:
    return repr(c)  # Fraction(1, 2), 2, -0.5: all valid Python


def _div(a: Num, b: Num) -> Num:
    return Fraction(a, b) if type(a) is int and type(b) is int else a / b


def _relu(x: Num) -> Num:
    return x if x > 0 else 0 * x


def _sigmoid(x: Num) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _is_int(c: Num) -> bool:
    return bool(c % 1 == 0)


def _always(args: Args, c: Num) -> bool:
    return True


def _abs_out(args: Args, c: Num, out: Num) -> Num:
    return abs(out)


def _reals(c: Num) -> tuple[Any, ...]:
    return (REALS, REALS)


def _nonzero() -> Any:
    return REALS - sympy.FiniteSet(0)


@dataclass(frozen=True)
class Call:
    """How an op is applied to an engine's Values, as data (``Engine.apply`` does it).

    ``target`` is an operator function (``operator.truediv``), called with ``operands``; a
    method name (``"log"``), called on the first operand with the others; or, with ``fused``,
    the name of one of the engine's fused functions (``"vsum"``: a list of Values; ``"dot"``:
    weights, inputs and a start).  ``operands`` names them in order: ``"v0"``, ``"v1"`` (the
    op's Values) and ``"c"`` (its constant), so ``c - v`` is ``Call(operator.sub, ("c", "v0"))``.
    ``numbers`` are plain numbers passed after the operands (an engine's method that takes a
    number, not a Value: ``v.scaled(0.7)``).  A row without a call of its own (a catalogue row,
    applied through an engine's method) has ``target`` None.
    """

    target: Callable[..., Any] | str | None
    operands: tuple[str, ...] = ("v0",)
    fused: bool = False
    numbers: tuple[Any, ...] = ()


@dataclass(frozen=True)
class OpSpec:
    """One operation: see the module docstring for the meaning of each column."""

    name: str
    arity: int  # operands; 0 means variadic (vsum, dot)
    call: Call  # what to call in the engine (see Call), applied by ``Engine.apply``
    sym: Callable[[Sequence[sympy.Expr], Num], sympy.Expr]
    num: Callable[[Args, Num], Num]  # plain numbers; exact on rationals when `rational`
    source: Callable[[Sequence[str], Num], str]  # Python source applying the op to named Values
    consts: tuple[Num, ...] = ()  # the constant choices; () for an op without a constant
    domain: Callable[[Args, Num], bool] = _always  # operands (as floats) inside the checked domain
    kinks: tuple[float, ...] = ()  # first-operand points where the op is not differentiable
    rational: Callable[[Num], bool] = field(default=lambda c: False)  # closed over Q (given the const)
    #: Absolute forward rounding error of the op's result, in units of machine epsilon.
    fwd_err: Callable[[Args, Num, Num], Num] = _abs_out
    #: Relative error (in eps) with which an engine may evaluate each local partial from the
    #: op's inputs and output, beyond the inputs' own errors (which the oracle propagates itself).
    partial_err: Callable[[Args, Num, Num], Num] = lambda args, c, out: 2
    #: How a report names the op: ``c * v``, ``v.exp()``, ``abs(v)`` (defaults to ``name``).
    form: str = ""
    #: Where each operand may lie for the value to be a real number (see the module docstring);
    #: the sets of the first ``arity`` operands are used.  Default: everywhere.
    region: Callable[[Num], tuple[Any, ...]] = _reals
    #: ``consts`` hold a parameter of the function (leaky_relu's slope), not a constant operand.
    parameter: bool = False
    #: Where :meth:`supported_by` tries the op (default: 1.5 for each operand); an engine's extra
    #: op is tried where it was found to give a value (``asin`` refuses 1.5, yet is an op).
    probe: tuple[float, ...] = ()

    @property
    def variadic(self) -> bool:
        return self.arity == 0

    @property
    def label(self) -> str:
        """The op as a report names it: its form."""
        return self.form or self.name

    def supported_by(self, engine: Any) -> bool:
        """Whether the engine has this op at all (and for at least one constant)."""
        return bool(self.usable_consts(engine)) if self.consts else self._probe(engine, None)

    def usable_consts(self, engine: Any) -> tuple[Num, ...]:
        return tuple(c for c in self.consts if self._probe(engine, c))

    def _probe(self, engine: Any, c: Num) -> bool:
        """Whether the engine computes this op (with ``c``) on a harmless point: what the engine
        raises (``EngineRaised``) means "no"; anything else is ours and propagates."""
        from autograd.testing.boundary import EngineRaised

        if self.call.fused and getattr(engine, str(self.call.target)) is None:
            return False  # the engine has no such function
        n = 3 if self.name == "dot" else (2 if self.variadic else self.arity)
        at = self.probe or (1.5,) * n
        try:
            engine.apply(self, [engine.make(x) for x in at], c)
        except EngineRaised:
            return False
        return True

    def rule(self, nargs: int, c: Num) -> Callable[..., list[float]]:
        """Float ``f(*args) -> [value, partial per operand]``, from sympy's diff of ``sym``.

        Used only to size tolerances, where double precision is plenty.
        """
        return _float_rule(self.name, nargs, c)


@functools.cache
def _float_rule(name: str, nargs: int, c: Num) -> Callable[..., list[float]]:
    symbols = sympy.symbols(f"a0:{nargs}", real=True)
    expr = OPS[name].sym(symbols, c)
    partials = [sympy.diff(expr, s) for s in symbols]
    f = sympy.lambdify(symbols, [expr, *partials], modules=FLOAT_MODULES)
    return lambda *args: [float(v) for v in f(*args)]


def _dot_sym(xs: Sequence[sympy.Expr], c: Num) -> sympy.Expr:
    k = len(xs) // 2
    return xs[-1] + sum((xs[i] * xs[k + i] for i in range(k)), sympy.Integer(0))


def _dot_num(xs: Args, c: Num) -> Num:
    k = len(xs) // 2
    total = xs[-1]
    for i in range(k):
        total += xs[i] * xs[k + i]
    return total


def _dot_source(names: Sequence[str], c: Num) -> str:
    k = len(names) // 2
    return f"dot([{', '.join(names[:k])}], [{', '.join(names[k : 2 * k])}], {names[-1]})"


def _dot_fwd_err(xs: Args, c: Num, out: Num) -> Num:
    k = len(xs) // 2
    return (2 * k + 1) * (abs(xs[-1]) + sum(abs(xs[i] * xs[k + i]) for i in range(k)))


def _pow_domain(args: Args, c: Num) -> bool:
    (x,) = args
    if _is_int(c):
        return bool(c >= 0 or abs(x) >= AWAY_FROM_ZERO)
    return bool(x >= AWAY_FROM_ZERO)


def _vpow_domain(args: Args, c: Num) -> bool:
    a, b = args
    # |log a| >= 0.2 keeps d/db = a**b * log(a) away from a zero crossing; |b| <= 4 tames a**b
    return a >= AWAY_FROM_ZERO and abs(math.log(a)) >= 0.2 and abs(b) <= 4


def _tanh_partial_err(args: Args, c: Num, out: Num) -> Num:
    t2 = out * out  # 1 - t*t computed from a rounded t loses 2 t^2 / (1 - t^2) relative
    return 3 + 2 * t2 / (1 - t2) if t2 < 1 else 3  # t = +-1: a partial of 0 (its error: see S)


def _sigmoid_partial_err(args: Args, c: Num, out: Num) -> Num:
    return 4 + out / (1 - out) if out < 1 else 4  # s * (1 - s) computed from a rounded s


POSITIVE = sympy.Interval.open(0, sympy.oo)


def _pow_region(c: Num) -> tuple[Any, ...]:
    """``x ** c``: every real x for a whole c >= 0, x != 0 for a whole c < 0, else x >= 0 (x > 0)."""
    if _is_int(c):
        return (REALS if c >= 0 else _nonzero(),)
    return (sympy.Interval(0, sympy.oo) if c > 0 else POSITIVE,)


def _rpow_region(c: Num) -> tuple[Any, ...]:
    """``c ** x``: every x for c > 0; x > 0 for c = 0 (0 ** 0 and 0 ** -1 are not numbers)."""
    return (REALS if c > 0 else POSITIVE if c == 0 else sympy.S.EmptySet,)


def _rpow_sym(s: Sequence[sympy.Expr], c: Num) -> sympy.Expr:
    # 0 ** x is 0 on its region x > 0 (sympy's derivative of 0 ** x would be 0 * log(0))
    return sympy.S.Zero if c == 0 else sym_const(c) ** s[0]


def _rpow_num(x: Args, c: Num) -> Num:
    return c ** float(x[0])


_RATIONAL_CONSTS: Callable[[Num], bool] = lambda c: not isinstance(c, float)  # noqa: E731

_TABLE = [
    OpSpec("add", 2, Call(operator.add, ("v0", "v1")), lambda s, c: s[0] + s[1],
           lambda x, c: x[0] + x[1], lambda n, c: f"{n[0]} + {n[1]}", rational=lambda c: True, form="v + w"),
    OpSpec("mul", 2, Call(operator.mul, ("v0", "v1")), lambda s, c: s[0] * s[1],
           lambda x, c: x[0] * x[1], lambda n, c: f"{n[0]} * {n[1]}", rational=lambda c: True, form="v * w"),
    OpSpec("neg", 1, Call(operator.neg, ("v0",)), lambda s, c: -s[0],
           lambda x, c: -x[0], lambda n, c: f"-{n[0]}", rational=lambda c: True, form="-v"),
    OpSpec("sub", 2, Call(operator.sub, ("v0", "v1")), lambda s, c: s[0] - s[1],
           lambda x, c: x[0] - x[1], lambda n, c: f"{n[0]} - {n[1]}", rational=lambda c: True, form="v - w"),
    OpSpec("div", 2, Call(operator.truediv, ("v0", "v1")), lambda s, c: s[0] / s[1],
           lambda x, c: _div(x[0], x[1]), lambda n, c: f"{n[0]} / {n[1]}",
           domain=lambda x, c: abs(x[1]) >= AWAY_FROM_ZERO, rational=lambda c: True,
           partial_err=lambda x, c, out: 3, form="v / w", region=lambda c: (REALS, _nonzero())),
    OpSpec("addc", 1, Call(operator.add, ("v0", "c")), lambda s, c: s[0] + sym_const(c),
           lambda x, c: x[0] + c, lambda n, c: f"{n[0]} + {const_source(c)}",
           consts=(1, -2, Fraction(1, 2), 0.25, -1.5), rational=_RATIONAL_CONSTS, form="v + c"),
    OpSpec("rsub", 1, Call(operator.sub, ("c", "v0")), lambda s, c: sym_const(c) - s[0],
           lambda x, c: c - x[0], lambda n, c: f"{const_source(c)} - {n[0]}",
           consts=(1, -2, Fraction(3, 2), 0.5), rational=_RATIONAL_CONSTS, form="c - v"),
    OpSpec("mulc", 1, Call(operator.mul, ("c", "v0")), lambda s, c: sym_const(c) * s[0],
           lambda x, c: c * x[0], lambda n, c: f"{const_source(c)} * {n[0]}",
           consts=(2, -3, Fraction(-1, 2), 0.5, 1.5), rational=_RATIONAL_CONSTS, form="c * v"),
    OpSpec("rdiv", 1, Call(operator.truediv, ("c", "v0")), lambda s, c: sym_const(c) / s[0],
           lambda x, c: _div(c, x[0]), lambda n, c: f"{const_source(c)} / {n[0]}",
           consts=(1, -2, Fraction(3, 2), 0.5), domain=lambda x, c: abs(x[0]) >= AWAY_FROM_ZERO,
           rational=_RATIONAL_CONSTS, partial_err=lambda x, c, out: 3, form="c / v",
           region=lambda c: (_nonzero(),)),
    OpSpec("powc", 1, Call(operator.pow, ("v0", "c")), lambda s, c: s[0] ** sym_const(c),
           lambda x, c: x[0] ** c, lambda n, c: f"{n[0]} ** {const_source(c)}",
           consts=(2, 3, -1, -2, 0, 1, Fraction(1, 2), Fraction(3, 2), 0.5, 1.5, 2.0, -0.5),
           domain=_pow_domain, rational=lambda c: type(c) is int,
           fwd_err=lambda x, c, out: 2 * abs(out), partial_err=lambda x, c, out: 3, form="v ** c",
           region=_pow_region),
    OpSpec("vpow", 2, Call(operator.pow, ("v0", "v1")), lambda s, c: s[0] ** s[1],
           lambda x, c: float(x[0]) ** float(x[1]), lambda n, c: f"{n[0]} ** {n[1]}",
           domain=_vpow_domain, fwd_err=lambda x, c, out: 2 * abs(out), partial_err=lambda x, c, out: 4,
           form="v ** w", region=lambda c: (POSITIVE, REALS)),
    OpSpec("rpow", 1, Call(operator.pow, ("c", "v0")), _rpow_sym, _rpow_num,
           lambda n, c: f"{const_source(c)} ** {n[0]}",
           consts=(2, 0.5, Fraction(3, 2), 3.0), fwd_err=lambda x, c, out: 2 * abs(out),
           partial_err=lambda x, c, out: 4, form="c ** v", region=_rpow_region),
    OpSpec("exp", 1, Call("exp", ("v0",)), lambda s, c: sympy.exp(s[0]),
           lambda x, c: math.exp(x[0]), lambda n, c: f"{n[0]}.exp()", form="v.exp()"),
    OpSpec("log", 1, Call("log", ("v0",)), lambda s, c: sympy.log(s[0]),
           lambda x, c: math.log(x[0]), lambda n, c: f"{n[0]}.log()",
           domain=lambda x, c: x[0] >= AWAY_FROM_ZERO, form="v.log()", region=lambda c: (POSITIVE,)),
    OpSpec("tanh", 1, Call("tanh", ("v0",)), lambda s, c: sympy.tanh(s[0]),
           lambda x, c: math.tanh(x[0]), lambda n, c: f"{n[0]}.tanh()",
           domain=lambda x, c: abs(x[0]) <= 3, partial_err=_tanh_partial_err, form="v.tanh()"),
    OpSpec("relu", 1, Call("relu", ("v0",)), lambda s, c: Relu(s[0]),
           lambda x, c: _relu(x[0]), lambda n, c: f"{n[0]}.relu()",
           domain=lambda x, c: abs(x[0]) >= KINK_MARGIN, kinks=(0.0,), rational=lambda c: True,
           partial_err=lambda x, c, out: 0, form="v.relu()"),
    OpSpec("sigmoid", 1, Call("sigmoid", ("v0",)), lambda s, c: 1 / (1 + sympy.exp(-s[0])),
           lambda x, c: _sigmoid(x[0]), lambda n, c: f"{n[0]}.sigmoid()",
           domain=lambda x, c: abs(x[0]) <= 4, fwd_err=lambda x, c, out: 4 * abs(out),
           partial_err=_sigmoid_partial_err, form="v.sigmoid()"),
    OpSpec("vsum", 0, Call("vsum", (), fused=True), lambda s, c: sympy.Add(*s),
           lambda x, c: sum(x[1:], x[0]), lambda n, c: f"vsum([{', '.join(n)}])", rational=lambda c: True,
           fwd_err=lambda x, c, out: len(x) * sum(abs(t) for t in x), form="vsum([v, ...])"),
    OpSpec("dot", 0, Call("dot", (), fused=True), _dot_sym,
           _dot_num, _dot_source, rational=lambda c: True, fwd_err=_dot_fwd_err, form="dot(ws, xs, b)"),
    OpSpec("radd", 1, Call(operator.add, ("c", "v0")), lambda s, c: sym_const(c) + s[0],
           lambda x, c: c + x[0], lambda n, c: f"{const_source(c)} + {n[0]}",
           consts=(1, -2, Fraction(1, 2), 0.25, -1.5), rational=_RATIONAL_CONSTS, form="c + v"),
    OpSpec("subc", 1, Call(operator.sub, ("v0", "c")), lambda s, c: s[0] - sym_const(c),
           lambda x, c: x[0] - c, lambda n, c: f"{n[0]} - {const_source(c)}",
           consts=(1, -2, Fraction(3, 2), 0.5), rational=_RATIONAL_CONSTS, form="v - c"),
    OpSpec("vmulc", 1, Call(operator.mul, ("v0", "c")), lambda s, c: s[0] * sym_const(c),
           lambda x, c: x[0] * c, lambda n, c: f"{n[0]} * {const_source(c)}",
           consts=(2, -3, Fraction(-1, 2), 0.5, 1.5), rational=_RATIONAL_CONSTS, form="v * c"),
    OpSpec("divc", 1, Call(operator.truediv, ("v0", "c")), lambda s, c: s[0] / sym_const(c),
           lambda x, c: _div(x[0], c), lambda n, c: f"{n[0]} / {const_source(c)}",
           # exact only with a Fraction: engines that divide as v * c ** -1 (micrograd) turn an int c
           # into a float (2 ** -1 == 0.5), a float program rather than a wrong rule
           consts=(2, -4, Fraction(3, 2), 0.5), rational=lambda c: isinstance(c, Fraction), form="v / c",
           region=lambda c: (REALS if c != 0 else sympy.S.EmptySet,)),
]  # fmt: skip

#: Every op by name, simplest first (hypothesis shrinks a sampled op towards the first).
OPS: dict[str, OpSpec] = {spec.name: spec for spec in _TABLE}


#: The forms of ops registered for a while (an engine's extra ops), kept for the report.
_FORMS: dict[str, str] = {}


def display(op: str | None) -> str | None:
    """How a report names an op: its form (``c * v`` for ``mulc``); unknown names as they are."""
    spec = OPS.get(op) if op is not None else None
    return spec.label if spec is not None else _FORMS.get(op, op) if op is not None else None


@contextlib.contextmanager
def registered(*specs: OpSpec) -> Iterator[None]:
    """``OPS`` with ``specs`` added for the duration (ops an engine has beyond the table, see
    :mod:`autograd.testing.identify`), so that graphs, oracles and strategies handle them like
    table ops.  A name already in the table is refused: the table's rows never change."""
    clash = [s.name for s in specs if s.name in OPS]
    if clash:
        raise ValueError(f"registered: {clash} are already ops of the table")
    OPS.update({s.name: s for s in specs})
    _FORMS.update({s.name: s.label for s in specs})
    try:
        yield
    finally:
        for s in specs:
            OPS.pop(s.name, None)
