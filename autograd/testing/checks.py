"""The harness's properties, each a pure function ``check_*(engine, example)``.

``properties/`` runs them on our engine with hypothesis; the audit
(:mod:`autograd.testing.audit`) runs them on any engine as finding searches, and
:func:`~autograd.testing.verify.verify_engine` is that audit with our conventions
declared.  Each property builds fresh Values and touches nothing global, so checks
do not affect one another.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.graph import Graph, Node, OracleInconclusive
from autograd.testing.mlp import mlp_loss_graph
from autograd.testing.ops import OPS
from autograd.testing.oracles import (
    assert_grads_exact,
    assert_grads_fd,
    assert_grads_symbolic,
    symbolic_tolerances,
    working_precision,
)
from autograd.testing.reference import certify
from autograd.testing.reproducers import grad_assignment, program

__all__ = [
    "OUR_CONVENTION",
    "BackwardConvention",
    "backward_convention",
    "chain_graph",
    "check_backward_twice",
    "check_build_order",
    "check_chain_sweep",
    "check_exact",
    "check_fd",
    "check_forward",
    "check_linearity",
    "check_mlp",
    "convention_gradients",
    "convention_reproducer",
    "linear_combination_graphs",
    "mlp_loss_graph",
    "model_backward",
    "run_stateful",
    "stateful_machine",
]


# ---------------------------------------------------------------------- properties
def check_exact(engine: Any, graph: Graph) -> None:
    """Rational graph: engine gradient == sympy's exact derivative."""
    assert_grads_exact(graph, engine)


def check_symbolic(engine: Any, graph: Graph) -> None:
    """Float graph: engine gradient == sympy/mpmath derivative within the derived tolerance."""
    assert_grads_symbolic(graph, engine)


def check_fd(engine: Any, graph: Graph) -> None:
    """Float graph: engine gradient == central differences within the documented tolerance."""
    assert_grads_fd(graph, engine)


def check_forward(engine: Any, graph: Graph) -> None:
    """The output value equals sympy's: exactly on rational graphs, else within the forward bound."""
    eng = resolve_engine(engine)
    out = eng.data(graph.build(eng)[graph.out])
    if graph.rational:
        symbols, expr = graph.sympy()
        want = expr.xreplace(
            {s: sympy.Rational(Fraction(x)) for s, x in zip(symbols, graph.leaves, strict=True)}
        )
        if not (out == Fraction(int(want.p), int(want.q))):
            raise PropertyViolated(
                f"forward: engine computes {out!r}, sympy {want} for {expr}\n{graph.snippet(eng)}"
            )
        return
    want, _ = graph.mp_value_and_gradient()
    _, tol = symbolic_tolerances(graph)
    err = abs(want - out)
    if not (err <= tol):
        raise PropertyViolated(
            f"forward: engine computes {out!r}, sympy/mpmath {want}, error {float(err):.3g} > "
            f"tolerance {tol:.3g} for {graph.sympy()[1]}\n{graph.snippet(eng)}"
        )


def _grads(eng: Engine, values: Sequence[Any]) -> list[Any]:
    return [eng.grad(v) for v in values]


def check_backward_twice(engine: Any, graph: Graph) -> None:
    """A second backward() doubles every leaf gradient exactly and leaves interior ones unchanged."""
    eng = resolve_engine(engine)
    values = graph.build(eng)
    n = len(graph.leaves)
    out = values[graph.out]
    eng.backward(out)
    first = _grads(eng, values)
    eng.backward(out)
    second = _grads(eng, values)
    for name, a, b in zip(graph.names()[:n], first[:n], second[:n], strict=True):
        if not (b == 2 * a):
            raise PropertyViolated(
                f"backward twice: leaf {name} has grad {b!r} after two passes, {a!r} after one\n"
                f"{graph.snippet(eng)}"
            )
    for name, a, b in zip(graph.names()[n:], first[n:], second[n:], strict=True):
        if not (a == b):
            raise PropertyViolated(
                f"backward twice: interior {name} grad changed from {a!r} to {b!r}\n{graph.snippet(eng)}"
            )


def check_linearity(engine: Any, example: tuple[Graph, Graph, Any, Any]) -> None:
    """grad(a*f + b*g) == a*grad(f) + b*grad(g) over the same leaves: exactly when every number
    compared is exact (int or Fraction), else within the tolerance derived from the three graphs.

    The coefficients are Values (``Value(a) * f``): every engine has Value * Value, not every
    one has ``Fraction * Value``.
    """
    f, g, a, b = example
    eng = resolve_engine(engine)
    leaves = [eng.make(x) for x in f.leaves]  # shared by both graphs
    fv, gv = _on_leaves(f, eng, leaves), _on_leaves(g, eng, leaves)
    mul, add = OPS["mul"], OPS["add"]
    eng.backward(eng.apply(add, [eng.apply(mul, [eng.make(a), fv]), eng.apply(mul, [eng.make(b), gv])]))
    combined = _grads(eng, leaves)
    alone_f = f.build(eng)
    eng.backward(alone_f[f.out])
    alone_g = g.build(eng)
    eng.backward(alone_g[g.out])
    n = len(f.leaves)
    for j in range(n):
        gf, gg = eng.grad(alone_f[j]), eng.grad(alone_g[j])
        want = a * gf + b * gg
        tolerance = functools.cache(functools.partial(_linearity_tolerance, example, j, gf, gg))
        if not _agrees(combined[j], want, tolerance):
            raise PropertyViolated(
                f"linearity: d({a}*f + {b}*g)/dx{j} = {combined[j]!r}, "
                f"but {a}*df/dx{j} + {b}*dg/dx{j} = {want!r}"
                + ("" if _exact(combined[j], want) else f" (tolerance {tolerance():.3g})")
                + f"\nf:\n{f.snippet(eng)}\ng:\n{g.snippet(eng)}"
            )


