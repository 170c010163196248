"""The training loop of ``autograd.cli.train``, with the engine and network as parameters.

The same four steps per round (forward, zero_grad, backward, update) and the
same loss (mean max-margin hinge + 1e-4 L2), so that the bug zoo can train
with a broken engine or network exactly as the library trains with the real one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autograd.datasets import make_moons


@dataclass
class History:
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)


def hinge_loss(engine: Any, model: Any, points: list[list[float]], labels: list[int]) -> tuple[Any, float]:
    scores = [model(x) for x in points]
    margins = [(1 - y * s).relu() for y, s in zip(labels, scores, strict=True)]
    reg = 1e-4 * engine.vsum(p * p for p in model.parameters())
    correct = sum((y > 0) == (s.data > 0) for y, s in zip(labels, scores, strict=True))
    return engine.vsum(margins) * (1.0 / len(margins)) + reg, correct / len(labels)


def train_moons(
    engine: Any,
    nn: Any,
    *,
    n_points: int = 200,
    hidden: tuple[int, ...] = (16, 16),
    steps: int = 60,
    lr: float = 1.0,
    seed: int = 0,
) -> History:
    points, labels = make_moons(n_points, noise=0.1, seed=seed)
    model = nn.MLP(2, [*hidden, 1], seed=seed)
    history = History()
    for _ in range(steps):
        loss, accuracy = hinge_loss(engine, model, points, labels)
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        history.losses.append(loss.data)
        history.accuracies.append(accuracy)
    return history
