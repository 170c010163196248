"""The compiler's checks, and the code-generation bugs they must catch.

``autograd.compile`` is right when the code it writes computes what the
interpreter computes: the same output and gradient (the same float bits, the
same number types, equal Fractions) and, where the interpreter raises, the same
error.  Each ``check_*`` below judges that on one family of functions for any
compiler module (the real ``autograd.compiler``, or a broken copy); it returns
nothing and raises ``AssertionError`` with the function, the point and both
outcomes when they differ.  ``tests/test_compile.py`` runs them on the real
compiler; ``test_codegen_zoo.py`` runs them on every broken copy in ``BUGS`` and
requires that some check fails.

A broken copy is the compiler's source with one checked text substitution (the
snippet must occur exactly once, so a refactor breaks the zoo loudly).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import autograd.compiler
from autograd import engine
from autograd.engine import Value, dot, grad, vsum
from autograd.testing import strategies as gs
from autograd.testing.engines import resolve_engine
from autograd.testing.graph import Graph
from autograd.testing.ops import OPS

COMPILER_SOURCE = Path(autograd.compiler.__file__).read_text(encoding="utf-8")


# ---------------------------------------------------------------------- comparing outcomes
def same(a: Any, b: Any) -> bool:
    """Equal and of the same type, floats bit for bit (-0.0 is not 0.0), lists item by item."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a.hex() == b.hex() or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def outcome(run: Callable[[], Any]) -> tuple[Any, ...]:
    """("ok", result) or ("raised", exception type, message)."""
    try:
        return ("ok", run())
    except (ArithmeticError, ValueError, TypeError) as exc:
        return ("raised", type(exc), str(exc))


