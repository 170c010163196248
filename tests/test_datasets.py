"""Unit tests of autograd.datasets.make_moons: shape, geometry, determinism, noise, bad arguments."""

import itertools
import math
import random
import statistics

import pytest

from autograd.datasets import make_moons


@pytest.mark.parametrize("n", [2, 3, 7, 200, 201])
def test_shapes_and_labels(n):
    points, labels = make_moons(n, noise=0.1, seed=1)
    assert len(points) == len(labels) == n
    assert all(len(p) == 2 and all(type(c) is float for c in p) for p in points)
    # first n // 2 points are the upper moon (-1), the rest the lower moon (+1)
    assert labels == [-1] * (n // 2) + [1] * (n - n // 2)


def test_defaults():
    points, labels = make_moons()
    assert len(points) == 200 and labels.count(-1) == labels.count(1) == 100
    assert make_moons() == make_moons(200, noise=0.1, seed=0)


def test_noiseless_points_lie_on_the_two_half_circles():
    points, labels = make_moons(50, noise=0.0)
    for (x, y), label in zip(points, labels, strict=True):
        if label == -1:  # upper: unit circle around (0, 0), y >= 0
            assert math.hypot(x, y) == pytest.approx(1.0, abs=1e-12) and y >= -1e-12
        else:  # lower: unit circle around (1, 0.5), y <= 0.5
            assert math.hypot(x - 1.0, y - 0.5) == pytest.approx(1.0, abs=1e-12) and y <= 0.5 + 1e-12
    # the ends of each moon, as in scikit-learn's make_moons
    upper, lower = points[:25], points[25:]
    ends = [*upper[0], *upper[-1], *lower[0], *lower[-1]]
    assert ends == pytest.approx([1.0, 0.0, -1.0, 0.0, 0.0, 0.5, 2.0, 0.5], abs=1e-12)
    # evenly spaced in angle: neighbours on a moon are pi / 24 apart
    angles = [math.atan2(y, x) for x, y in upper]
    assert [b - a for a, b in itertools.pairwise(angles)] == pytest.approx([math.pi / 24] * 24, abs=1e-12)


def test_deterministic_for_a_seed():
    assert make_moons(100, noise=0.2, seed=42) == make_moons(100, noise=0.2, seed=42)
    assert make_moons(100, noise=0.2, seed=42) != make_moons(100, noise=0.2, seed=43)
    # with no noise the seed has nothing to change
    assert make_moons(100, noise=0, seed=1) == make_moons(100, noise=0, seed=2)


def test_noise_is_gaussian_with_the_given_spread():
    clean, _ = make_moons(2000, noise=0.0)
    noisy, _ = make_moons(2000, noise=0.1, seed=3)
    offsets = [a - b for p, q in zip(noisy, clean, strict=True) for a, b in zip(p, q, strict=True)]
    assert statistics.fmean(offsets) == pytest.approx(0.0, abs=0.01)  # 4000 draws: sd of the mean 0.0016
    assert statistics.pstdev(offsets) == pytest.approx(0.1, rel=0.05)


def test_global_random_state_untouched():
    random.seed(99)
    state = random.getstate()
    make_moons(200, noise=0.1, seed=5)
    assert random.getstate() == state
    # and the global state does not leak into the data
    random.seed(1)
    first = make_moons(20, noise=0.3, seed=5)
    random.seed(2)
    assert make_moons(20, noise=0.3, seed=5) == first


def test_returned_lists_are_fresh():
    points, labels = make_moons(10, seed=0)
    points[0][0] = 1e9
    labels[0] = 7
    again_points, again_labels = make_moons(10, seed=0)
    assert again_points[0][0] != 1e9 and again_labels[0] == -1


@pytest.mark.parametrize(
    "kwargs, shown",
    [
        ({"n": 1}, "1"),
        ({"n": 0}, "0"),
        ({"n": -5}, "-5"),
        ({"n": 2.5}, "2.5"),
        ({"n": 200.0}, "200.0"),
        ({"n": "10"}, "'10'"),
        ({"n": True}, "True"),
        ({"n": None}, "None"),
        ({"noise": -0.1}, "-0.1"),
        ({"noise": math.nan}, "nan"),
        ({"noise": math.inf}, "inf"),
        ({"noise": "0.1"}, "'0.1'"),
        ({"noise": None}, "None"),
        ({"noise": True}, "True"),
    ],
)
def test_bad_arguments(kwargs, shown):
    with pytest.raises(ValueError) as info:
        make_moons(**kwargs)
    message = str(info.value)
    assert message.startswith("make_moons: ") and next(iter(kwargs)) in message and shown in message
