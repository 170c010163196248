"""What the checks share: running a graph on the engine, and saying where and how it failed.

:func:`run_graph` runs one :class:`~autograd.testing.graph.Graph` on the engine through the
boundary (its value and leaf gradients, or ``EngineRaised`` saying where); :func:`crash` makes
the finding of an engine that raised, cut down to the single node that raises on its own;
:func:`where` and :func:`num` write a graph and its numbers as a report reads them.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine
from autograd.testing.findings import Finding
from autograd.testing.graph import Graph, Node, OracleInconclusive
from autograd.testing.ops import sym_const

__all__ = [
    "as_number", "crash", "num", "numbers_source", "run_graph", "single_nodes", "sympy_gradient",
    "value_snippet", "where",
]  # fmt: skip


def as_number(stage: str, x: Any) -> Any:
    """The engine's number as a Python one (numpy's float64 is a float), else ``EngineRaised``.

    Only a type with ``__float__`` is a number: ``float("2.5")`` would read a string as one.
    """
    if isinstance(x, int | float | Fraction):
        return x
    try:
        if not hasattr(type(x), "__float__"):
            raise TypeError(type(x).__name__)
        return float(x)
    except (TypeError, ValueError) as exc:
        raise EngineRaised(stage, TypeError(f"the output's data is {x!r}, not a number")) from exc


def run_graph(eng: Engine, graph: Graph) -> tuple[Any, list[Any]]:
    """The engine's output value and leaf gradients; ``EngineRaised`` says where it raised."""
    values = graph.build(eng)
    out = as_number("forward", eng.data(values[graph.out]))
    eng.backward(values[graph.out])
    grads = [eng.grad(v) for v in values[: len(graph.leaves)]]
    return out, grads


def single_nodes(graph: Graph) -> list[tuple[str, Graph]]:
    """Each node of ``graph`` on its own: a one-node graph on the operand values it saw."""
    values = graph.evaluate()
    out = []
    for node in graph.nodes:
        slots = list(dict.fromkeys(node.args))
        leaves = [values[s] for s in slots]
        args = tuple(slots.index(a) for a in node.args)
        out.append((node.op, Graph(tuple(leaves), (Node(node.op, args, node.const),))))
    return out


def where(graph: Graph) -> str:
    """``expression at x0 = ..., x1 = ...``, or a short description of a big graph."""
    expr, point = graph.expression(), _point(graph)
    if len(expr) + len(point) > 160:
        return f"a graph of {len(graph.nodes)} nodes on {len(graph.leaves)} leaves (see the reproducer)"
    return f"{expr} at {point}"


def _point(graph: Graph) -> str:
    """The leaves the expression uses (a leaf no path joins to the output is left out)."""
    used = graph.reaching()
    return ", ".join(f"x{i} = {num(x)}" for i, x in enumerate(graph.leaves) if i in used)


def numbers_source(xs: Iterable[Any]) -> str:
    return "[" + ", ".join(num(x) for x in xs) + "]"


def num(x: Any) -> str:
    try:
        if isinstance(x, Fraction):
            return repr(x) if x.denominator != 1 else str(x.numerator)
        if isinstance(x, int):
            return repr(x)
    except ValueError:  # more digits than str() converts (sys.get_int_max_str_digits): 17 of them
        return str(mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 17))
    try:  # a float subclass (numpy's float64) too: a reproducer must run without the engine's types
        return repr(float(x))
    except (TypeError, ValueError):
        return repr(x)


def value_snippet(eng: Engine, graph: Graph, expected: str) -> str:
    """Like ``graph.snippet(eng, expected)`` but printing the output value instead of gradients."""
    lines = graph.snippet(eng, expected).splitlines()[:-2]
    lines.append(f"print('actual:  ', {graph.names()[graph.out]}.{eng.data_attr})")
    return "\n".join(lines)


def crash(eng: Engine, check: str, graph: Graph, raised: EngineRaised, op: str | None) -> Finding:
    """A crash, cut down to the single node that raises on its own when there is one (the cut
    needs the operands' values: when the float program cannot run either, the graph stays whole)."""
    try:
        singles = single_nodes(graph) if len(graph.nodes) > 1 else []
    except (OverflowError, ValueError, ZeroDivisionError):  # Python's float arithmetic raised
        singles = []
    for node_op, single in singles:
        try:
            run_graph(eng, single)
        except EngineRaised as again:
            graph, raised, op = single, again, node_op
            break
    if op is None and len(graph.nodes) == 1:
        op = graph.nodes[0].op
    expected = sympy_gradient(graph)
    return Finding(
        "crash",
        check,
        f"{raised.stage} of {where(graph)} raises {raised}",
        op,
        graph.snippet(eng, expected or repr("no exception")),
        f"{expected} (no exception)" if expected else "no exception",
        str(raised),
    )


def sympy_gradient(graph: Graph) -> str:
    """sympy's gradient at the graph's point as Python source (exact on rationals), or ''."""
    try:
        if graph.rational:
            symbols, _ = graph.sympy()
            point = {s: sym_const(x) for s, x in zip(symbols, graph.leaves, strict=True)}
            exact = [Fraction(str(d.xreplace(point))) for d in graph.sympy_gradient()]
            return numbers_source(exact)
        _, grads = graph.mp_value_and_gradient()
        return numbers_source(float(g) for g in grads)
    except (OracleInconclusive, ValueError, ZeroDivisionError):  # a pole: say only that it must not raise
        return ""
