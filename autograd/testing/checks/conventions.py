"""What a ``backward()`` pass does to gradients already there: a convention, not a defect.

Engines differ: a second pass adds to leaf gradients or replaces them, interior gradients
accumulate or hold the latest pass, the output's seed is set or added to, a value that enters a
new operation keeps its gradient or has it cleared.
:class:`BackwardConvention` names one; :func:`model_backward` computes, exactly, what a pass does
under it (the model of the state machine, :mod:`autograd.testing.checks.machine`);
:func:`backward_convention` observes which one an engine follows on a tiny graph, and
:func:`convention_reproducer` writes that observation as a program.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.ops import OPS, by_op_name
from autograd.testing.oracles.reference import certify
from autograd.testing.reproducers import program

__all__ = [
    "OUR_CONVENTION", "BackwardConvention", "backward_convention", "convention_gradients",
    "convention_reproducer", "model_backward", "model_new_operation", "reachable",
]  # fmt: skip


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
    * ``operands``: a value that enters a new operation keeps its gradient (``keep``: ours,
      PyTorch) or has it cleared (``clear``: MyGrad documents that a tensor involved in a new
      operation has its gradient nulled).
    * ``graph``: the graph a pass went through is ``kept`` for later passes, or ``freed`` (MyGrad
      clears it; PyTorch without ``retain_graph`` refuses a second pass): a later pass over any
      node of it is not a program anyone may write, so the state machine makes passes only from
      graphs built after it (what the interior gradients and the seed do then is never seen).
    """

    leaves: str = "accumulate"
    interior: str = "reset"
    seed: str = "assign"
    leaf_output: str = "accumulate"
    operands: str = "keep"
    graph: str = "kept"

    def describe(self) -> list[str]:
        """The convention in words, one fact a line (what a freed graph never shows is left out)."""
        across = "interior gradients accumulate across backward() calls"
        interior = {
            "accumulate": f"{across} (a stale one flows on into the next pass)",
            "retain": f"{across}, but only the latest pass flows on",
        }.get(self.interior, "interior gradients hold the latest backward() pass only")
        seed = "backward() " + (
            "sets the output gradient to 1" if self.seed == "assign" else "adds 1 to the output gradient"
        )
        leaves = (
            f"a second backward() {'adds to' if self.leaves == 'accumulate' else 'replaces'} leaf gradients"
        )
        # a freed graph whose operands are cleared: every pass reaches leaves holding no gradient
        unseen = self.graph == "freed" and self.operands == "clear"
        return [
            *([] if unseen else [leaves]),
            *([] if self.graph == "freed" else [interior, seed]),
            "backward() on a leaf "
            + ("adds 1 to" if self.leaf_output == "accumulate" else "sets to 1")
            + " its gradient",
            *self.beyond_passes(),
        ]

    def beyond_passes(self) -> list[str]:
        """The facts of :meth:`describe` beyond what passes do to gradients already there (the
        conventions probe's subject): a graph freed by a pass, operands' gradients cleared."""
        freed = "backward() frees the graph it went through (no later pass over any of it is made)"
        cleared = "a value that enters a new operation has its gradient cleared"
        return [*([freed] if self.graph == "freed" else []), *([cleared] if self.operands == "clear" else [])]


#: Ours (see autograd/engine.py's docstring).
OUR_CONVENTION = BackwardConvention()
_CONVENTIONS = (
    [
        BackwardConvention(leaves, interior, seed, leaf_output, operands)
        for operands in ("keep", "clear")
        for leaves in ("accumulate", "reset")
        for interior in ("reset", "accumulate")
        for seed in ("assign", "accumulate")
        for leaf_output in ("accumulate", "assign")
    ]
    + [  # after the others, so that an engine matching one of them is still described by it
        BackwardConvention(leaves, "retain", seed, leaf_output, operands)
        for operands in ("keep", "clear")
        for leaves in ("accumulate", "reset")
        for seed in ("accumulate", "assign")
        for leaf_output in ("accumulate", "assign")
    ]
    + [  # a freed graph: interior gradients and the seed are never seen again, so held at one choice
        BackwardConvention(leaves, "reset", "assign", leaf_output, operands, "freed")
        for operands in ("keep", "clear")
        for leaves in ("accumulate", "reset")
        for leaf_output in ("accumulate", "assign")
    ]
)


