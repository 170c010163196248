"""``Graph``: a computation as plain data, compiled to engine Values, sympy or floats.

Slots ``0 .. len(leaves) - 1`` are the leaves (inputs); slot ``len(leaves) + i``
is ``nodes[i]``, whose ``args`` name earlier slots.  ``output`` is a slot (the
last one by default).  ``repr(graph)`` is a short runnable Python snippet that
rebuilds the graph with the engine and prints the leaf gradients;
``graph.code()`` is the constructor call that rebuilds the description itself.
``graph.reference()`` is the oracles' reference: output, sympy's gradient and relu
inputs, exact (Fractions) for graphs of rational ops, else mpmath intervals at a
precision raised until they settle, or :class:`OracleInconclusive`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv
from mpmath.libmp import to_float  # type: ignore[import-untyped]
from sympy.printing.pycode import MpmathPrinter  # type: ignore[import-untyped]

from autograd.testing.catalogue import EXACT_FUNCTIONS, INTERVAL_FUNCTIONS
from autograd.testing.engines import resolve_engine
from autograd.testing.ops import OPS, const_source, sym_const

__all__ = ["Graph", "Node", "OracleInconclusive", "Reference"]

#: mpmath working precision (decimal digits) for comparing numbers with the reference.
MP_DPS = 50
#: Interval evaluation starts at this many bits and doubles up to REFERENCE_MAX_PREC.
REFERENCE_START_PREC = 128
REFERENCE_MAX_PREC = 8192
#: A reference interval is settled when both ends round to the same double, or its width
#: is below this fraction of its magnitude (for values that sit on a rounding boundary).
REFERENCE_REL_WIDTH = 2.0**-70


class OracleInconclusive(Exception):
    """The oracle cannot judge this point; ``.reason`` says why.  Not a defect of the engine.

    Raised when the reference does not settle at the highest precision, when a relu
    input is on different sides of its kink in floats and exactly (or closer to it than
    the forward error bound), when finite differences do not converge, and when a
    bound leaves the float range.  Exported by :mod:`autograd.testing.oracles`.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Reference:
    """The exact output, gradient and relu inputs of a graph at a point, each with an error radius.

    Values are Fractions (rational graphs: radius 0) or mpmath numbers (the midpoint of an
    interval whose half-width is the radius).  ``kink_inputs[slot]`` is the value of the
    operand of the relu node ``slot`` (only nodes that reach the output); its sign is certain.
    """

    value: Any
    gradient: tuple[Any, ...]
    kink_inputs: dict[int, Any]
    value_radius: Any = 0
    gradient_radius: tuple[Any, ...] = ()
    exact: bool = True


@dataclass(frozen=True)
class Node:
    """``op`` applied to the slots ``args`` (and ``const`` for the ops that take one)."""

    op: str
    args: tuple[int, ...]
    const: Any = None

    def __repr__(self) -> str:
        const = "" if self.const is None else f", {const_source(self.const)}"
        return f"Node({self.op!r}, {self.args!r}{const})"