def _exact(*numbers: Any) -> bool:
    """Whether every number is exact (int or Fraction): then only equality will do."""
    return all(type(x) in (int, Fraction) for x in numbers)


def _agrees(got: Any, want: Any, tolerance: Callable[[], float]) -> bool:
    """Equal when both are exact; else within ``tolerance()`` (derived only when needed)."""
    if _exact(got, want):
        return bool(got == want)
    return bool(abs(got - want) <= tolerance())


def _leaf_tolerances(graph: Graph) -> list[float]:
    """The derived tolerance of each leaf's gradient in floats (raises ``OracleInconclusive``)."""
    return symbolic_tolerances(graph)[0]


def _linearity_tolerance(example: tuple[Graph, Graph, Any, Any], j: int, gf: Any, gg: Any) -> float:
    """How far ``d(a*f + b*g)/dx_j`` and ``a*df/dx_j + b*dg/dx_j`` may differ in floats: each
    engine gradient within its derived tolerance, plus the rounding of the combination itself."""
    f, g, a, b = example
    combined = linear_combination_graphs(example)[2]
    ca, cb = abs(float(a)), abs(float(b))
    spread = ca * _leaf_tolerances(f)[j] + cb * _leaf_tolerances(g)[j] + _leaf_tolerances(combined)[j]
    return spread + 4 * working_precision()[0] * (ca * abs(float(gf)) + cb * abs(float(gg)))


def linear_combination_graphs(example: tuple[Graph, Graph, Any, Any]) -> list[Graph]:
    """f, g and ``Value(a) * f + Value(b) * g`` as one graph (what check_linearity runs): the
    coefficients are two more leaves after f's, so every node slot moves up by two."""
    f, g, a, b = example
    n = len(f.leaves)

    def moved(nodes: Sequence[Node], shift: int) -> list[Node]:
        return [Node(m.op, tuple(x if x < n else x + shift for x in m.args), m.const) for m in nodes]

    nodes = moved(f.nodes, 2) + moved(g.nodes, 2 + len(f.nodes))
    f_out = f.out if f.out < n else f.out + 2
    g_out = g.out if g.out < n else g.out + 2 + len(f.nodes)
    top = n + 2 + len(nodes)
    nodes += [Node("mul", (n, f_out)), Node("mul", (n + 1, g_out)), Node("add", (top, top + 1))]
    return [f, g, Graph((*f.leaves, a, b), tuple(nodes))]


def _on_leaves(graph: Graph, eng: Engine, leaves: list[Any]) -> Any:
    values = list(leaves)
    for node in graph.nodes:
        values.append(eng.apply(OPS[node.op], [values[a] for a in node.args], node.const))
    return values[graph.out]


def check_build_order(engine: Any, example: tuple[Graph, tuple[int, ...]]) -> None:
    """Creating the same graph's slots in another valid order changes no value and no gradient.

    Exact numbers must be equal.  In floats the values must still be equal (the same ops on
    the same operands), and each leaf gradient may differ by twice its derived tolerance (the
    engine may add the terms of a sum in another order); interior gradients are not compared.
    """
    graph, order = example
    eng = resolve_engine(engine)
    canonical = graph.build(eng)
    eng.backward(canonical[graph.out])
    n = len(graph.leaves)
    other: dict[int, Any] = {}
    for s in order:
        if s < n:
            other[s] = eng.make(graph.leaves[s])
        else:
            node = graph.nodes[s - n]
            other[s] = eng.apply(OPS[node.op], [other[a] for a in node.args], node.const)
    eng.backward(other[graph.out])
    tolerances = functools.cache(lambda: _leaf_tolerances(graph))
    for s, name in enumerate(graph.names()):
        a = (eng.data(canonical[s]), eng.grad(canonical[s]))
        b = (eng.data(other[s]), eng.grad(other[s]))
        if _exact(*a, *b):
            same = a == b
        elif s < n:
            same = a[0] == b[0] and _agrees(a[1], b[1], lambda: 2 * tolerances()[s])  # noqa: B023
        else:
            same = a[0] == b[0]
        if not same:
            raise PropertyViolated(
                f"build order: {name} is (data, grad) = {a!r} built in slot order "
                f"but {b!r} built in the order {order}\n{graph.snippet(eng)}"
            )


