"""The properties, each a pure function ``check_*(engine, example)``, and their checks.

``properties/`` runs them on our engine with hypothesis; the audit runs ``linearity``,
``build_order``, ``chain_sweep`` and ``mlp`` on any engine as finding searches: on Fractions for
an engine that keeps them exact (equality), else on floats with tolerances derived from the
graph.  Each property builds fresh Values and touches nothing global, so checks do not affect
one another.  A property the engine breaks raises :class:`PropertyViolated`; any other
exception of a property is ours and propagates.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]
from hypothesis import strategies as st

from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.common import crash, run_graph
from autograd.testing.checks.gradients import exact_trial, float_trial
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding, outcome
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
from autograd.testing.runner import Trials, search

__all__ = [
    "PropertyViolated", "chain_graph", "check_backward_twice", "check_build_order", "check_chain_sweep",
    "check_exact", "check_fd", "check_forward", "check_linearity", "check_mlp", "linear_combination_graphs",
    "mlp_loss_graph",
]  # fmt: skip


class PropertyViolated(AssertionError):
    """A property check found the engine's numbers breaking the property (the message says how,
    then the reproducer).  The check's own faults are other exceptions and propagate."""


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
    _, tol = symbolic_tolerances(graph, precision=eng.precision)
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
        tolerance = functools.cache(
            functools.partial(_linearity_tolerance, example, j, gf, gg, eng.precision)
        )
        if not agrees(combined[j], want, tolerance):
            raise PropertyViolated(
                f"linearity: d({a}*f + {b}*g)/dx{j} = {combined[j]!r}, "
                f"but {a}*df/dx{j} + {b}*dg/dx{j} = {want!r}"
                + ("" if _exact(combined[j], want) else f" (tolerance {tolerance():.3g})")
                + f"\nf:\n{f.snippet(eng)}\ng:\n{g.snippet(eng)}"
            )


def _exact(*numbers: Any) -> bool:
    """Whether every number is exact (int or Fraction): then only equality will do."""
    return all(type(x) in (int, Fraction) for x in numbers)


def agrees(got: Any, want: Any, tolerance: Callable[[], float]) -> bool:
    """Equal when both are exact; else within ``tolerance()`` (derived only when needed)."""
    if _exact(got, want):
        return bool(got == want)
    return bool(abs(got - want) <= tolerance())


def leaf_tolerances(graph: Graph, precision: str) -> list[float]:
    """The derived tolerance of each leaf's gradient in floats of ``precision`` (raises
    ``OracleInconclusive``)."""
    return symbolic_tolerances(graph, precision=precision)[0]


def _linearity_tolerance(
    example: tuple[Graph, Graph, Any, Any], j: int, gf: Any, gg: Any, precision: str
) -> float:
    """How far ``d(a*f + b*g)/dx_j`` and ``a*df/dx_j + b*dg/dx_j`` may differ in floats: each
    engine gradient within its derived tolerance, plus the rounding of the combination itself."""
    f, g, a, b = example
    combined = linear_combination_graphs(example)[2]
    ca, cb = abs(float(a)), abs(float(b))
    tols = [leaf_tolerances(graph, precision)[j] for graph in (f, g, combined)]
    spread = ca * tols[0] + cb * tols[1] + tols[2]
    return spread + 4 * working_precision(precision)[0] * (ca * abs(float(gf)) + cb * abs(float(gg)))


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
    tolerances = functools.cache(lambda: leaf_tolerances(graph, eng.precision))
    for s, name in enumerate(graph.names()):
        a = (eng.data(canonical[s]), eng.grad(canonical[s]))
        b = (eng.data(other[s]), eng.grad(other[s]))
        if _exact(*a, *b):
            same = a == b
        elif s < n:
            same = a[0] == b[0] and agrees(a[1], b[1], lambda: 2 * tolerances()[s])  # noqa: B023
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
    tolerances = functools.cache(lambda: leaf_tolerances(graph, eng.precision))
    if not agrees(got_x, want_x, lambda: tolerances()[1]):
        raise PropertyViolated(f"chain sweep n={n}: dy/dx = {got_x!r}, want w**n = {want_x}")
    if not agrees(got_w, want_w, lambda: tolerances()[0]):
        raise PropertyViolated(f"chain sweep n={n}: dy/dw = {got_w!r}, want n*w**(n-1)*x = {want_w}")


