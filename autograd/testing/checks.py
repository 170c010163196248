"""The harness's properties, each a pure function ``check_*(engine, example)``.

``properties/`` runs them on our engine with hypothesis; :func:`verify_engine`
runs them on any engine, deterministically, and reports which fail.  Each
property builds fresh Values and touches nothing global, so checks do not
affect one another.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from autograd.testing import strategies as gs
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.graph import Graph, Node
from autograd.testing.ops import OPS
from autograd.testing.oracles import (
    assert_grads_exact,
    assert_grads_fd,
    assert_grads_symbolic,
    symbolic_tolerances,
)

__all__ = [
    "CHECKS",
    "CheckResult",
    "check_backward_twice",
    "check_build_order",
    "check_chain_sweep",
    "check_exact",
    "check_fd",
    "check_forward",
    "check_linearity",
    "check_mlp",
    "mlp_loss_graph",
    "run_stateful",
    "stateful_machine",
    "verify_engine",
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
    out = graph.build(engine)[graph.out].data
    if graph.rational:
        symbols, expr = graph.sympy()
        want = expr.xreplace(
            {s: sympy.Rational(Fraction(x)) for s, x in zip(symbols, graph.leaves, strict=True)}
        )
        assert out == Fraction(int(want.p), int(want.q)), (
            f"forward: engine computes {out!r}, sympy {want} for {expr}\n{graph.snippet()}"
        )
        return
    want, _ = graph.mp_value_and_gradient()
    _, tol = symbolic_tolerances(graph)
    err = abs(want - out)
    assert err <= tol, (
        f"forward: engine computes {out!r}, sympy/mpmath {want}, error {float(err):.3g} > tolerance {tol:.3g}"
        f" for {graph.sympy()[1]}\n{graph.snippet()}"
    )


def _grads(values: Sequence[Any]) -> list[Any]:
    return [v.grad for v in values]


def check_backward_twice(engine: Any, graph: Graph) -> None:
    """A second backward() doubles every leaf gradient exactly and leaves interior ones unchanged."""
    values = graph.build(engine)
    n = len(graph.leaves)
    out = values[graph.out]
    out.backward()
    first = _grads(values)
    out.backward()
    second = _grads(values)
    for name, a, b in zip(graph.names()[:n], first[:n], second[:n], strict=True):
        assert b == 2 * a, (
            f"backward twice: leaf {name} has grad {b!r} after two passes, {a!r} after one\n{graph!r}"
        )
    for name, a, b in zip(graph.names()[n:], first[n:], second[n:], strict=True):
        assert a == b, f"backward twice: interior {name} grad changed from {a!r} to {b!r}\n{graph!r}"


def check_linearity(engine: Any, example: tuple[Graph, Graph, Fraction, Fraction]) -> None:
    """grad(a*f + b*g) == a*grad(f) + b*grad(g), exactly, on rational graphs over the same leaves."""
    f, g, a, b = example
    eng = resolve_engine(engine)
    leaves = [eng.Value(x) for x in f.leaves]  # shared by both graphs
    fv, gv = _on_leaves(f, eng, leaves), _on_leaves(g, eng, leaves)
    (a * fv + b * gv).backward()
    combined = _grads(leaves)
    alone_f = f.build(eng)
    alone_f[f.out].backward()
    alone_g = g.build(eng)
    alone_g[g.out].backward()
    n = len(f.leaves)
    for j in range(n):
        want = a * alone_f[j].grad + b * alone_g[j].grad
        assert combined[j] == want, (
            f"linearity: d({a}*f + {b}*g)/dx{j} = {combined[j]!r}, "
            f"but {a}*df/dx{j} + {b}*dg/dx{j} = {want!r}\n"
            f"f:\n{f!r}\ng:\n{g!r}"
        )


def _on_leaves(graph: Graph, eng: Engine, leaves: list[Any]) -> Any:
    values = list(leaves)
    for node in graph.nodes:
        values.append(OPS[node.op].apply(eng, [values[a] for a in node.args], node.const))
    return values[graph.out]


def check_build_order(engine: Any, example: tuple[Graph, tuple[int, ...]]) -> None:
    """Creating the same graph's slots in another valid order changes no value and no gradient."""
    graph, order = example
    eng = resolve_engine(engine)
    canonical = graph.build(eng)
    canonical[graph.out].backward()
    n = len(graph.leaves)
    other: dict[int, Any] = {}
    for s in order:
        if s < n:
            other[s] = eng.Value(graph.leaves[s])
        else:
            node = graph.nodes[s - n]
            other[s] = OPS[node.op].apply(eng, [other[a] for a in node.args], node.const)
    other[graph.out].backward()
    for s, name in enumerate(graph.names()):
        a, b = canonical[s], other[s]
        assert (a.data, a.grad) == (b.data, b.grad), (
            f"build order: {name} is (data, grad) = {(a.data, a.grad)!r} built in slot order "
            f"but {(b.data, b.grad)!r} built in the order {order}\n{graph!r}"
        )