def chain_graph(w: Any, x: Any, n: int) -> Graph:
    """``y = w * (w * (... (w * x)))`` with ``n`` multiplications, on leaves ``(w, x)``."""
    return Graph((w, x), (Node("mul", (0, 1)), *(Node("mul", (0, 2 + i)) for i in range(n - 1))))


def check_chain_sweep(engine: Any, example: tuple[Any, Any, int]) -> None:
    """y = w * (w * (... (w * x))), n times: dy/dx == w**n and dy/dw == n * w**(n-1) * x, exactly
    on exact numbers, else within the derived tolerance (the expected values are exact rationals)."""
    w, x, n = example
    graph = chain_graph(w, x, n)
    eng = resolve_engine(engine)
    values = graph.build(eng)
    eng.backward(values[graph.out])
    fw, fx = Fraction(w), Fraction(x)
    want_x, want_w = fw**n, n * fw ** (n - 1) * fx
    got_x, got_w = eng.grad(values[1]), eng.grad(values[0])
    tolerances = functools.cache(lambda: _leaf_tolerances(graph))
    if not _agrees(got_x, want_x, lambda: tolerances()[1]):
        raise PropertyViolated(f"chain sweep n={n}: dy/dx = {got_x!r}, want w**n = {want_x}")
    if not _agrees(got_w, want_w, lambda: tolerances()[0]):
        raise PropertyViolated(f"chain sweep n={n}: dy/dw = {got_w!r}, want n*w**(n-1)*x = {want_w}")


def check_mlp(engine: Any, graph: Graph) -> None:
    """A small MLP's hinge loss: every parameter's gradient vs sympy (symbolic oracle)."""
    assert_grads_symbolic(graph, engine)


# ---------------------------------------------------------------------- stateful
RATIONAL_BINARY = ("add", "sub", "mul", "div")
RATIONAL_UNARY = (
    ("neg", None),
    ("relu", None),
    ("powc", 2),
    ("powc", -1),
    ("mulc", Fraction(-1, 2)),
    ("addc", 1),
)


def _exact_gradients(eng: Engine, op: str, c: Any) -> bool:
    """Whether ``op``'s gradients come back exact (int or Fraction) at 4/3 and 5/3, points where a
    float is rounded: the exact machine judges by equality, which an engine otherwise exact but
    sending back a float (``x ** c``'s, say) cannot meet; the float checks judge such an op.  An
    op the engine raises on here is left out too (the checks per op report the crash)."""
    spec = OPS[op]

    def gradients() -> list[Any]:
        leaves = [eng.make(x) for x in (Fraction(4, 3), Fraction(5, 3))[: spec.arity]]
        eng.backward(eng.apply(spec, leaves, c))
        return [eng.grad(v) for v in leaves]

    try:
        return all(type(g) in (int, Fraction) for g in gradients())
    except EngineRaised:
        return False


class PropertyViolated(AssertionError):
    """A property check found the engine's numbers breaking the property (the message says how,
    then the reproducer).  The check's own faults are other exceptions and propagate."""


class ModelMismatch(AssertionError):
    """The engine's gradients differ from the state machine's model (the message says where,
    then the reproducer).  The model's own faults are other exceptions and propagate."""


class EngineCrash(Exception):
    """The engine raised inside the state machine; ``.reproducer`` replays the steps so far."""

    def __init__(self, message: str, reproducer: str) -> None:
        super().__init__(message)
        self.reproducer = reproducer


@dataclass(frozen=True)
class BackwardConvention:
    """What a ``backward()`` pass does to gradients that are already there (a convention, not a
    defect: engines differ).  Each field is ``"accumulate"`` or ``"reset"``/``"assign"``.

    * ``leaves``: a reachable leaf's old gradient is kept and added to (PyTorch, ours,
      micrograd) or reset first.
    * ``interior``: the same for interior nodes; micrograd accumulates, so a stale interior
      gradient flows on into the leaves below it in the next pass; ours resets; PyTorch's
      retained gradients (``retain_grad``) accumulate but only the latest pass flows on
      (``retain``: each pass propagates fresh adjoints and adds them to what is shown).
    * ``seed``: the output's own gradient is set to 1 (``assign``) or has 1 added.
    * ``leaf_output``: ``backward()`` called on a leaf adds 1 to it or sets it to 1.
    """

    leaves: str = "accumulate"
    interior: str = "reset"
    seed: str = "assign"
    leaf_output: str = "accumulate"

    def describe(self) -> list[str]:
        across = "interior gradients accumulate across backward() calls"
        interior = {
            "accumulate": f"{across} (a stale one flows on into the next pass)",
            "retain": f"{across}, but only the latest pass flows on",
        }.get(self.interior, "interior gradients hold the latest backward() pass only")
        return [
            f"a second backward() {'adds to' if self.leaves == 'accumulate' else 'replaces'} leaf gradients",
            interior,
            "backward() "
            + ("sets the output gradient to 1" if self.seed == "assign" else "adds 1 to the output gradient"),
            "backward() on a leaf "
            + ("adds 1 to" if self.leaf_output == "accumulate" else "sets to 1")
            + " its gradient",
        ]


