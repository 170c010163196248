"""Toy data sets in pure Python (no numpy, no scikit-learn)."""

from __future__ import annotations

import math
import random

__all__ = ["make_moons"]


def make_moons(n: int = 200, noise: float = 0.1, seed: int = 0) -> tuple[list[list[float]], list[int]]:
    """Two interleaving half circles, like scikit-learn's ``make_moons``.

    Returns ``(points, labels)``: ``n`` points ``[x, y]`` and labels in
    ``{-1, +1}`` (the upper moon is -1), ready for a max-margin loss.  The
    first ``n // 2`` points are the upper moon; Gaussian noise of standard
    deviation ``noise`` is added from ``random.Random(seed)``, so the same
    arguments always give the same data and the global random state is
    untouched.
    """
    if type(n) is not int or n < 2:
        raise ValueError(f"make_moons: n must be an int >= 2, got {n!r}")
    if isinstance(noise, bool) or not (isinstance(noise, (int, float)) and 0 <= noise < math.inf):
        raise ValueError(f"make_moons: noise must be a finite number >= 0, got {noise!r}")
    rng = random.Random(seed)
    n_upper = n // 2
    n_lower = n - n_upper
    points: list[list[float]] = []
    labels: list[int] = []
    for i in range(n_upper):
        t = math.pi * i / max(n_upper - 1, 1)
        points.append([math.cos(t), math.sin(t)])
        labels.append(-1)
    for i in range(n_lower):
        t = math.pi * i / max(n_lower - 1, 1)
        points.append([1.0 - math.cos(t), 0.5 - math.sin(t)])
        labels.append(1)
    if noise:
        for p in points:
            p[0] += rng.gauss(0.0, noise)
            p[1] += rng.gauss(0.0, noise)
    return points, labels