def check_chain_sweep(engine: Any, example: tuple[Fraction, Fraction, int]) -> None:
    """y = w * (w * (... (w * x))), n times: dy/dx == w**n and dy/dw == n * w**(n-1) * x exactly."""
    w, x, n = example
    nodes = [Node("mul", (0, 1))] + [Node("mul", (0, 2 + i)) for i in range(n - 1)]
    graph = Graph((w, x), tuple(nodes))
    values = graph.build(engine)
    values[graph.out].backward()
    want_x, want_w = w**n, n * w ** (n - 1) * x
    assert values[1].grad == want_x, f"chain sweep n={n}: dy/dx = {values[1].grad!r}, want w**n = {want_x}"
    assert values[0].grad == want_w, (
        f"chain sweep n={n}: dy/dw = {values[0].grad!r}, want n*w**(n-1)*x = {want_w}"
    )


def check_mlp(engine: Any, graph: Graph) -> None:
    """A small MLP's hinge loss: every parameter's gradient vs sympy (symbolic oracle)."""
    assert_grads_symbolic(graph, engine)


def mlp_loss_graph(
    layers: Sequence[Sequence[tuple[Sequence[float], float]]],
    xs: Sequence[Sequence[float]],
    ys: Sequence[float],
    nonlin: str = "tanh",
    *,
    engine: Any = None,
) -> Graph:
    """The mean hinge loss ``mean(relu(1 - y * mlp(x)))`` of an MLP as a Graph.

    ``layers[l][i] = (weights, bias)`` of neuron i of layer l; hidden layers use
    ``nonlin``, the last is linear (as :class:`autograd.nn.MLP`).  Leaves are the
    parameters in ``MLP.parameters()`` order, then the inputs, then the labels.
    Neurons use ``dot`` and the loss ``vsum`` when the engine has them, else
    chains of ``mul``/``add``.
    """
    eng = resolve_engine(engine)
    has_dot, has_vsum = OPS["dot"].supported_by(eng), OPS["vsum"].supported_by(eng)
    leaves: list[Any] = []
    params: list[list[tuple[list[int], int]]] = []
    for layer in layers:
        params.append([])
        for ws, b in layer:
            params[-1].append((list(range(len(leaves), len(leaves) + len(ws))), len(leaves) + len(ws)))
            leaves += [*ws, b]
    nodes: list[Node] = []

    def add(op: str, args: Sequence[int], const: Any = None) -> int:
        nodes.append(Node(op, tuple(args), const))
        return len(leaves) + len(nodes) - 1

    losses = []
    for x, y in zip(xs, ys, strict=True):
        act = list(range(len(leaves), len(leaves) + len(x)))
        leaves += list(x)
        y_slot = len(leaves)
        leaves.append(y)
        losses.append((act, y_slot))
    # node slots start after ALL leaves, so the nodes are built only now
    out_losses = []
    for act, y_slot in losses:
        for li, layer in enumerate(params):
            last = li == len(params) - 1
            new = []
            for w_slots, b_slot in layer:
                if has_dot:
                    s = add("dot", [*w_slots, *act, b_slot])
                else:
                    s = b_slot
                    for w, a in zip(w_slots, act, strict=True):
                        s = add("add", [s, add("mul", [w, a])])
                if not last and nonlin != "linear":
                    s = add(nonlin, [s])
                new.append(s)
            act = new
        margin = add("mul", [y_slot, act[0]])
        out_losses.append(add("relu", [add("rsub", [margin], 1)]))
    if has_vsum:
        total = add("vsum", out_losses)
    else:
        total = out_losses[0]
        for s in out_losses[1:]:
            total = add("add", [total, s])
    add("mulc", [total], Fraction(1, len(out_losses)))
    return Graph(tuple(leaves), tuple(nodes))


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