#: Ours (see autograd/engine.py's docstring).
OUR_CONVENTION = BackwardConvention()
_CONVENTIONS = [
    BackwardConvention(leaves, interior, seed, leaf_output)
    for leaves in ("accumulate", "reset")
    for interior in ("reset", "accumulate")
    for seed in ("assign", "accumulate")
    for leaf_output in ("accumulate", "assign")
] + [  # after the others, so that an engine matching one of them is still described by it
    BackwardConvention(leaves, "retain", seed, leaf_output)
    for leaves in ("accumulate", "reset")
    for seed in ("accumulate", "assign")
    for leaf_output in ("accumulate", "assign")
]


@functools.cache
def _local_partials(op: str, nargs: int, c: Any) -> tuple[Any, tuple[Any, ...]]:
    symbols = tuple(sympy.symbols(f"a0:{nargs}", real=True))
    expr = OPS[op].sym(symbols, c)
    return symbols, tuple(sympy.diff(expr, s) for s in symbols)


def _exact_partials(op: str, c: Any, vals: Sequence[Fraction]) -> list[Fraction]:
    """d op / d operand at an exact point, from sympy's diff of the table's expression."""
    symbols, partials = _local_partials(op, len(vals), c)
    found = certify(symbols, partials, vals)  # the table's rational ops: exact Fractions
    if not all(f.exact and f.defined for f in found):
        raise ValueError(f"{op}: its partials at {tuple(vals)} are not exact rationals: {found}")
    return [f.value for f in found]


def _reachable(args: Sequence[tuple[int, ...] | None], y: int) -> set[int]:
    """The slots ``y`` depends on, itself included."""
    seen, stack = {y}, [y]
    while stack:
        for a in args[stack.pop()] or ():
            if a not in seen:
                seen.add(a)
                stack.append(a)
    return seen


def model_backward(
    args: Sequence[tuple[int, ...] | None],
    ops: Sequence[tuple[str, Any]],
    values: Sequence[Fraction],
    grads: list[Fraction],
    y: int,
    convention: BackwardConvention,
) -> None:
    """What ``backward()`` from slot ``y`` does to ``grads`` under ``convention`` (in place, exact).

    Slots are in creation order (an op's operands come before it), so walking the
    reachable interior nodes from the last to the first visits every node after all
    of its consumers; each sends its whole gradient (old part included, when interior
    gradients accumulate) on through its local partials.
    """
    if args[y] is None:
        grads[y] = grads[y] + 1 if convention.leaf_output == "accumulate" else Fraction(1)
        return
    seen = _reachable(args, y)
    for k in seen:
        keep = convention.leaves if args[k] is None else convention.interior
        if keep not in ("accumulate", "retain"):
            grads[k] = Fraction(0)
    # what flows on: the whole gradient (old part included when interior gradients accumulate), or
    # under "retain" this pass's adjoints alone, added to what is shown afterwards
    retain = convention.interior == "retain"
    flow: Any = dict.fromkeys(seen, Fraction(0)) if retain else grads
    flow[y] = Fraction(1) if convention.seed == "assign" or retain else grads[y] + 1
    for k in sorted((k for k in seen if args[k] is not None), reverse=True):
        operands = args[k] or ()
        op, c = ops[k]
        for a, p in zip(operands, _exact_partials(op, c, [values[i] for i in operands]), strict=True):
            flow[a] += flow[k] * p
    if retain:
        for k in seen:
            grads[k] += flow[k]
        if convention.seed == "assign":
            grads[y] = Fraction(1)


#: The graph :func:`backward_convention` observes: leaves ``x, c``, ``h = x * x``, ``y = h * c``,
#: and a lone leaf ``z`` (slots in creation order, exact values), and its backward() passes:
#: from ``y`` twice, then from the leaf ``z`` twice.
_PROBE_NAMES = ("x", "c", "h", "y", "z")
_PROBE_VALUES = (Fraction(2), Fraction(3), Fraction(4), Fraction(12), Fraction(5))
_PROBE_ARGS: tuple[tuple[int, ...] | None, ...] = (None, None, (0, 0), (2, 1), None)
_PROBE_OPS: tuple[tuple[str, Any], ...] = (("", None), ("", None), ("mul", None), ("mul", None), ("", None))
_PROBE_PASSES = (3, 3, 4, 4)


def _predicted(convention: BackwardConvention) -> list[list[Fraction]]:
    """Every gradient of the probe graph after each of its passes, as ``convention`` has it."""
    grads = [Fraction(0)] * len(_PROBE_VALUES)
    predicted = []
    for y in _PROBE_PASSES:
        model_backward(_PROBE_ARGS, _PROBE_OPS, _PROBE_VALUES, grads, y, convention)
        predicted.append(list(grads))
    return predicted


