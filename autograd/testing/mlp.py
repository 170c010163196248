"""The hinge loss of a small MLP as a :class:`~autograd.testing.graph.Graph`.

Its own module so that both :mod:`autograd.testing.checks` (the ``mlp`` check)
and :mod:`autograd.testing.strategies` (``mlp_graphs``) can use it without
importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import resolve_engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.graph import Graph, Node
from autograd.testing.ops import OPS

__all__ = ["mlp_loss_graph"]


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
    chains of ``mul``/``add``.  An engine never gets an op it lacks: without
    ``relu`` or ``1 - x`` each sample's loss is the square ``(y * mlp(x))**2``
    made with ``mul``, and without a ``Fraction`` constant the losses are summed,
    not averaged.
    """
    eng = resolve_engine(engine)
    has_dot, has_vsum = eng.supports("dot"), eng.supports("vsum")
    hinge = eng.supports("relu") and 1 in usable_consts(eng, OPS["rsub"])
    mean = Fraction(1, len(ys))
    can_average = eng.supports("mulc") and _takes(eng, mean)
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
        out_losses.append(add("relu", [add("rsub", [margin], 1)]) if hinge else add("mul", [margin, margin]))
    if has_vsum:
        total = add("vsum", out_losses)
    else:
        total = out_losses[0]
        for s in out_losses[1:]:
            total = add("add", [total, s])
    if can_average:
        add("mulc", [total], mean)
    return Graph(tuple(leaves), tuple(nodes))


def _takes(eng: Any, c: Any) -> bool:
    """Whether ``c * Value`` works on this engine (a Fraction constant may be refused)."""
    try:
        eng.apply(OPS["mulc"], [eng.make(1.5, stage="c * Value")], c, stage="c * Value")
    except EngineRaised:
        return False
    return True