def stateful_machine(engine: Any = None) -> type[RuleBasedStateMachine]:
    """A state machine interleaving building, backward() from any node and zeroing leaves.

    The model is independent of the engine: every node is a sympy expression of
    the leaf symbols, and after ``backward()`` from ``y`` the model sets each
    reachable interior node's gradient to sympy's exact d(y)/d(node) and adds
    d(y)/d(leaf) to each reachable leaf (leaves accumulate; ``y`` a leaf gets 1).
    After every step every gradient must equal the model's exactly.
    """
    eng = resolve_engine(engine)

    class GradientMachine(RuleBasedStateMachine):
        def __init__(self) -> None:
            super().__init__()
            self.values: list[Any] = []  # engine Values
            self.args: list[tuple[int, ...] | None] = []  # None for a leaf
            self.ops: list[tuple[str, Any]] = []
            self.leaf_point: dict[sympy.Symbol, sympy.Rational] = {}
            self.symbols: list[sympy.Symbol | None] = []
            self.model: list[Fraction] = []

        # ---- model helpers (sympy only)
        def _expr(self, k: int, cut: int | None = None, cut_symbol: Any = None) -> Any:
            memo: dict[int, Any] = {}
            for i in range(k + 1):
                args = self.args[i]
                if i == cut:
                    memo[i] = cut_symbol
                elif args is None:
                    memo[i] = self.symbols[i]
                else:
                    op, c = self.ops[i]
                    memo[i] = OPS[op].sym([memo[a] for a in args], c)
            return memo[k]

        def _exact(self, expr: Any) -> Fraction:
            r = sympy.Rational(expr.xreplace(self.leaf_point))  # exact: rational ops at a rational point
            return Fraction(int(r.p), int(r.q))

        def _value(self, k: int) -> Fraction:
            return self._exact(self._expr(k))

        def _reachable(self, y: int) -> set[int]:
            seen, stack = {y}, [y]
            while stack:
                for a in self.args[stack.pop()] or ():
                    if a not in seen:
                        seen.add(a)
                        stack.append(a)
            return seen

        # ---- rules
        @initialize(value=gs.rational_leaves)
        def first_leaf(self, value: Fraction) -> None:
            self.leaf(value)  # so that every rule is enabled from the first step

        @rule(value=gs.rational_leaves)
        def leaf(self, value: Fraction) -> None:
            s = sympy.Symbol(f"x{len(self.values)}", real=True)
            self.leaf_point[s] = sympy.Rational(value.numerator, value.denominator)
            self.symbols.append(s)
            self.values.append(eng.Value(value))
            self.args.append(None)
            self.ops.append(("", None))
            self.model.append(Fraction(0))

        def _add(self, op: str, c: Any, args: tuple[int, ...]) -> None:
            self.values.append(OPS[op].apply(eng, [self.values[a] for a in args], c))
            self.args.append(args)
            self.ops.append((op, c))
            self.symbols.append(None)
            self.model.append(Fraction(0))

        def _valid(self, op: str, c: Any, args: tuple[int, ...]) -> bool:
            vals = [self._value(a) for a in args]
            if not OPS[op].domain([float(v) for v in vals], c) or (op == "div" and vals[1] == 0):
                return False
            return bool(abs(OPS[op].num(vals, c)) <= 1000)

        @rule(data=st.data(), op=st.sampled_from(RATIONAL_BINARY))
        def binary(self, data: Any, op: str) -> None:
            n = len(self.values)
            a, b = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
            # outside the domain (b == 0 for div, relu at its kink): fall back to neg, valid everywhere
            if self._valid(op, None, (a, b)):
                self._add(op, None, (a, b))
            else:
                self._add("neg", None, (a,))

        @rule(data=st.data(), op=st.sampled_from(RATIONAL_UNARY))
        def unary(self, data: Any, op: tuple[str, Any]) -> None:
            a = data.draw(st.integers(0, len(self.values) - 1))
            name, c = op
            if self._valid(name, c, (a,)) and not (name == "relu" and self._value(a) == 0):
                self._add(name, c, (a,))
            else:
                self._add("neg", None, (a,))

        @rule(data=st.data())
        def backward(self, data: Any) -> None:
            y = data.draw(st.integers(0, len(self.values) - 1))
            self.values[y].backward()
            if self.args[y] is None:
                self.model[y] += 1
                return
            out = self._expr(y)
            for k in self._reachable(y):
                if self.args[k] is None:
                    self.model[k] += self._exact(sympy.diff(out, self.symbols[k]))
                else:
                    s = sympy.Dummy("node")
                    d = sympy.diff(self._expr(y, cut=k, cut_symbol=s), s)
                    self.model[k] = self._exact(d.xreplace({s: sympy.Rational(self._value(k))}))

        @rule(data=st.data())
        def zero_grad(self, data: Any) -> None:
            leaves = [i for i, a in enumerate(self.args) if a is None]
            k = data.draw(st.sampled_from(leaves))
            self.values[k].grad = 0
            self.model[k] = Fraction(0)

        @invariant()
        def gradients_match_model(self) -> None:
            for k, (v, want) in enumerate(zip(self.values, self.model, strict=True)):
                assert v.grad == want, (
                    f"stateful: node {k} ({self.ops[k][0] or 'leaf'}) has grad {v.grad!r}, model says {want}"
                )

    return GradientMachine