def backward_convention(engine: Any = None, *, exact: bool | None = None) -> BackwardConvention | None:
    """The convention an engine follows, observed on a tiny graph (None: none of the known ones).

    ``x, c`` leaves, ``h = x * x``, ``y = h * c``: ``backward()`` from ``y`` twice, and from a
    leaf twice; the observed gradients are compared with :func:`model_backward` under each
    known convention.  The leaves are Fractions when ``exact`` (default: the engine keeps
    Fractions exact), else floats; every number involved is a small integer either way.
    Raises what the engine raises.
    """
    eng = resolve_engine(engine)
    number = Fraction if (eng.exact if exact is None else exact) else float
    x, c, z = (eng.make(number(_PROBE_VALUES[k])) for k in (0, 1, 4))
    h = eng.apply(OPS["mul"], [x, x])
    nodes = [x, c, h, eng.apply(OPS["mul"], [h, c]), z]
    observed = []
    for y in _PROBE_PASSES:
        eng.backward(nodes[y])
        observed.append([eng.grad(v) for v in nodes])
    return next((c for c in _CONVENTIONS if _predicted(c) == observed), None)


def convention_reproducer(engine: Any, convention: BackwardConvention, *, exact: bool | None = None) -> str:
    """A program running :func:`backward_convention`'s passes on the engine: after each pass it
    prints every gradient as ``convention`` predicts it (``expected``) and as the engine has it."""
    eng = resolve_engine(engine)
    number = Fraction if (eng.exact if exact is None else exact) else float
    lines = [
        f"x, c, z = {{V}}({number.__name__}(2)), {{V}}({number.__name__}(3)), {{V}}({number.__name__}(5))",
        "h = x * x",
        "y = h * c",
        "actual = []",
    ]
    for y in _PROBE_PASSES:
        lines.append(f"{_PROBE_NAMES[y]}.{{backward}}()")
        lines.append(f"actual.append([str(v.{{grad}}) for v in ({', '.join(_PROBE_NAMES)})])")
    expected = convention_gradients(convention, exact=number is Fraction)
    lines += [f"print('expected:', {expected!r})", "print('actual:  ', actual)"]
    return program(eng, *lines, preamble=["from fractions import Fraction"])


def convention_gradients(convention: BackwardConvention, *, exact: bool) -> list[list[str]]:
    """What :func:`convention_reproducer` prints for an engine following ``convention``: the
    gradients of ``x, c, h, y, z`` after each pass (Fractions when ``exact``, else floats)."""
    number = Fraction if exact else float
    return [[str(number(g)) for g in row] for row in _predicted(convention)]


# the comment a stateful reproducer ends with: the gradients the harness read when it failed
SEEN = "# the harness read:"


def _shown(eng: Engine, g: Any) -> str:
    """A gradient as the reproducer prints it: a Value (create_graph) by its number."""
    if not isinstance(g, eng.Value):
        return str(g)
    try:
        return str(eng.data(g))
    except EngineRaised as raised:
        return f"{g!r} (reading its number raises {raised.line()})"


