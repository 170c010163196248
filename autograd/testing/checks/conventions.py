"""What a ``backward()`` pass does to gradients already there: a convention, not a defect.

Engines differ: a second pass adds to leaf gradients or replaces them, interior gradients
accumulate or hold the latest pass, the output's seed is set or added to.
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

from autograd.testing.engines import resolve_engine
from autograd.testing.ops import OPS, by_op_name
from autograd.testing.oracles.reference import certify
from autograd.testing.reproducers import program

__all__ = [
    "OUR_CONVENTION", "BackwardConvention", "backward_convention", "convention_gradients",
    "convention_reproducer", "model_backward", "reachable",
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