def check_mlp(engine: Any, graph: Graph) -> None:
    """A small MLP's hinge loss: every parameter's gradient vs sympy (symbolic oracle)."""
    assert_grads_symbolic(graph, engine)


# ---------------------------------------------------------------------- the checks
def _floated(x: Any) -> Any:
    """An example of the exact properties on floats: every Fraction leaf or coefficient a float
    (nodes keep their constants: the engine took them when its ops were probed)."""
    if isinstance(x, Graph):
        return Graph(tuple(float(v) for v in x.leaves), x.nodes, x.output)
    if isinstance(x, Fraction):
        return float(x)
    if isinstance(x, tuple):
        return tuple(_floated(e) for e in x)
    return x


def _property_check(
    name: str, run: Run, strategy: Callable[[], st.SearchStrategy[Any]], prop: Callable[[Any, Any], None],
    graphs_of: Callable[[Any], list[Graph]],
) -> CheckOutcome:  # fmt: skip
    """A property of the old suite (linearity, build order, chain sweep) as a finding search:
    on Fractions for an engine that keeps them exact, else on floats (the property then
    judges with derived tolerances)."""
    eng = run.eng
    try:
        strat = strategy()
    except ValueError as exc:  # no graphs of the ops this engine has
        return outcome(name, [], judged=0, unit="examples", reason=str(exc))
    if not eng.exact:
        strat = strat.map(_floated)
    single = exact_trial(eng, None) if eng.exact else float_trial(eng, name, None)

    def trial(example: Any) -> list[Finding]:
        graphs = graphs_of(example)
        for g in graphs:
            try:
                run_graph(eng, g)
            except EngineRaised as raised:
                return [crash(eng, name, g, raised, None)]
        try:
            prop(eng, example)
        except OracleInconclusive as exc:  # no tolerance could be derived for these floats
            return [Finding("inconclusive", name, exc.reason)]
        except PropertyViolated as exc:
            for g in graphs:  # a wrong rule behind it? then that is the finding, with its op
                blamed = [f for f in single(g) if f.kind in DEFECT_KINDS]
                if blamed:
                    return [replace(f, check=name) for f in blamed]
            text = str(exc)
            how = "exact arithmetic" if eng.exact else "beyond the derived float tolerance"
            return [Finding("wrong_gradient", name, f"{text.splitlines()[0]} ({how})", None, text)]
        return []

    trials = Trials()
    search(trials, (name,), strat, trial, run.examples, run.seed, mode=run.mode)
    how = "exact arithmetic" if eng.exact else "floats, derived tolerances"
    return trials.outcome(name, "examples", f"{run.examples} examples, {how}")


def _chain(example: tuple[Any, Any, int]) -> list[Graph]:
    """The chain of check_chain_sweep as a graph."""
    return [chain_graph(*example)]


@check("linearity", order=20)
def check_linearity_of_gradients(run: Run) -> CheckOutcome:
    """The gradient of a linear combination of two graphs is that combination of theirs."""
    return _property_check(
        "linearity", run, lambda: gs.graph_pairs(run.eng), check_linearity, linear_combination_graphs
    )


@check("build_order", order=21)
def check_order_of_building(run: Run) -> CheckOutcome:
    """A graph's gradients do not depend on the order in which its nodes were built."""
    return _property_check(
        "build_order", run, lambda: gs.build_orders(run.eng), check_build_order, lambda ex: [ex[0]]
    )


@check("chain_sweep", order=22)
def check_chains(run: Run) -> CheckOutcome:
    """A long chain's gradient (the article's sweep): nothing counted twice, nothing lost."""
    return _property_check("chain_sweep", run, gs.chain_sweeps, check_chain_sweep, _chain)


@check("mlp", order=30)
def check_network(run: Run) -> CheckOutcome:
    """A small network's loss made of the ops the engine has: every parameter's gradient."""
    eng, trials = run.eng, Trials()
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]
    trial = float_trial(eng, "mlp", None)
    search(trials, ("mlp",), gs.mlp_graphs(eng), trial, max(1, run.examples // 4), run.seed, mode=run.mode)
    return trials.outcome(
        "mlp", "networks", f"hidden layers: {', '.join(nonlins) or 'linear (no tanh or relu)'}"
    )