def outcome_any(run: Callable[[], Any]) -> tuple[Any, ...]:
    """``outcome``, for code that may raise anything (the generated code alone)."""
    try:
        return ("ok", run())
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def same_outcome(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if a[0] != b[0]:
        return False
    return same(a[1], b[1]) if a[0] == "ok" else a[1:] == b[1:]


def interpreted(f: Callable[..., Any], point: Sequence[Any], gradient: bool = True) -> Any:
    """What the engine gives: f's output as numbers, and d(first output)/d(input)."""
    leaves = [Value(x) for x in point]
    result = f(*leaves)
    flat: list[Value] = []
    shape = _numbers(result, flat)
    return (shape, grad(flat[0], leaves)) if gradient else shape


def _numbers(result: Any, flat: list[Value]) -> Any:
    if isinstance(result, Value):
        flat.append(result)
        return result.data
    return type(result)(_numbers(r, flat) for r in result)


def assert_agrees(
    compiler: ModuleType, f: Callable[..., Any], trace_at: Sequence[Any], points: Sequence[Any]
) -> None:
    """Compile ``f`` at ``trace_at``; at each point, compiled == interpreted (value and gradient)."""
    compiled = compiler.compile(f, trace_at)
    for point in points:
        for gradient in (True, False):
            mine = outcome(lambda p=point, g=gradient: compiled(p) if g else compiled.value(p))
            theirs = outcome(lambda p=point, g=gradient: interpreted(f, p, g))
            replayed = outcome(lambda p=point, g=gradient: compiled.interpret(p, g))
            assert same_outcome(replayed, theirs), (f, point, replayed, theirs)
            generated: tuple[Any, ...] = ("ok", None)
            if all(type(x) in (int, float, Fraction) for x in point):
                # the generated code on its own (a call that falls back to the interpreter
                # would hide its mistakes): the interpreter's result, or some exception
                generated = outcome_any(lambda p=point, g=gradient: compiled.run_generated(p, g))
                both_raise = theirs[0] == generated[0] == "raised"
                generated = ("ok", None) if both_raise or same_outcome(generated, theirs) else generated
            assert generated == ("ok", None) and same_outcome(mine, theirs), (
                f"compiled {getattr(f, '__name__', f)} (traced at {list(trace_at)}) at {list(point)}"
                f"{'' if gradient else ', value only'}:\n  compiled:    {mine}\n  interpreter: {theirs}\n"
                f"  the generated code alone: {generated}\n"
                f"generated code:\n{compiled.source}"
            )


# ---------------------------------------------------------------------- hand-picked functions
def every_op(x: Value, y: Value, z: Value) -> Value:
    a = x * y + x / z - (-y)
    b = (a * a).tanh() + (x**2).sigmoid() + (z * z + 1).log() + (y * 0.5).exp()
    c = dot([x, a, x], [y, b, x], z) + vsum([a, b, a, x])
    return c.relu() + (z * z + 1) ** y + (z * z + 1) ** 0.5 + (b - a) ** -1


def reuse(x: Value, y: Value) -> Value:
    s = x + x  # one node, both operands the same
    p = s * s
    q = p / p + x * x * x
    return dot([s, s, y], [s, x, s], p) + vsum([q, q, s]) - y * y


def fan_out(x: Value, y: Value) -> Value:
    h = x * y
    branches = [h * x, h + y, h.tanh(), h * h, (h + 1).relu()]
    return vsum(branches) * h


def dead_relu_and_dot(x: Value, y: Value) -> Value:
    # behind an inactive relu the dot's gradient is 0: its rule passes nothing on, and the
    # operands' gradients stay the int 0 (a test of types, not values)
    inner = dot([x, y], [y, x], -10.0)
    return inner.relu() * 3 + y


def long_sum(*xs: Value) -> Value:
    return vsum(xs) + dot(list(xs), list(reversed(xs)), xs[0])  # longer than one chunk


def signed_zeros(x: Value, y: Value) -> Value:
    return x * y - y  # at y = -0.0 the first share to x is -0.0, which the engine adds to 0


def exact_constants(x: Value, y: Value) -> tuple[Value]:
    # a Fraction constant (bound by name in the code), an int base to a negative int power
    # (a Fraction), an int constant over an int input (a Fraction), a one-item tuple result
    return ((x * Fraction(1, 3) + y**-2 + 3 / y + x ** Fraction(3) - (x**0.5) * y) * 2,)


def output_is_input(x: Value, y: Value) -> Value:
    return x


def several_outputs(x: Value, y: Value) -> tuple[Value, list[Value]]:
    return x * y, [x + y, (x * y).exp(), y]


CASES: list[tuple[Callable[..., Any], list[Any], list[list[Any]]]] = [
    # (f, where it is traced, points it is called at: floats, ints, Fractions, and bad ones)
    (every_op, [0.5, -1.25, 2.0], [[0.5, -1.25, 2.0], [0.1, 0.3, -0.7], [Fraction(1, 3), Fraction(-2), 3]]),
    (every_op, [0.5, -1.25, 2.0], [[0.5, -1.25, 0.0], [1e300, 2.0, 1.0], [True, 1.0, 2.0], ["1", 1.0, 2.0]]),
    (reuse, [1.5, -0.5], [[1.5, -0.5], [0.0, 0.0], [3, 4], [Fraction(1, 3), Fraction(5, 7)], [1e200, 1.0]]),
    (fan_out, [0.7, -0.3], [[0.7, -0.3], [-2.0, -3.0], [2, -1], [Fraction(1, 2), Fraction(3)]]),
    (dead_relu_and_dot, [1.0, 2.0], [[1.0, 2.0], [4.0, 4.0], [-0.0, 0.0], [3, 3]]),
    (
        long_sum,
        [0.1 * i for i in range(150)],
        [[0.1 * i for i in range(150)], [(-1) ** i / 7 for i in range(150)]],
    ),
    (signed_zeros, [1.0, 2.0], [[1.0, -0.0], [-0.0, 0.0], [0, 0]]),
    (
        exact_constants,
        [1, 2],
        [[1, 2], [4, 3], [Fraction(1, 4), Fraction(5, 2)], [0.25, 2.5], [-1, 2], [1, 0]],
    ),
    (long_sum, [0.1 * i for i in range(300)], [[(-1) ** i / 3 for i in range(300)]]),  # 600 numbers checked
    (output_is_input, [1.0, 2.0], [[3.0, 4.0], [Fraction(1, 3), 2]]),
    (several_outputs, [1.0, 2.0], [[0.5, -1.5], [3, 4], [800.0, 1.0]]),
]


def check_cases(compiler: ModuleType) -> None:
    for f, trace_at, points in CASES:
        assert_agrees(compiler, f, trace_at, points)


def check_errors(compiler: ModuleType) -> None:
    """Where the interpreter raises, the compiled function raises the same, op and message."""
    cases: list[tuple[Callable[..., Any], list[Any], list[Any]]] = [
        (lambda x, y: x / y, [1.0, 2.0], [1.0, 0.0]),
        (lambda x, y: (x * y).log(), [1.0, 2.0], [1.0, 0.0]),
        (lambda x, y: (x * y).log(), [1.0, 2.0], [-1.0, 2.0]),
        (lambda x, y: (x * y).exp(), [1.0, 2.0], [1e3, 2.0]),
        (lambda x, y: x * y * y, [1.0, 2.0], [1e300, 1e10]),
        (lambda x, y: x**0.5 + y, [1.0, 2.0], [-4.0, 1.0]),
        (lambda x, y: x**0.5 + y, [1.0, 2.0], [0.0, 1.0]),
        (lambda x, y: x**-1 + y, [1.0, 2.0], [0.0, 1.0]),
        (lambda x, y: x**-1 + y, [1, 2], [0, 1]),
        (lambda x, y: x**y, [1.0, 2.0], [-1.0, 2.0]),
        (lambda x, y: x**y, [1.0, 2.0], [0.0, 2.0]),
        (lambda x, y: x**3 * y, [1.0, 2.0], [1e200, 1.0]),
        (lambda x, y: (x * y).log(), [1.0, 2.0], [1e-320, 1.0]),  # the gradient 1/x overflows
        (lambda x, y: (x**1.5) * y, [1.0, 2.0], [1e250, 1.0]),  # so does the pow rule's
        (lambda x, y: x + y, [1.0, 2.0], [True, 1.0]),
        (lambda x, y: x + y, [1.0, 2.0], [float("nan"), 1.0]),
    ]
    for f, trace_at, point in cases:
        assert_agrees(compiler, f, trace_at, [point])


def check_higher_order(compiler: ModuleType) -> None:
    """A Hessian, an hvp and a Newton step, each taken inside the compiled function."""

    def loss(x: Value, y: Value) -> Value:
        return (1 - x) ** 2 + 100 * (y - x * x) ** 2 + (x * y).tanh()

    def hessian(x: Value, y: Value) -> list[list[Value]]:
        g = grad(loss(x, y), [x, y], create_graph=True)
        return [grad(gi, [x, y], create_graph=True) for gi in g]

    def hvp(x: Value, y: Value, u: Value, w: Value) -> Value:
        gx, gy = grad(loss(x, y), [x, y], create_graph=True)
        hx, hy = grad(gx * u + gy * w, [x, y], create_graph=True)
        return hx * u + hy * w  # a number, so that the compiled function has a gradient too

    def newton_step(x: Value, y: Value) -> list[Value]:
        gx, gy = grad(loss(x, y), [x, y], create_graph=True)
        (a, b), (c, d) = (grad(g, [x, y], create_graph=True) for g in (gx, gy))
        det = a * d - b * c
        return [x - (d * gx - b * gy) / det, y - (a * gy - c * gx) / det]

    assert_agrees(compiler, hessian, [-1.2, 1.0], [[-1.2, 1.0], [0.5, 0.25], [Fraction(1, 3), 2]])
    assert_agrees(compiler, hvp, [-1.2, 1.0, 0.5, 2.0], [[-1.2, 1.0, 0.5, 2.0], [Fraction(1, 2), 3, 1, -1]])
    assert_agrees(compiler, newton_step, [-1.2, 1.0], [[-1.2, 1.0], [0.9, 0.8]])


# ---------------------------------------------------------------------- random graphs
_ENGINE = resolve_engine(None)


def graph_function(graph: Graph) -> Callable[..., Value]:
    """The graph as a function of its leaves, built with the engine's ops (``Graph.build``'s loop)."""

    def f(*xs: Value) -> Value:
        values = list(xs)
        for node in graph.nodes:
            fn, args = _ENGINE.call_of(OPS[node.op], [values[a] for a in node.args], node.const)
            values.append(fn(*args))  # the engine's own op: its errors are the engine's, as traced
        return values[graph.out]

    f.__name__ = f"graph {graph.code()}"
    return f


def _chosen(max_examples: int | None, shrink: bool) -> dict[str, Any]:
    """Settings of a check's search: the profile's, but for ``max_examples`` and, for the zoo (which
    asks only whether a check fails), no shrinking: shrinking its counterexamples took 36 of a codegen
    bug's 37 s, and about 100 s of the zoo's 110 s at the ci profile."""
    chosen: dict[str, Any] = {"max_examples": max_examples} if max_examples else {}
    if not shrink:
        chosen["phases"] = [phase for phase in settings().phases if phase is not Phase.shrink]
    return chosen


def check_random_graphs(compiler: ModuleType, max_examples: int | None = None, shrink: bool = True) -> None:
    """Random DAGs with fan-out and reuse: compiled == interpreted at the trace point and elsewhere,
    bit for bit on float graphs, exactly on rational ones (and equal to sympy's exact gradient)."""
    chosen = _chosen(max_examples, shrink)

    @settings(deadline=None, report_multiple_bugs=False, **chosen)
    @given(st.one_of(gs.graphs(), gs.graphs(exact=True)), st.data())
    def run(graph: Graph, data: Any) -> None:
        f = graph_function(graph)
        leaf = gs.rational_leaves if graph.rational else gs.float_leaves
        elsewhere = data.draw(st.lists(leaf, min_size=len(graph.leaves), max_size=len(graph.leaves)))
        assert_agrees(compiler, f, graph.leaves, [graph.leaves, elsewhere])
        if graph.rational:  # sympy's derivative, evaluated exactly
            ref = graph.reference()
            value, gradient = compiler.compile(f, graph.leaves)(graph.leaves)
            assert value == ref.value and list(gradient) == list(ref.gradient), (value, gradient, ref)

    run()


# ---------------------------------------------------------------------- a compiled function as an engine
def compiled_engine(compiler: ModuleType) -> Any:
    """An engine for ``autograd.testing`` whose ``backward()`` runs compiled code.

    Its Values wrap the engine's (the ops build the engine's graph); ``backward()`` compiles
    the graph below the output as a function of its leaves (the engine's ops replayed in
    topological order) with ``compiler.compile``, runs it at the leaves' numbers and sets the
    leaves' gradients (and the output's number) from it.  So every check of the harness
    (sympy exactly, sympy at 50 digits, central differences, the forward value) judges the
    compiled code as it judges an engine.
    """
    from autograd.testing.engines import Engine

    def unwrap(x: Any) -> Any:
        return x._v if isinstance(x, CompiledValue) else x

    def wrapping(op: Callable[..., Value]) -> Callable[..., CompiledValue]:
        return lambda *args: CompiledValue._wrap(op(*map(unwrap, args)))

    class CompiledValue:
        __slots__ = ("_compiled", "_v", "grad")

        def __init__(self, x: Any) -> None:
            self._v = x if isinstance(x, Value) else Value(x)
            self.grad: Any = 0
            self._compiled: Any = None

        @classmethod
        def _wrap(cls, v: Value) -> CompiledValue:
            return cls(v)

        def _compile(self) -> tuple[Any, list[CompiledValue]]:
            """The graph below this Value compiled as a function of the harness's leaves under it."""
            if self._compiled is None:
                root = self._v
                reachable = {id(n) for n in engine._reachable(root)}
                leaves = [w for w in made_leaves if id(w._v) in reachable]
                order = compiler._backward_order(root) if root._back is not None else []

                def f(*xs: Value) -> Value:
                    made = {id(leaf._v): x for leaf, x in zip(leaves, xs, strict=True)}
                    for node in order:
                        operands = [made.get(id(c), c) for c in engine._operands(node._a, node._b)]
                        made[id(node)] = compiler._REPLAY[node._back](operands)
                    return made.get(id(root), root)

                self._compiled = (compiler.compile(f, [leaf._v.data for leaf in leaves]), leaves)
            return self._compiled  # type: ignore[no-any-return]

        @property
        def data(self) -> Any:
            if self._v._back is None:
                return self._v.data
            compiled, leaves = self._compile()
            return compiled.run_generated([leaf._v.data for leaf in leaves], False)

        def backward(self) -> None:
            compiled, leaves = self._compile()
            _, grads = compiled.run_generated([leaf._v.data for leaf in leaves])
            for leaf, g in zip(leaves, grads, strict=True):
                leaf.grad = leaf.grad + g

        __add__ = wrapping(lambda a, b: a + b)
        __radd__ = wrapping(lambda a, b: b + a)
        __sub__ = wrapping(lambda a, b: a - b)
        __rsub__ = wrapping(lambda a, b: b - a)
        __mul__ = wrapping(lambda a, b: a * b)
        __rmul__ = wrapping(lambda a, b: b * a)
        __truediv__ = wrapping(lambda a, b: a / b)
        __rtruediv__ = wrapping(lambda a, b: b / a)
        __pow__ = wrapping(lambda a, b: a**b)
        __rpow__ = wrapping(lambda a, b: b**a)
        __neg__ = wrapping(lambda a: -a)
        exp = wrapping(Value.exp)
        log = wrapping(Value.log)
        tanh = wrapping(Value.tanh)
        relu = wrapping(Value.relu)
        sigmoid = wrapping(Value.sigmoid)

    made_leaves: list[CompiledValue] = []

    class Leaf(CompiledValue):
        """A leaf made by the harness (``engine.make``): its gradient is reported."""

        __slots__ = ()

        def __init__(self, x: Any) -> None:
            super().__init__(x)
            made_leaves.append(self)

    return Engine(
        Leaf,
        vsum=lambda terms: CompiledValue._wrap(vsum(map(unwrap, terms))),
        dot=lambda ws, xs, start=0: CompiledValue._wrap(
            dot(list(map(unwrap, ws)), list(map(unwrap, xs)), unwrap(start))
        ),
        name="regressions.codegen_zoo",
        class_name="CompiledValue",
    )


# ---------------------------------------------------------------------- the bugs
@dataclass(frozen=True)
class Bug:
    name: str
    what: str
    edits: tuple[tuple[str, str], ...]


BUGS = {
    bug.name: bug
    for bug in (
        Bug(
            "wrong operand",
            "mul's rule emitted with the wrong operand: a's share is g * a instead of g * b",
            (('e.give(a, f"{g} * {e.val(b)}")', 'e.give(a, f"{g} * {e.val(a)}")'),),
        ),
        Bug(
            "reused node's shares emitted once",
            "a node used twice by one op (x * x, s + s) gets one share instead of two",
            (
                (
                    "        lines += _first_shares(_CODE[node._back][1](e, node, g), assigned)",
                    "        lines += _first_shares(list(dict.fromkeys(_CODE[node._back][1](e, node, g))), "
                    "assigned)",
                ),
            ),
        ),
        Bug(
            "backward in forward order",
            "the backward pass fires the rules in topological order instead of its reverse",
            (
                (
                    "    for node in reversed(order):\n        g = e.grads[id(node)]",
                    "    for node in order:\n        g = e.grads[id(node)]",
                ),
            ),
        ),
        Bug(
            "backward in reversed creation order",
            "the backward pass fires the rules in reversed creation order (a valid order, not the engine's)",
            (
                (
                    "    order = [n for n in _backward_order(root) if id(n) in program.created_ids]",
                    "    order = [n for n in program.ops if n is root or id(n) in "
                    "{id(m) for m in _backward_order(root)}]",
                ),
            ),
        ),
        Bug(
            "dot adds its start last",
            "dot's sum written w0*x0 + ... + start (the same sum, other float rounding)",
            (
                (
                    "    return _sum_lines(out, e.val(prev[-1]), terms)",
                    "    return _sum_lines(out, terms[0], [*terms[1:], e.val(prev[-1])]) "
                    "if terms else [f'{out} = 0']",
                ),
            ),
        ),
        Bug(
            "dot's zero-gradient skip dropped",
            "dot's rule passes shares of a zero gradient on (the engine's returns at once)",
            (('    lines = [f"if {g}:"]', '    lines = ["if True:"]'),),
        ),
        Bug(
            "no finiteness check",
            "the generated code never checks for overflow: it returns inf where the engine raises",
            (("    if not values:\n        return []", "    if True:\n        return []"),),
        ),
        Bug(
            "gradients start at 0.0",
            "a gradient first reached inside a branch starts at the float 0.0, not the int 0",
            (
                (
                    '                    out.append(f"{m[1]} = 0")',
                    '                    out.append(f"{m[1]} = 0.0")',
                ),
            ),
        ),
        Bug(
            "first share not added to 0",
            "a gradient's first share is assigned as it is, so a -0.0 share stays -0.0 (0 + -0.0 is 0.0)",
            (
                (
                    '            out += [f"{m[1]} = {share}", f"if not {m[1]}: {m[1]} = 0 + {m[1]}"]',
                    '            out += [f"{m[1]} = {share}"]',
                ),
            ),
        ),
    )
}


def substitute(source: str, old: str, new: str) -> str:
    count = source.count(old)
    if count != 1:
        raise AssertionError(
            f"codegen zoo: expected exactly one {old!r} in autograd/compiler.py, found {count}"
        )
    return source.replace(old, new)


def variant(bug: Bug) -> ModuleType:
    """A fresh copy of the compiler with the bug's edits."""
    source = COMPILER_SOURCE
    for old, new in bug.edits:
        source = substitute(source, old, new)
    module = ModuleType(f"codegen_zoo_{bug.name.replace(' ', '_')}")
    module.__file__ = f"<codegen zoo: {bug.name}>"
    sys.modules[module.__name__] = module  # (dataclasses look their module up there)
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    finally:
        del sys.modules[module.__name__]
    return module


def check_harness_exact(compiler: ModuleType, max_examples: int | None = None, shrink: bool = True) -> None:
    """The harness's exact oracle (sympy, zero tolerance) on the compiled code, as on an engine."""
    from autograd.testing import checks

    eng = compiled_engine(compiler)
    chosen = _chosen(max_examples, shrink)

    @settings(deadline=None, report_multiple_bugs=False, **chosen)
    @given(gs.graphs(eng, exact=True))
    def run(graph: Graph) -> None:
        checks.check_exact(eng, graph)

    run()


CHECKS: dict[str, Callable[[ModuleType], None]] = {
    "cases": check_cases,
    "errors": check_errors,
    "higher order": check_higher_order,
    "random graphs": lambda compiler: check_random_graphs(compiler, max_examples=30, shrink=False),
    "harness, exact oracle": lambda compiler: check_harness_exact(compiler, max_examples=30, shrink=False),
}


def failures(compiler: ModuleType) -> dict[str, str]:
    """check name -> the first lines of its failure, for every check that fails on ``compiler``."""
    failed = {}
    for name, check in CHECKS.items():
        try:
            check(compiler)
        except AssertionError as exc:
            failed[name] = str(exc).splitlines()[0] if str(exc) else "AssertionError"
    return failed


__all__ = ["BUGS", "CHECKS", "dot", "engine", "failures", "variant", "vsum"]
