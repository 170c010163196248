"""The derived tolerance of every entry of an engine's Hessian (``assert_hessian_symbolic``).

Float leaves: sympy's Hessian (the reference: exact in Fractions when
every op maps rationals to rationals, since floats are rationals; else
mpmath intervals at a precision raised until they settle, by
:func:`autograd.testing.oracles.reference.certify`; else :class:`OracleInconclusive`)
against the engine's float Hessian, within a tolerance derived per entry from
the graph.  For a composition, the
second-order chain rule gives a sum over nodes k::

    H_ij = sum_k  abar_k * sum_{a,b} phi''_k[a,b] * T_a,i * T_b,j

where ``abar_k = d out / d v_k`` (a sum over paths from k to the output of
products of local partials), ``phi''_k`` the op's second partials and
``T_a,i = d v_a / d x_i`` (a sum over paths from leaf i to operand a).  A
reverse-over-reverse engine computes exactly these products: the
``create_graph`` pass builds the adjoints as products of partials, and the
plain pass from ``g_i`` multiplies by the same partials on the way down
(its derivative of a partial with respect to the op's operands is the
``phi''`` factor).  So the first-order analysis of the first-order oracle
carries over, term by term:

* Backward (products and accumulations): every edge on a path costs
  ``w_e = 2 + partial_err_e`` ulps as at first order, and each second
  partial ``w2_k = 4 + partial_err_k`` ulps of its *magnitude*
  ``M_k[a,b]``: the sum of the absolute values of the terms of sympy's
  expanded second partial.  ``M`` and not ``|phi''|`` because an engine
  evaluates the second partial as a sum of terms that may cancel (sigmoid's
  is ``s'(1 - s) - s's``): the expanded form's terms are at least as large
  as those of the natural graph-mode rules (checked op by op for this
  engine: tanh, sigmoid, vpow, div are the ones with two terms).  With
  ``A_k``, ``T_a,i`` summed over paths with absolute partials, and ``AW``,
  ``TW`` the same sums weighted by the ulps of each path::

      W_ij = sum_k sum_{a,b} M_k[a,b] * (AW_k T_a,i T_b,j
             + A_k (w2_k T_a,i T_b,j + TW_a,i T_b,j + T_a,i TW_b,j))

* Forward: node k's value is off by ``fwd_err_k`` ulps (absolute), plus
  ``TINY`` if it underflows (as at first order), which moves H by
  ``S_ij = sum_k (fwd_err_k + TINY / eps) * |d H_ij / d v_k|``; the sensitivity
  comes from central differences of the formula above evaluated in floats
  with node k bumped (as the first-order oracle does with the gradient).

``tol_ij = C * eps * (S_ij + W_ij) + C * 2**-1074 * (1 + W_ij)`` with the
first-order oracle's safety factor C = 16 (library functions a couple of
ulps off, the dropped O(eps**2) terms).  This is sound for the same reason
as the first-order bound: it is a first-order rounding analysis of the very
products and sums a graph-mode engine evaluates, with every term counted in
absolute value, on graphs whose nodes stay in well-conditioned regions.
A rule whose second-order term is off by 1 + 1e-9 (4.5e6 ulps) lands far
outside it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.ops import FLOAT_MODULES, OPS, by_op_name
from autograd.testing.oracles.mismatch import OracleInconclusive
from autograd.testing.oracles.precision import EPS, TINY
from autograd.testing.oracles.sweep import backward_path_sums, reference_sweep
from autograd.testing.oracles.symbolic import SYMBOLIC_SAFETY

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = ["SECOND_PARTIAL_ERR", "hessian_tolerances"]

#: Extra ulps of an engine's evaluation of a second partial, beyond the first partial's.
SECOND_PARTIAL_ERR = 4

Matrix = list[list[float]]


def hessian_tolerances(graph: Graph) -> Matrix:
    """The derived tolerance of every Hessian entry (see the module doc), in doubles.

    Raises :class:`OracleInconclusive` when a tolerance leaves the float range."""
    n = len(graph.leaves)
    point = [float(x) for x in graph.leaves]
    values, partials, _ = reference_sweep(graph, point)
    paths, weighted = backward_path_sums(graph, values, partials)
    bound = _products_bound(graph, values, partials, paths, weighted)
    sens = _forward_sensitivity(graph, point, values, partials)
    scale = SYMBOLIC_SAFETY * EPS
    tolerances = [
        [scale * (sens[i][j] + bound[i][j]) + SYMBOLIC_SAFETY * TINY * (1 + bound[i][j]) for j in range(n)]
        for i in range(n)
    ]
    # an infinite tolerance would accept any Hessian: that entry cannot be judged, so nothing is
    if not all(math.isfinite(t) for row in tolerances for t in row):
        raise OracleInconclusive(
            f"second-order oracle: a derived Hessian tolerance leaves the float range: {tolerances}"
        )
    return tolerances


@by_op_name
@functools.cache
def _float_second_partials(name: str, nargs: int, c: Any) -> Callable[..., tuple[list[float], list[float]]]:
    """Float ``f(*args) -> (phi'' row-major, M row-major)``: second partials and their magnitudes
    (sum of |terms| of sympy's expanded form; see the module doc)."""
    symbols = sympy.symbols(f"a0:{nargs}", real=True)
    expr = OPS[name].sym(symbols, c)
    seconds = [sympy.diff(expr, s, t) for s in symbols for t in symbols]
    sizes = [sympy.Add(*[sympy.Abs(t) for t in sympy.Add.make_args(sympy.expand(d))]) for d in seconds]
    f = sympy.lambdify(symbols, [*seconds, *sizes], modules=FLOAT_MODULES)
    k = nargs * nargs

    def evaluate(*args: float) -> tuple[list[float], list[float]]:
        out = [float(v) for v in f(*args)]
        return out[:k], out[k:]

    return evaluate


def _float_hessian(
    graph: Graph, values: list[Any], partials: list[Any], adjoint: list[Any]
) -> list[list[float]]:
    """The sum formula of the module doc, in floats, from one reference sweep."""
    n = len(graph.leaves)
    tangents = [[float(i == j) for j in range(n)] for i in range(n)]  # d v_slot / d x_j
    hessian = [[0.0] * n for _ in range(n)]
    for k, node in enumerate(graph.nodes):
        args = node.args
        tangents.append([sum(p * tangents[a][j] for a, p in zip(args, partials[k])) for j in range(n)])
        abar = adjoint[n + k]
        if not abar:
            continue
        second, _ = _float_second_partials(node.op, len(args), node.const)(*[values[a] for a in args])
        m = len(args)
        for pa, a in enumerate(args):
            for pb, b in enumerate(args):
                d = second[pa * m + pb]
                if d:
                    for i in range(n):
                        for j in range(n):
                            hessian[i][j] += abar * d * tangents[a][i] * tangents[b][j]
    return hessian


def _products_bound(
    graph: Graph, values: list[Any], partials: list[Any], paths: list[float], weighted: list[float]
) -> Matrix:
    """W: the ulps of the products and accumulations, from the backward path sums A (``paths``)
    and AW (``weighted``) and the forward path sums T and TW from each leaf."""
    n = len(graph.leaves)
    tang = [[float(i == j) for j in range(n)] for i in range(n)]
    tang_w = [[0.0] * n for _ in range(n)]
    bound = [[0.0] * n for _ in range(n)]
    for k, node in enumerate(graph.nodes):
        slot, args = n + k, node.args
        operands = [values[a] for a in args]
        w = 2 + OPS[node.op].partial_err(operands, node.const, values[slot])
        tang.append([sum(abs(p) * tang[a][j] for a, p in zip(args, partials[k])) for j in range(n)])
        tang_w.append(
            [
                sum(abs(p) * (tang_w[a][j] + w * tang[a][j]) for a, p in zip(args, partials[k]))
                for j in range(n)
            ]
        )
        if not paths[slot]:
            continue
        _, sizes = _float_second_partials(node.op, len(args), node.const)(*operands)
        w2 = w + SECOND_PARTIAL_ERR
        m = len(args)
        for pa, a in enumerate(args):
            for pb, b in enumerate(args):
                size = sizes[pa * m + pb]
                if not size:
                    continue
                for i in range(n):
                    for j in range(n):
                        ta, tb = tang[a][i], tang[b][j]
                        bound[i][j] += size * (
                            weighted[slot] * ta * tb
                            + paths[slot] * (w2 * ta * tb + tang_w[a][i] * tb + ta * tang_w[b][j])
                        )
    return bound


def _forward_sensitivity(graph: Graph, point: list[float], values: list[Any], partials: list[Any]) -> Matrix:
    """S: forward rounding of every node with a path to the output (even one whose float partials
    to it are 0: at v = 0 the partial of v * v is 0, but moving v moves the Hessian), in ulps."""
    n = len(graph.leaves)
    reaching = graph.reaching()
    sens = [[0.0] * n for _ in range(n)]
    for k, node in enumerate(graph.nodes):
        slot = n + k
        if slot not in reaching:
            continue
        err = OPS[node.op].fwd_err([values[a] for a in node.args], node.const, values[slot])
        h = 1e-6 * max(1.0, abs(values[slot]))
        up, down = (
            _float_hessian(graph, *reference_sweep(graph, point, (slot, s), (values, partials)))
            for s in (h, -h)
        )
        # in ulps: the node's bound, and its underflow (64 subnormal products summed are off
        # by up to 32 * 2**-1074, which no magnitude-weighted term sees)
        err += TINY / EPS
        for i in range(n):
            for j in range(n):
                sens[i][j] += err * abs((up[i][j] - down[i][j]) / (2 * h))
    return sens