@by_op_name
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


def reachable(args: Sequence[tuple[int, ...] | None], y: int) -> set[int]:
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
    seen = reachable(args, y)
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


def model_new_operation(
    grads: list[Fraction], operands: Sequence[int], convention: BackwardConvention
) -> None:
    """What building an op on the slots ``operands`` does to ``grads`` under ``convention`` (in
    place): nothing, or (``operands == "clear"``) each operand's gradient set to 0."""
    if convention.operands == "clear":
        for a in operands:
            grads[a] = Fraction(0)


#: What :func:`backward_convention` does, as steps: ``("leaf", name, value)``, ``("mul", name, a,
#: b)``, ``("backward", name)``, ``("read",)`` (every gradient so far).  On a graph kept after
#: backward(): passes from ``y = (x*x)*c`` twice (its gradients after a second pass), from a lone leaf
#: ``z`` twice (a leaf as the output), then ``x`` and ``c``, both holding gradients, enter ``x * c``.
_KEPT_STEPS: tuple[tuple[Any, ...], ...] = (
    ("leaf", "x", 2), ("leaf", "c", 3), ("mul", "h", "x", "x"), ("mul", "y", "h", "c"), ("leaf", "z", 5),
    ("backward", "y"), ("read",), ("backward", "y"), ("read",),
    ("backward", "z"), ("read",), ("backward", "z"), ("read",),
    ("mul", "w", "x", "c"), ("read",),
)  # fmt: skip
#: On a graph a pass frees, only passes a program may make: each from a graph built after the
#: last pass over its leaves (``w = x * c`` after ``y = x * c``'s pass: the leaves' second pass).
_FREED_STEPS: tuple[tuple[Any, ...], ...] = (
    ("leaf", "x", 2), ("leaf", "c", 3), ("leaf", "z", 5), ("mul", "y", "x", "c"),
    ("backward", "y"), ("read",), ("mul", "w", "x", "c"), ("read",), ("backward", "w"), ("read",),
    ("backward", "z"), ("read",), ("backward", "z"), ("read",),
)  # fmt: skip


def _steps(convention: BackwardConvention) -> tuple[tuple[Any, ...], ...]:
    return _FREED_STEPS if convention.graph == "freed" else _KEPT_STEPS


def _predicted(convention: BackwardConvention) -> list[list[Fraction]]:
    """Every gradient at each ``read`` of the convention's steps, as ``convention`` has it."""
    slot: dict[str, int] = {}
    args: list[tuple[int, ...] | None] = []
    ops: list[tuple[str, Any]] = []
    values: list[Fraction] = []
    grads: list[Fraction] = []
    predicted = []
    for kind, *rest in _steps(convention):
        if kind == "leaf" or kind == "mul":
            operands = tuple(slot[a] for a in rest[1:]) if kind == "mul" else ()
            slot[rest[0]] = len(values)
            args.append(operands if kind == "mul" else None)
            ops.append(("mul", None) if kind == "mul" else ("", None))
            values.append(values[operands[0]] * values[operands[1]] if kind == "mul" else Fraction(rest[1]))
            grads.append(Fraction(0))
            model_new_operation(grads, operands, convention)
        elif kind == "backward":
            model_backward(args, ops, values, grads, slot[rest[0]], convention)
        else:
            predicted.append(list(grads))
    return predicted


def _frees_graph(eng: Engine, number: type) -> bool:
    """Whether a backward() pass frees the graph it went through: on ``y = (a*a)*b``, after a pass
    from ``y``, a pass from ``a*a`` either raises or leaves ``a``'s gradient as it was (a graph
    kept passes ``2a`` on to it, added or in place of the old one)."""
    a, b = eng.make(number(2)), eng.make(number(3))
    h = eng.apply(OPS["mul"], [a, a])
    eng.backward(eng.apply(OPS["mul"], [h, b]))
    before = eng.grad(a)
    try:
        eng.backward(h)
    except EngineRaised:
        return True  # e.g. PyTorch without retain_graph: "Trying to backward through the graph a second time"
    return bool(eng.grad(a) == before)