@dataclass(frozen=True, repr=False)
class Graph:
    leaves: tuple[Any, ...]
    nodes: tuple[Node, ...] = ()
    output: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "leaves", tuple(self.leaves))
        object.__setattr__(self, "nodes", tuple(self.nodes))
        for i, node in enumerate(self.nodes):
            slot = len(self.leaves) + i
            spec = OPS.get(node.op)
            if spec is None:
                raise ValueError(f"Graph: node {slot} has unknown op {node.op!r}; known: {sorted(OPS)}")
            n = len(node.args)
            if (
                (spec.arity and n != spec.arity)
                or (node.op == "vsum" and n < 1)
                or (node.op == "dot" and (n < 3 or n % 2 == 0))
            ):
                raise ValueError(
                    f"Graph: node {slot} ({node.op}) has a wrong number of operands: {node.args}"
                )
            if any(not 0 <= a < slot for a in node.args):
                raise ValueError(f"Graph: node {slot} ({node.op}) refers to a later slot: {node.args}")
            if bool(spec.consts) != (node.const is not None):
                raise ValueError(f"Graph: node {slot} ({node.op}) constant {node.const!r} is misplaced")
        if not 0 <= self.out < len(self.leaves) + len(self.nodes):
            raise ValueError(f"Graph: output slot {self.output} does not exist")

    # ------------------------------------------------------------------ shape
    @property
    def out(self) -> int:
        """The output slot."""
        return len(self.leaves) + len(self.nodes) - 1 if self.output is None else self.output

    @property
    def structure(self) -> tuple[Any, ...]:
        """Everything but the leaf values: the key under which sympy work is cached."""
        return (len(self.leaves), self.nodes, self.out)

    @property
    def rational(self) -> bool:
        """True when every op is closed over the rationals and no leaf is a float."""
        return all(not isinstance(x, float) for x in self.leaves) and all(
            OPS[n.op].rational(n.const) for n in self.nodes
        )

    def names(self) -> list[str]:
        return [f"x{i}" for i in range(len(self.leaves))] + [
            f"n{len(self.leaves) + i}" for i in range(len(self.nodes))
        ]

    def expression(self) -> str:
        """The program as one Python expression of the leaves, as an engine runs it (``x0 ** 0``)."""
        n = len(self.leaves)
        exprs = [f"x{i}" for i in range(n)]
        for node in self.nodes:
            exprs.append(
                OPS[node.op].source([exprs[a] if a < n else f"({exprs[a]})" for a in node.args], node.const)
            )
        return exprs[self.out]

    def with_leaves(self, leaves: Sequence[Any]) -> Graph:
        return Graph(tuple(self.point(leaves, "with_leaves")), self.nodes, self.output)

    def point(self, values: Sequence[Any] | None, where: str = "point") -> list[Any]:
        """The leaves' values: the graph's own (``None``), or ``values``, exactly one per leaf
        (one more or fewer would shift every slot and give another function's value)."""
        if values is None:
            return list(self.leaves)
        values = list(values)
        if len(values) != len(self.leaves):
            raise ValueError(f"Graph.{where}: {len(values)} values {values!r} for {len(self.leaves)} leaves")
        return values

    # ------------------------------------------------------------------ backends
    def build(self, engine: Any = None, leaves: Sequence[Any] | None = None) -> list[Any]:
        """Engine Values for every slot (fresh leaves each call); the output is ``[graph.out]``."""
        eng = resolve_engine(engine)
        values = [eng.make(x) for x in self.point(leaves, "build")]
        for node in self.nodes:
            values.append(eng.apply(OPS[node.op], [values[a] for a in node.args], node.const))
        return values

    def evaluate(self, point: Sequence[Any] | None = None) -> list[Any]:
        """Plain numbers for every slot (exact for rational graphs on Fractions)."""
        values = self.point(point, "evaluate")
        for node in self.nodes:
            values.append(OPS[node.op].num([values[a] for a in node.args], node.const))
        return values

    def __call__(self, *point: Any) -> Any:
        """The plain-number function of the leaves: ``graph(0.5, 2.0)``."""
        return self.evaluate(point)[self.out]

    def sympy(self) -> tuple[tuple[sympy.Symbol, ...], sympy.Expr]:
        """Leaf symbols ``x0, x1, ...`` and the output as a sympy expression of them."""
        symbols, exprs = _sympy_slots(self.structure)
        return symbols, exprs[self.out]

    def sympy_gradient(self) -> tuple[Any, ...]:  # sympy expressions
        """sympy's own derivative of the output with respect to each leaf (cached per structure)."""
        return _sympy_gradient(self.structure)

    def reaching(self) -> frozenset[int]:
        """The slots with a path to the output (the output included)."""
        return _reaching(self.structure)

    def reference(self, point: Sequence[Any] | None = None) -> Reference:
        """Output, sympy's gradient and relu inputs, evaluated so that their error is known.

        Floats are rationals: a graph of rational ops is evaluated EXACTLY in Fractions.
        Otherwise mpmath interval arithmetic, from ``REFERENCE_START_PREC`` bits doubling
        up to ``REFERENCE_MAX_PREC``, until every result is settled (see
        ``REFERENCE_REL_WIDTH``) and every relu input's sign is certain; raises
        :class:`OracleInconclusive` when that does not happen.
        """
        leaves = self.point(point, "reference")
        if all(OPS[n.op].rational(n.const) for n in self.nodes):
            return _exact_reference(self.structure, leaves)
        return _interval_reference(self.structure, leaves)

    def mp_value_and_gradient(self, point: Sequence[Any] | None = None) -> tuple[Any, list[Any]]:
        """Output and sympy gradient as mpmath numbers, from :meth:`reference`."""
        ref = self.reference(point)
        value, *grad = (_mpf(x) if isinstance(x, Fraction) else x for x in (ref.value, *ref.gradient))
        return value, grad

    # ------------------------------------------------------------------ printing
    def snippet(self, engine: Any = None, expected: str | None = None) -> str:
        """Runnable Python that rebuilds this graph with the engine and prints the leaf gradients.

        It imports the engine's own class (``engine`` as for :func:`resolve_engine`) and uses
        its names for the data, gradient and backward pass.  With ``expected`` (Python source
        of the expected gradients) it prints ``expected:`` first, so that a crash still shows
        it, and then ``actual:``.
        """
        eng = resolve_engine(engine)
        names = self.names()
        used = {n.op for n in self.nodes} & {"vsum", "dot"}
        fractions = any(isinstance(x, Fraction) for x in self.leaves) or any(
            isinstance(n.const, Fraction) for n in self.nodes
        )
        lines = ["from fractions import Fraction"] if fractions else []
        lines.append(eng.import_line(used))
        if expected is not None:
            lines.append(f"print('expected:', {expected})")
        lines += [f"{names[i]} = {eng.class_name}({x!r})" for i, x in enumerate(self.leaves)]
        for i, node in enumerate(self.nodes):
            args = [names[a] for a in node.args]
            lines.append(f"{names[len(self.leaves) + i]} = {OPS[node.op].source(args, node.const)}")
        lines.append(f"{names[self.out]}.{eng.backward_method}()")
        grads = ", ".join(f"{n}.{eng.grad_attr}" for n in names[: len(self.leaves)])
        lines.append(f"print({'' if expected is None else repr('actual:  ') + ', '}[{grads}])")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.snippet()

    def code(self) -> str:
        """The constructor call rebuilding this description: ``Graph(leaves=..., nodes=...)``."""
        output = "" if self.output is None else f", output={self.output}"
        return f"Graph(leaves={self.leaves!r}, nodes={self.nodes!r}{output})"