def stateful_machine(
    engine: Any = None, convention: BackwardConvention = OUR_CONVENTION, *, exact: bool | None = None
) -> type[RuleBasedStateMachine]:
    """A state machine interleaving building, backward() from any node and zeroing leaves
    (a leaf holding a gradient, often followed at once by a pass reaching it: a zeroing shows
    only in the passes after it).

    The model is independent of the engine's rules: every node's exact value comes
    from the op table's plain-number column, every local partial from sympy's diff,
    and after ``backward()`` from ``y`` :func:`model_backward` updates the model
    gradients under ``convention`` (ours by default; the audit passes the one it
    observed with :func:`backward_convention`).  After every step every gradient must
    equal the model's exactly.

    An engine with higher order (and our convention) also gets create_graph steps:
    ``backward(create_graph=True)`` from any node (the gradients' values as in a plain
    pass; every reached gradient a Value; a later plain pass makes interior ones numbers
    again, leaves stay Values until zeroed), and the derivative of a leaf's Value
    gradient: every leaf zeroed, then a plain ``backward()`` from it must leave in each
    leaf j the sum, over the create_graph passes it holds, of d2 y / d leaf d x_j, from
    sympy's diff twice (exact).  Interior gradients after that pass depend on how the
    engine wrote its rules, so they are not judged until a later pass resets them.

    With ``exact=False`` (the default for an engine that does not keep Fractions exact) the
    leaves are floats (the model holds the same numbers as exact rationals) and each leaf
    gradient must be within the tolerance derived, pass by pass, from the subgraph each
    ``backward()`` ran on; interior gradients and create_graph steps are then not judged.
    The class counts its runs (``runs``) and the runs with a pass whose tolerance could not
    be derived (``unjudged``; its leaves' gradients are not judged until zeroed).

    An engine whose gradient cannot be written (no ``set_grad``: a read-only property, a method,
    an adapter without it; ``Engine.settable_grad``) gets no zero_grad and no create_graph rules;
    ``not_judged`` says so.
    """
    eng = resolve_engine(engine)
    exact = eng.exact if exact is None else exact
    # zeroing a gradient needs set_grad: without it, the rules that write one are left out
    settable = eng.settable_grad
    higher = exact and convention == OUR_CONVENTION and eng.higher_order and settable
    # only ops the engine has (with constants it takes): a missing op is a fact, not a failure
    binary_ops = [op for op in RATIONAL_BINARY if eng.supports(op)]
    unary_ops = [
        (op, c)
        for op, c in RATIONAL_UNARY
        if eng.supports(op) and (c is None or c in OPS[op].usable_consts(eng))
    ]
    # the exact machine judges by equality: ops whose gradients come back as floats are left out
    inexact: list[tuple[str, Any]] = []
    if exact:
        inexact = [(op, None) for op in binary_ops if not _exact_gradients(eng, op, None)]
        inexact += [(op, c) for op, c in unary_ops if not _exact_gradients(eng, op, c)]
        binary_ops = [op for op in binary_ops if (op, None) not in inexact]
        unary_ops = [u for u in unary_ops if u not in inexact]
    # an op valid everywhere, for a draw outside an op's domain: -a, else a + a (only an op the
    # machine uses anyway: one left out above, as unsupported or inexact, is left out here too)
    fallback = ("neg", 1) if ("neg", None) in unary_ops else ("add", 2) if "add" in binary_ops else None

    class GradientMachine(RuleBasedStateMachine):
        runs = 0
        unjudged = 0

        def __init__(self) -> None:
            super().__init__()
            type(self).runs += 1
            self.unjudged_here = False  # a pass of this run could not be judged
            self.tol: list[float] = []  # floats: how far each leaf gradient may be from the model
            self.values: list[Any] = []  # engine Values
            self.args: list[tuple[int, ...] | None] = []  # None for a leaf
            self.ops: list[tuple[str, Any]] = []
            self.exact: list[Fraction] = []  # each node's exact value
            self.model: list[Fraction] = []
            self.script: list[str] = []  # what was done, as Python using the engine's names
            self.passed: set[int] = set()  # interior nodes some backward() pass went through
            # create_graph steps (higher-order engines): sympy's expression of every slot, which
            # gradients are Values, d(leaf k's Value gradient)/d(leaf j), and the interior
            # gradients not judged since a pass from a gradient (engine-dependent)
            self.exprs: list[Any] = []
            self.is_value: list[bool] = []
            self.second: dict[int, dict[int, Fraction]] = {}
            self.unknown: set[int] = set()

        # ---- rules
        @initialize(value=gs.rational_leaves)
        def first_leaf(self, value: Fraction) -> None:
            self.leaf(value)  # so that every rule is enabled from the first step

        @rule(value=gs.rational_leaves)
        def leaf(self, value: Fraction) -> None:
            number: Any = value if exact else float(value)
            value = Fraction(number)  # the model holds the very number the engine got
            self.script.append(f"v{len(self.values)} = {eng.class_name}({number!r})")
            self.values.append(self._engine(eng.make, number))
            self.tol.append(0.0)
            self.args.append(None)
            self.ops.append(("", None))
            self.exact.append(value)
            self.model.append(Fraction(0))
            self.exprs.append(sympy.Symbol(f"v{len(self.exprs)}", real=True))
            self.is_value.append(False)

        def _add(self, op: str, c: Any, args: tuple[int, ...]) -> None:
            self.script.append(f"v{len(self.values)} = {OPS[op].source([f'v{a}' for a in args], c)}")
            self.values.append(self._engine(eng.apply, OPS[op], [self.values[a] for a in args], c))
            self.tol.append(0.0)
            self.args.append(args)
            self.ops.append((op, c))
            self.exact.append(Fraction(OPS[op].num([self.exact[a] for a in args], c)))
            self.model.append(Fraction(0))
            self.exprs.append(OPS[op].sym([self.exprs[a] for a in args], c))
            self.is_value.append(False)

        def _valid(self, op: str, c: Any, args: tuple[int, ...]) -> bool:
            vals = [self.exact[a] for a in args]
            if not OPS[op].domain([float(v) for v in vals], c) or (op == "div" and vals[1] == 0):
                return False
            return bool(abs(OPS[op].num(vals, c)) <= 1000)

        def _fallback(self, a: int) -> None:
            """-a, or a + a for an engine without (exact) negation; nothing without either."""
            if fallback is not None:
                name, arity = fallback
                self._add(name, None, (a,) * arity)

        # an engine without binary ops, or without unary ones (Values only, no constants, no
        # negation), gets no such rule: sampling from nothing is an error
        if binary_ops:

            @rule(data=st.data(), op=st.sampled_from(binary_ops))
            def binary(self, data: Any, op: str) -> None:
                n = len(self.values)
                a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
                # outside the domain (b == 0 for div): fall back to an op valid everywhere
                if self._valid(op, None, (a, b)):
                    self._add(op, None, (a, b))
                else:
                    self._fallback(a)

        if unary_ops:

            @rule(data=st.data(), op=st.sampled_from(unary_ops))
            def unary(self, data: Any, op: tuple[str, Any]) -> None:
                a = data.draw(st.integers(0, len(self.values) - 1))
                name, c = op
                if self._valid(name, c, (a,)) and not (name == "relu" and self.exact[a] == 0):
                    self._add(name, c, (a,))
                else:
                    self._fallback(a)

        @rule(data=st.data())
        def backward(self, data: Any) -> None:
            self._backward_from(data.draw(st.integers(0, len(self.values) - 1)))
            # hypothesis turns some rules off for a whole run (swarm testing): zeroing, judged
            # only by a pass after it, is drawn from here too, so that no run lacks it
            if settable and self._holding() and data.draw(st.booleans()):
                self.zero_grad(data)

        def _judgeable(self, y: int) -> bool:
            """Whether a plain backward() from ``y`` can be judged: with accumulated interior
            gradients, a stale one flows on, and so do those of the nodes an engine builds inside
            one op (micrograd's x - y is x + y * -1): what a second pass over an interior node
            gives depends on the engine's insides, so only fresh subgraphs are checked."""
            return not (convention.interior == "accumulate" and self._interior(y) & self.passed)

        def _interior(self, y: int) -> set[int]:
            return {k for k in _reachable(self.args, y) if self.args[k] is not None}

        def _backward_from(self, y: int) -> None:
            if not self._judgeable(y):
                return
            reached = self._interior(y)
            self.passed |= reached
            self.script.append(f"v{y}.{eng.backward_method}()")
            self._engine(eng.backward, self.values[y])
            model_backward(self.args, self.ops, self.exact, self.model, y, convention)
            if not exact:
                self._widen(y)
            for k in reached:
                self.is_value[k] = False  # interior gradients are numbers again
            self.unknown -= reached

        if higher:

            @rule(data=st.data())
            def backward_create_graph(self, data: Any) -> None:
                # a coin flip prefers the newest node, whose second derivatives involve the most ops
                newest = len(self.values) - 1
                y = newest if data.draw(st.booleans()) else data.draw(st.integers(0, newest))
                self.script.append(f"v{y}.{eng.backward_method}(create_graph=True)")
                self._engine(functools.partial(eng.backward, create_graph=True), self.values[y])
                model_backward(self.args, self.ops, self.exact, self.model, y, convention)
                reached = _reachable(self.args, y)
                leaves = [k for k in range(len(self.values)) if self.args[k] is None]
                symbols, point = [self.exprs[j] for j in leaves], [self.exact[j] for j in leaves]
                for k in reached:
                    self.is_value[k] = True
                    if self.args[k] is None and self.args[y] is not None:
                        first = sympy.diff(self.exprs[y], self.exprs[k])
                        row = self.second.setdefault(k, {})
                        for j in leaves:
                            (d,) = certify(symbols, [sympy.diff(first, self.exprs[j])], point)
                            row[j] = row.get(j, Fraction(0)) + d.value  # rational ops: a Fraction
                self.unknown -= reached
                if data.draw(st.booleans()):  # at once, half the time: the commonest way to use it
                    self.differentiate_a_gradient(data)

            @precondition(lambda self: any(self.is_value[k] for k in self._leaves()))
            @rule(data=st.data())
            def differentiate_a_gradient(self, data: Any) -> None:
                k = data.draw(st.sampled_from([k for k in self._leaves() if self.is_value[k]]))
                g = self._engine(eng.grad, self.values[k])
                if not isinstance(g, eng.Value):
                    raise ModelMismatch(f"stateful: leaf v{k}'s gradient {g!r} is not a Value")
                want = self.second.get(k, {})
                self.script.append(f"g = v{k}.{eng.grad_attr}")
                for j in self._leaves():
                    self.script.append(grad_assignment(eng, f"v{j}", self.values[j], 0))
                    self._engine(eng.set_grad, self.values[j], 0)
                    self.model[j] = want.get(j, Fraction(0))
                    self.is_value[j] = False
                    self.second.pop(j, None)
                self.script.append(f"g.{eng.backward_method}()")
                self._engine(eng.backward, g)
                self.unknown = {i for i, a in enumerate(self.args) if a is not None}

        def _leaves(self) -> list[int]:
            return [i for i, a in enumerate(self.args) if a is None]

        def _widen(self, y: int) -> None:
            """Floats: each leaf reached from ``y`` may now be off by this pass's derived
            tolerance more (or only by it, when the convention resets leaves)."""
            slots = sorted(_reachable(self.args, y))
            leaves = [k for k in slots if self.args[k] is None]
            if self.args[y] is None:
                tols = {y: 0.0}  # backward() on a leaf: the seed 1 is exact
            else:
                inner = [k for k in slots if self.args[k] is not None]
                index = {k: i for i, k in enumerate(leaves + inner)}
                nodes = tuple(
                    Node(self.ops[k][0], tuple(index[a] for a in self.args[k] or ()), self.ops[k][1])
                    for k in inner
                )
                graph = Graph(tuple(float(self.exact[k]) for k in leaves), nodes)
                try:
                    tols = dict(zip(leaves, _leaf_tolerances(graph), strict=True))
                except OracleInconclusive:  # no tolerance: these leaves are not judged until zeroed
                    if not self.unjudged_here:
                        self.unjudged_here = True
                        type(self).unjudged += 1
                    self.unknown |= set(leaves)
                    return
            for k, t in tols.items():
                self.tol[k] = self.tol[k] + t if convention.leaves == "accumulate" else t

        def _holding(self) -> list[int]:
            """The leaves whose gradients are not 0 (as the model has them)."""
            return [k for k in self._leaves() if self.model[k] != 0]

        # Zeroing is judged by the passes after it (a total kept aside comes back only then): it
        # waits until a leaf holds a gradient, prefers such a leaf, and half the time a pass that
        # reaches the zeroed leaf follows at once, so that this sequence is common in a short run.
        @precondition(lambda self: bool(self._holding()))
        @rule(data=st.data())
        def zero_grad(self, data: Any) -> None:
            k = data.draw(st.sampled_from(self._holding() if data.draw(st.booleans()) else self._leaves()))
            self.script.append(grad_assignment(eng, f"v{k}", self.values[k], 0))
            self._engine(eng.set_grad, self.values[k], 0)
            self.model[k] = Fraction(0)
            self.tol[k] = 0.0
            self.is_value[k] = False
            self.second.pop(k, None)
            if not exact:
                self.unknown.discard(k)
            if data.draw(st.booleans()):
                # (k itself is one: from a leaf nothing interior is reached)
                reaching = [y for y in range(len(self.values)) if k in _reachable(self.args, y)]
                self._backward_from(data.draw(st.sampled_from([y for y in reaching if self._judgeable(y)])))

        @invariant()
        def gradients_match_model(self) -> None:
            got = [self._engine(eng.grad, v) for v in self.values]
            for k, want in enumerate(self.model):
                if k in self.unknown:
                    continue
                if not exact:
                    if self.args[k] is None and not _agrees(got[k], want, lambda: self.tol[k]):  # noqa: B023
                        raise ModelMismatch(
                            f"stateful: leaf v{k} has grad {got[k]!r}, model says {float(want)!r} "
                            f"(tolerance {self.tol[k]:.3g})\n{self._reproducer(got)}"
                        )
                    continue
                if higher:
                    is_value = isinstance(got[k], eng.Value)
                    if is_value != self.is_value[k]:
                        raise ModelMismatch(
                            f"stateful: node v{k} ({self.ops[k][0] or 'leaf'}) has grad {got[k]!r}, "
                            f"model says {'a Value' if self.is_value[k] else 'a number'}\n"
                            + self._reproducer(got)
                        )
                    got[k] = self._engine(eng.data, got[k]) if is_value else got[k]
                if got[k] != want:
                    raise ModelMismatch(
                        f"stateful: node v{k} ({self.ops[k][0] or 'leaf'}) has grad {got[k]!r}, "
                        f"model says {want}\n{self._reproducer(got)}"
                    )

        def _engine(self, call: Callable[..., Any], *args: Any) -> Any:
            """``call(*args)``, an :class:`Engine` method: what the engine raised there
            (``EngineRaised``) becomes an :class:`EngineCrash` with the script so far."""
            try:
                return call(*args)
            except EngineRaised as raised:
                exc = raised.exc
                raise EngineCrash(f"{type(exc).__name__}: {exc}", self._reproducer()) from exc

        def _reproducer(self, got: Sequence[Any] = ()) -> str:
            """The steps so far as a script that prints expected vs actual gradients (and, after a
            wrong gradient, what the harness read from the engine, ``got``, as a comment)."""
            grad = eng.grad_attr
            expected = [
                "?"
                if i in self.unknown or not (exact or self.args[i] is None)
                else str(m if exact else float(m))
                for i, m in enumerate(self.model)
            ]
            # a Value gradient (create_graph) shows its number; any other (a 0-d array, whose `data`
            # is its buffer) shows itself
            grads = ", ".join(f"v{i}.{grad}" for i in range(len(self.values)))
            return "\n".join(
                [
                    "from fractions import Fraction",
                    eng.import_line(),
                    *self.script,
                    f"print('expected:', {expected!r})",
                    f"print('actual:  ', [str(g.{eng.data_attr} if isinstance(g, {eng.class_name}) else g)"
                    f" for g in [{grads}]])",
                    *([f"{SEEN} {[_shown(eng, g) for g in got]!r}"] if got else []),
                ]
            )

    # What this machine does not exercise, and why (for the report).  (The rule is removed after
    # the class is made, not left out of its body: the derandomized draws follow the body's source.)
    not_judged: tuple[str, ...] = ()
    if inexact:
        shown = ", ".join(OPS[op].source(["x", "y"][: OPS[op].arity], c) for op, c in inexact)
        not_judged += (f"{shown} (gradients not exact numbers: equality cannot judge them)",)
    if not settable:
        del GradientMachine.zero_grad
        not_judged += ("zero_grad (writing a leaf's gradient: the engine, or its adapter, has no set_grad)",)
    GradientMachine.not_judged = not_judged
    return GradientMachine


def run_stateful(
    engine: Any, example: None = None, *, max_examples: int = 30, phases: Any = None,
    convention: BackwardConvention = OUR_CONVENTION,
) -> None:  # fmt: skip
    """Run the state machine deterministically against the engine (raises on a failure)."""
    run_state_machine_as_test(
        stateful_machine(engine, convention),
        settings=settings(
            max_examples=max_examples, stateful_step_count=15, derandomize=True, database=None, deadline=None,
            **({"phases": phases} if phases is not None else {}),
        ),
    )  # fmt: skip
