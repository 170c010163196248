"""Regression: the article's graph-size sweep, y = x; N times: y = y * w + b, with w = 1.001.

The evidence the article gave for its engine: dy/dx = w**N at N = 100, 1000,
5000 and 20000 (printed as 1.11, 2.72, 148 and 4.8e+08), computed without
recursion, since a recursive topological sort gives up near Python's 1000-frame
limit while the chain is 20000 deep.

The bug it guards against: a backward pass that recurses (RecursionError on
deep graphs), or a chain rule that drifts over long chains.

Why these tests catch it: the 20000-deep chain must run and match 1.001**N
(computed by Python's float power, not by the engine) to 1e-9 relative, and
the article's printed values; with ``Fraction(1001, 1000)`` the engine is exact,
so dy/dx and y must equal w**N and the closed form of the recurrence exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import autograd.cli
import autograd.engine

ENGINE = autograd.engine

ARTICLE_ROWS = {100: "1.11", 1000: "2.72", 5000: "148", 20000: "4.8e+08"}  # dy/dx as the article printed it


def chain(engine, n, w, b, x0):
    x, wv, bv = engine.Value(x0), engine.Value(w), engine.Value(b)
    y = x
    for _ in range(n):
        y = y * wv + bv
    y.backward()
    return x, bv, y


def test_sweep_matches_1_001_to_the_n(engine=ENGINE):
    for n, printed in ARTICLE_ROWS.items():
        x, b, _ = chain(engine, n, 1.001, 0.001, 1.0)
        assert math.isclose(x.grad, 1.001**n, rel_tol=1e-9), (
            f"N = {n}: dy/dx {x.grad!r}, 1.001**N = {1.001**n!r}"
        )
        assert f"{x.grad:.3g}" == printed, (
            f"N = {n}: dy/dx prints as {x.grad:.3g}, the article printed {printed}"
        )
        # dy/db = 1 + w + ... + w**(N-1) = (w**N - 1) / (w - 1)
        assert math.isclose(b.grad, (1.001**n - 1) / 0.001, rel_tol=1e-9), f"N = {n}: dy/db {b.grad!r}"


def test_sweep_is_exact_with_fractions(engine=ENGINE):
    w, b = Fraction(1001, 1000), Fraction(1, 1000)
    for n in (100, 1000):  # in this order: a broken rule fails fast at 100, before fractions grow huge
        x, bv, y = chain(engine, n, w, b, 1)
        # y_N = w**N x + b (w**N - 1) / (w - 1)
        assert x.grad == w**n, f"N = {n}: dy/dx is not exactly (1001/1000)**N"
        assert bv.grad == (w**n - 1) / (w - 1), (
            f"N = {n}: dy/db is not exactly ((1001/1000)**N - 1) / (1/1000)"
        )
        assert y.data == w**n + b * (w**n - 1) / (w - 1), f"N = {n}: y is not exactly the closed form"


def test_cli_sweep_reports_the_analytic_gradient():
    for n in ARTICLE_ROWS:
        row = autograd.cli.sweep_row(n)
        assert row["w"] == 1.001
        assert math.isclose(row["dydx"], 1.001**n, rel_tol=1e-9), f"N = {n}: {row}"