def _mpf(x: Any) -> Any:
    if isinstance(x, Fraction):
        with mpmath.workprec(max(mpmath.mp.prec, x.numerator.bit_length(), x.denominator.bit_length() + 64)):
            return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


@functools.lru_cache(maxsize=4096)
def _sympy_slots(structure: tuple[Any, ...]) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
    n_leaves, nodes, _ = structure
    symbols = tuple(sympy.symbols(f"x0:{n_leaves}", real=True)) if n_leaves else ()
    exprs: list[sympy.Expr] = list(symbols)
    for node in nodes:
        exprs.append(OPS[node.op].sym([exprs[a] for a in node.args], node.const))
    return symbols, tuple(exprs)


@functools.lru_cache(maxsize=4096)
def _sympy_gradient(structure: tuple[Any, ...]) -> tuple[sympy.Expr, ...]:
    symbols, exprs = _sympy_slots(structure)
    out = exprs[structure[2]]
    return tuple(sympy.diff(out, s) for s in symbols)


@functools.lru_cache(maxsize=4096)
def _reaching(structure: tuple[Any, ...]) -> frozenset[int]:
    n_leaves, nodes, out = structure
    seen, stack = {out}, [out]
    while stack:
        slot = stack.pop()
        for a in nodes[slot - n_leaves].args if slot >= n_leaves else ():
            if a not in seen:
                seen.add(a)
                stack.append(a)
    return frozenset(seen)