def run_stateful(engine: Any, example: None = None, *, max_examples: int = 30, phases: Any = None) -> None:
    """Run the state machine deterministically against the engine (raises on a failure)."""
    run_state_machine_as_test(
        stateful_machine(engine),
        settings=settings(
            max_examples=max_examples, stateful_step_count=15, derandomize=True, database=None, deadline=None,
            **({"phases": phases} if phases is not None else {}),
        ),
    )  # fmt: skip


# ---------------------------------------------------------------------- verify_engine
@dataclass(frozen=True)
class CheckResult:
    name: str
    passed: bool
    message: str = ""

    def __str__(self) -> str:
        return f"{self.name}: {'passed' if self.passed else 'FAILED'}" + (
            "" if self.passed else f"\n{self.message}"
        )


_PROPERTIES: dict[str, tuple[Callable[[Any, Any], None], Callable[[Engine], st.SearchStrategy[Any]]]] = {
    "exact": (check_exact, lambda e: gs.graphs(e, exact=True)),
    "symbolic": (check_symbolic, lambda e: gs.graphs(e)),
    "fd": (check_fd, lambda e: gs.graphs(e)),
    "forward": (check_forward, lambda e: st.one_of(gs.graphs(e, exact=True), gs.graphs(e))),
    "backward_twice": (check_backward_twice, lambda e: gs.graphs(e, exact=True)),
    "linearity": (check_linearity, lambda e: gs.graph_pairs(e)),
    "build_order": (check_build_order, lambda e: gs.build_orders(e)),
    "chain_sweep": (check_chain_sweep, lambda e: gs.chain_sweeps()),
    "mlp": (check_mlp, lambda e: gs.mlp_graphs(e)),
}

#: The names of the checks :func:`verify_engine` runs, in order.
CHECKS: tuple[str, ...] = (*_PROPERTIES, "stateful")


def verify_engine(
    engine: Any = None, *, checks: Sequence[str] | None = None, max_examples: int = 30, shrink: bool = False
) -> dict[str, CheckResult]:
    """Run each check against ``engine`` deterministically; ``{name: CheckResult}``.

    Examples are derandomized and no example database is used, so the same
    engine always gets the same verdict.  ``shrink=True`` also minimises a
    failing example (slower, but the message then shows a minimal graph).
    """
    eng = resolve_engine(engine)
    unknown = set(checks or ()) - set(CHECKS)
    if unknown:
        raise ValueError(f"verify_engine: unknown checks {sorted(unknown)}; known: {CHECKS}")
    phases = list(Phase) if shrink else [Phase.explicit, Phase.generate]
    results = {}
    for name in checks or CHECKS:
        try:
            if name == "stateful":
                run_stateful(eng, max_examples=max_examples, phases=phases)
            else:
                _run_property(name, eng, max_examples, phases)
        except Exception as exc:  # any failure, assertion or crash, fails the check
            results[name] = CheckResult(name, False, _describe(exc))
        else:
            results[name] = CheckResult(name, True)
    return results


def _describe(exc: BaseException) -> str:
    """The exception, hypothesis's notes (the falsifying example), and each of a group's members."""
    notes = "\n".join(getattr(exc, "__notes__", []))
    text = f"{type(exc).__name__}: {exc}\n{notes}".strip()
    for i, sub in enumerate(getattr(exc, "exceptions", ()), 1):
        text += f"\n--- failure {i}:\n{_describe(sub)}"
    return text


def _run_property(name: str, eng: Engine, max_examples: int, phases: list[Phase]) -> None:
    prop, strategy = _PROPERTIES[name]

    @settings(max_examples=max_examples, derandomize=True, database=None, deadline=None, phases=phases)
    @given(strategy(eng))
    def run(example: Any) -> None:
        prop(eng, example)

    run()