def backward_convention(engine: Any = None, *, exact: bool | None = None) -> BackwardConvention | None:
    """The convention an engine follows, observed on tiny graphs (None: none of the known ones).

    First whether a pass frees the graph it went through; then the steps that convention allows
    (passes from ``y = (x*x)*c`` twice, from a leaf twice, ``x * c`` built; on a freed graph a
    second pass reaches the leaves through a graph built after the first); the gradients read
    are compared with :func:`model_backward` and :func:`model_new_operation` under each known
    convention.  The leaves are Fractions when ``exact`` (default: the engine keeps Fractions
    exact), else floats; every number involved is a small integer either way.  Raises what the
    engine raises (but the one pass a freed graph may refuse).
    """
    eng = resolve_engine(engine)
    number = Fraction if (eng.exact if exact is None else exact) else float
    graph = "freed" if _frees_graph(eng, number) else "kept"
    observed: list[list[Any]] = []
    _observe(eng, number, _FREED_STEPS if graph == "freed" else _KEPT_STEPS, observed)
    return next((c for c in _CONVENTIONS if c.graph == graph and _predicted(c) == observed), None)


def _observe(eng: Engine, number: type, steps: Sequence[tuple[Any, ...]], observed: list[list[Any]]) -> None:
    """Runs ``steps`` on the engine, adding every gradient so far to ``observed`` at each read
    (raises what the engine raises, ``observed`` then holding the reads before it)."""
    nodes: dict[str, Any] = {}
    for kind, *rest in steps:
        if kind == "leaf":
            nodes[rest[0]] = eng.make(number(rest[1]))
        elif kind == "mul":
            nodes[rest[0]] = eng.apply(OPS["mul"], [nodes[a] for a in rest[1:]])
        elif kind == "backward":
            eng.backward(nodes[rest[0]])
        else:
            observed.append([eng.grad(v) for v in nodes.values()])


def _engine_gradients(eng: Engine, convention: BackwardConvention, *, exact: bool) -> str:
    """What :func:`convention_reproducer`'s program for ``convention`` prints as the engine's
    gradients: every gradient at each read, as a list of rows; where the engine raises (a pass over
    a graph an earlier pass freed, when ``convention`` keeps graphs), the rows read before it and
    what it raised."""
    observed: list[list[Any]] = []
    try:
        _observe(eng, Fraction if exact else float, _steps(convention), observed)
    except EngineRaised as raised:
        return f"{[[str(g) for g in row] for row in observed]!r}, then raises {raised.line()}"
    return repr([[str(g) for g in row] for row in observed])


def convention_reproducer(engine: Any, convention: BackwardConvention, *, exact: bool | None = None) -> str:
    """A program running :func:`backward_convention`'s steps for ``convention`` on the engine: at
    each read it records every gradient so far; it prints them as ``convention`` predicts them
    (``expected``, first) and as the engine has them (also when the engine raises at a step, as an
    engine that frees graphs may at a pass ``convention`` makes over one: then before its error)."""
    eng = resolve_engine(engine)
    number = Fraction if (eng.exact if exact is None else exact) else float
    steps, names = [], []
    for kind, *rest in _steps(convention):
        if kind == "leaf":
            names.append(rest[0])
            steps.append(f"{rest[0]} = {{V}}({number.__name__}({rest[1]}))")
        elif kind == "mul":
            names.append(rest[0])
            steps.append(f"{rest[0]} = {rest[1]} * {rest[2]}")
        elif kind == "backward":
            steps.append(f"{rest[0]}.{{backward}}()")
        else:
            steps.append(f"actual.append([str(v.{{grad}}) for v in ({', '.join(names)},)])")
    expected = convention_gradients(convention, exact=number is Fraction)
    lines = [
        f"print('expected:', {expected!r})", "actual = []", "try:", *(f"    {step}" for step in steps),
        "finally:", "    print('actual:  ', actual)",
    ]  # fmt: skip
    return program(eng, *lines, preamble=["from fractions import Fraction"])


def convention_gradients(convention: BackwardConvention, *, exact: bool) -> list[list[str]]:
    """What :func:`convention_reproducer` prints for an engine following ``convention``: every
    gradient at each read of its steps (Fractions when ``exact``, else floats)."""
    number = Fraction if exact else float
    return [[str(number(g)) for g in row] for row in _predicted(convention)]