def _kink_slots(structure: tuple[Any, ...]) -> list[int]:
    """The relu (kinked) nodes that reach the output."""
    n_leaves, nodes, _ = structure
    reaching = _reaching(structure)
    return [n_leaves + i for i, n in enumerate(nodes) if OPS[n.op].kinks and n_leaves + i in reaching]


def _reference_function(structure: tuple[Any, ...], namespace: dict[str, Any]) -> Any:
    """``f(*leaves) -> [output, *gradient, *relu inputs]`` with the functions in ``namespace``.

    mpmath's printer writes a rational constant p/q as ``mpf(p)/mpf(q)``, so binding ``mpf``
    to ``Fraction`` (or to an interval) keeps constants exact.  Every function sympy writes
    into the table's derivatives must be bound here: one that is not falls back to
    mpmath's point version, which rejects an interval (ValueError: inconclusive).
    """
    symbols, exprs = _sympy_slots(structure)
    n_leaves, nodes, out = structure
    kink_inputs = [exprs[nodes[s - n_leaves].args[0]] for s in _kink_slots(structure)]
    outputs = [exprs[out], *_sympy_gradient(structure), *kink_inputs]
    if any(o.has(sympy.zoo, sympy.nan) for o in outputs):  # log(x - x) is zoo, log(x - x) * 0 is nan
        raise OracleInconclusive(f"no reference: {exprs[out]} or its gradient is undefined everywhere")
    printer = MpmathPrinter(
        {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True}
    )
    return sympy.lambdify(symbols, outputs, modules=[namespace], printer=printer, cse=True)


def _relu(x: Any) -> Any:
    return x if x > 0 else 0 * x


def _step(x: Any) -> Any:
    return 1 if x > 0 else 0


_EXACT_NAMESPACE = {"mpf": Fraction, "Relu": _relu, "Step": _step, **EXACT_FUNCTIONS}


@functools.lru_cache(maxsize=4096)
def _exact_function(structure: tuple[Any, ...]) -> Any:
    return _reference_function(structure, _EXACT_NAMESPACE)


def _exact_reference(structure: tuple[Any, ...], leaves: list[Any]) -> Reference:
    n_leaves = structure[0]
    try:
        value, *rest = _exact_function(structure)(*map(Fraction, leaves))
    except ZeroDivisionError as exc:
        raise OracleInconclusive(f"the exact reference divides by zero ({exc})") from exc
    kinks = dict(zip(_kink_slots(structure), rest[n_leaves:], strict=True))
    return Reference(Fraction(value), tuple(Fraction(g) for g in rest[:n_leaves]), kinks)


class _Straddle(Exception):
    """An interval argument of Step contains 0 and other numbers: more precision needed."""


def _iv_relu(x: Any) -> Any:
    x = iv.mpf(x)  # also a constant such as e
    return iv.mpf([iv.mpf(0) if x.a < 0 else x.a, iv.mpf(0) if x.b < 0 else x.b])


def _iv_step(x: Any) -> Any:
    x = iv.mpf(x)
    if x.a > 0:
        return iv.mpf(1)
    if x.b <= 0:
        return iv.mpf(0)
    raise _Straddle


def _iv_sign(x: Any) -> Any:  # sympy writes d|x|/dx as sign(x) (from (x*x)**c on real x)
    x = iv.mpf(x)
    if x.a > 0:
        return iv.mpf(1)
    if x.b < 0:
        return iv.mpf(-1)
    if x.a == 0 and x.b == 0:
        return iv.mpf(0)
    raise _Straddle


def _iv_tanh(x: Any) -> Any:  # mpmath.iv has no tanh; x appears once, so the interval stays tight
    return 1 - 2 / (iv.exp(2 * x) + 1)


