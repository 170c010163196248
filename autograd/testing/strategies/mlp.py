"""The hinge loss of a small random MLP, with every relu input away from its kink."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import strategies as st

from autograd.testing.engines import resolve_engine
from autograd.testing.graph import Graph
from autograd.testing.mlp import mlp_loss_graph
from autograd.testing.ops import KINK_MARGIN, OPS
from autograd.testing.strategies.examples import float_leaves

__all__ = ["mlp_graphs"]


def _away_from(b: float, centres: Sequence[float], margin: float) -> float:
    """``b`` moved past every interval ``(centre - margin, centre + margin)`` it falls in.

    The intervals are merged and visited in increasing order; a ``b`` inside one moves to
    its upper end: a deterministic map onto the allowed set (no rejection).
    """
    merged: list[list[float]] = []
    for lo, hi in sorted((c - margin, c + margin) for c in centres):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    for lo, hi in merged:
        if lo < b < hi:
            b = hi
    return b


def mlp_graphs(engine: Any = None) -> st.SearchStrategy[Graph]:
    """The hinge loss of a small random MLP (see :func:`autograd.testing.mlp.mlp_loss_graph`).

    Every relu input (hidden relu neurons and the hinge ``1 - y * score``) stays at
    least ``KINK_MARGIN`` away from its kink by construction: each neuron's bias is
    drawn last and moved out of the intervals that would put some sample's
    pre-activation within the margin (see :func:`_away_from`).
    """
    eng = resolve_engine(engine)
    weight = st.floats(-1.0, 1.0, allow_nan=False)
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]

    @st.composite
    def build(draw: Any) -> Graph:
        nin = 2
        sizes = draw(st.sampled_from([[2, 1], [3, 1], [2, 2, 1]]))
        n = draw(st.integers(1, 3))
        xs = [draw(st.lists(float_leaves, min_size=nin, max_size=nin)) for _ in range(n)]
        ys = [draw(st.sampled_from([-1.0, 1.0])) for _ in range(n)]
        nonlin = draw(st.sampled_from(nonlins)) if nonlins else "linear"
        layers = []
        acts = [list(x) for x in xs]  # each sample's activations, tracked to place the biases
        for li, size in enumerate(sizes):
            last = li == len(sizes) - 1
            layer = []
            new_acts: list[list[float]] = [[] for _ in xs]
            for _ in range(size):
                ws = draw(st.lists(weight, min_size=len(acts[0]), max_size=len(acts[0])))
                sums = [sum(w * a for w, a in zip(ws, act, strict=True)) for act in acts]
                if last:  # the hinge relu(1 - y * (s + b)) has its kink at b = y - s
                    kinks = [y - t for y, t in zip(ys, sums, strict=True)]
                else:
                    kinks = [-t for t in sums] if nonlin == "relu" else []
                b = _away_from(draw(weight), kinks, 2 * KINK_MARGIN)
                layer.append((ws, b))
                for i, t in enumerate(sums):
                    pre = t + b
                    new_acts[i].append(
                        pre if last or nonlin == "linear" else float(OPS[nonlin].num([pre], None))
                    )
            layers.append(layer)
            acts = new_acts
        return mlp_loss_graph(layers, xs, ys, nonlin, engine=eng)

    return build()