_INTERVAL_NAMESPACE = {
    "mpf": iv.mpf, "exp": iv.exp, "log": iv.ln, "sqrt": iv.sqrt, "tanh": _iv_tanh,
    "Relu": _iv_relu, "Step": _iv_step, "sign": _iv_sign, "e": iv.e, "pi": iv.pi,
    **INTERVAL_FUNCTIONS,  # the catalogue's functions (an engine's identified extra ops)
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _interval_function(structure: tuple[Any, ...]) -> Any:
    return _reference_function(structure, _INTERVAL_NAMESPACE)


def _ends(x: Any) -> tuple[Any, Any]:
    lo, hi = x._mpi_
    return lo, hi


def _settled(x: Any) -> bool:
    """Both ends round to the same double, or the interval is relatively narrow."""
    lo, hi = _ends(x)
    if to_float(lo, rnd="n") == to_float(hi, rnd="n"):
        return True
    with mpmath.workprec(iv.prec):  # the ends as they are: rounded to 53 bits, they are a double apart
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        return bool(a * b > 0 and b - a <= REFERENCE_REL_WIDTH * min(abs(a), abs(b)))


def _sign_known(x: Any) -> bool:
    return bool(x.a > 0 or x.b < 0 or (x.a == 0 and x.b == 0))


def _interval_reference(structure: tuple[Any, ...], leaves: list[Any]) -> Reference:
    f = _interval_function(structure)
    prec = REFERENCE_START_PREC
    why = ""
    while prec <= REFERENCE_MAX_PREC:
        saved = iv.prec
        iv.prec = prec  # mpmath.iv has no workprec context
        try:
            reference = _interval_attempt(structure, f, leaves, prec)
        except (_Straddle, ZeroDivisionError, ValueError) as exc:
            why = f"an interval met a kink or a pole at {prec} bits ({type(exc).__name__})"
        else:
            if reference is not None:
                return reference
            why = f"the intervals are still wide at {prec} bits"
        finally:
            iv.prec = saved
        prec *= 2
    raise OracleInconclusive(f"the reference did not settle: {why}")


def _interval_attempt(structure: tuple[Any, ...], f: Any, leaves: list[Any], prec: int) -> Reference | None:
    """One evaluation at ``iv.prec``; None when some result is not settled yet."""
    n_leaves = structure[0]
    args = [iv.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else iv.mpf(x) for x in leaves]
    value, *rest = (iv.mpf(y) for y in f(*args))  # a constant output comes back as an int
    grad, kinks = rest[:n_leaves], rest[n_leaves:]
    if not (all(map(_settled, [value, *grad])) and all(map(_sign_known, kinks))):
        return None
    with mpmath.workprec(prec):
        ends = [(mpmath.mpf(a), mpmath.mpf(b)) for a, b in map(_ends, [value, *grad, *kinks])]
    mid, rad = zip(*(_middle(a, b, prec) for a, b in ends), strict=True)
    rad = rad[: n_leaves + 1]
    kink_inputs = dict(zip(_kink_slots(structure), mid[n_leaves + 1 :], strict=True))
    return Reference(mid[0], tuple(mid[1 : n_leaves + 1]), kink_inputs, rad[0], tuple(rad[1:]), exact=False)


def _middle(a: Any, b: Any, prec: int) -> tuple[Any, Any]:
    """Midpoint and radius of ``[a, b]``: exactly, since (a + b) / 2 rounded to prec bits can be an
    end and mid +- rad then misses half the interval; rounded outward when the exact sum would be
    far longer than the ends (exp(-1.4e140) beside 1.0: an integer of 2e140 bits)."""
    if _exact_bits(a, b) <= 4 * prec:
        mid = mpmath.ldexp(mpmath.fadd(a, b, exact=True), -1)
        return mid, mpmath.ldexp(mpmath.fsub(b, a, exact=True), -1)
    mid = mpmath.ldexp(mpmath.fadd(a, b, prec=prec), -1)
    up = [mpmath.fsub(b, mid, prec=prec, rounding="u"), mpmath.fsub(mid, a, prec=prec, rounding="u")]
    return mid, max(up)


def _exact_bits(a: Any, b: Any) -> int:
    """Bits of the exact a + b: from the lowest bit of either to the highest (0 for zeros)."""
    parts = [(x._mpf_[2], x._mpf_[2] + x._mpf_[3]) for x in (a, b) if x]  # (exp, exp + bitcount)
    return max(top for _, top in parts) - min(low for low, _ in parts) if parts else 0


def sym_value(x: Any) -> sympy.Expr:
    """A leaf value as an exact sympy number."""
    return sym_const(x)
