"""The checker checks itself: every oracle must catch a slightly wrong derivative rule.

A wrong engine (``tests/wrong_engines.py``) is a copy of the engine with ONE rule's
contribution scaled by ``factor``.  A rule off by 1 + 1e-9 must fail the exact and the
symbolic oracle; one off by 1 + 1e-4 must fail finite differences; the correct
engine must pass all three.  Modelled on HIPS autograd's ``test_tests.py``, but
done for every op and every oracle.
"""

import contextvars
import re
from fractions import Fraction

import pytest

import autograd
from autograd.testing import (
    GradientMismatch,
    Graph,
    Node,
    assert_grads_exact,
    assert_grads_fd,
    assert_grads_symbolic,
    verify_engine,
)
from autograd.testing.ops import OPS
from tests.wrong_engines import OP_GRAPHS, RULES, TINY, wrong_engine

FLOAT_GRAPHS = OP_GRAPHS


def rational(graph: Graph) -> Graph:
    """The same graph on Fraction leaves, float constants made Fractions (and an int power)."""
    nodes = [
        Node(n.op, n.args, 3 if n.op == "powc" else None if n.const is None else Fraction(n.const))
        for n in graph.nodes
    ]
    return Graph([Fraction(x).limit_denominator(100) for x in graph.leaves], nodes)


RATIONAL_OPS = [op for op, graph in FLOAT_GRAPHS.items() if rational(graph).rational]


def test_every_op_of_the_table_has_a_graph_here():
    assert set(FLOAT_GRAPHS) == set(OPS) == set(RULES)


@pytest.mark.parametrize("op", sorted(FLOAT_GRAPHS))
def test_symbolic_oracle_passes_the_engine_and_catches_a_rule_off_by_1e_9(op):
    graph = FLOAT_GRAPHS[op]
    assert_grads_symbolic(graph, autograd)
    assert_grads_symbolic(graph, wrong_engine(op, 1.0))  # the copy itself is faithful
    with pytest.raises(GradientMismatch):
        assert_grads_symbolic(graph, wrong_engine(op, 1 + 1e-9))


@pytest.mark.parametrize("op", sorted(FLOAT_GRAPHS))
def test_fd_oracle_passes_the_engine_and_catches_a_rule_off_by_1e_4(op):
    graph = FLOAT_GRAPHS[op]
    assert_grads_fd(graph, autograd)
    with pytest.raises(GradientMismatch):
        assert_grads_fd(graph, wrong_engine(op, 1 + 1e-4))


@pytest.mark.parametrize("op", sorted(RATIONAL_OPS))
def test_exact_oracle_passes_the_engine_and_catches_a_rule_off_by_1e_9(op):
    graph = rational(FLOAT_GRAPHS[op])
    assert_grads_exact(graph, autograd)
    with pytest.raises(GradientMismatch):
        assert_grads_exact(graph, wrong_engine(op, TINY))


def test_rational_ops_cover_the_closed_part_of_the_table():
    assert set(RATIONAL_OPS) == {"add", "mul", "neg", "sub", "div", "addc", "rsub", "mulc", "rdiv", "powc",
                                 "relu", "vsum", "dot", "radd", "subc", "vmulc", "divc"}  # fmt: skip


def test_mismatch_message_shows_every_leaf_the_expression_and_a_runnable_snippet():
    graph = FLOAT_GRAPHS["mul"]
    with pytest.raises(GradientMismatch) as info:
        assert_grads_symbolic(graph, wrong_engine("mul", 1 + 1e-9))
    message = str(info.value)
    shown = ("x0", "x1", "engine", "oracle", "abs err", "rel err", "x0*x1", "n2 = x0 * x1", "n2.backward()")
    for text in shown:
        assert text in message
    rows = info.value.report.rows
    assert [r.ok for r in rows] == [False, False]
    assert rows[0].engine == pytest.approx(-1.3 * (1 + 1e-9), rel=1e-15)
    assert rows[0].oracle == -1.3  # d(x0*x1)/dx0 = x1, an exact float here


# verify_engine, on random graphs: the same verdicts, found by generation rather than by hand, but a
# float gradient is convicted only when a second method confirms sympy (the audit's rule; "fd" now
# names the symbolic check, whose second vote is finite differences).
@pytest.mark.parametrize(
    ("op", "factor", "check"),
    [("mul", TINY, "exact"), ("tanh", 1 + 1e-9, "symbolic"), ("tanh", 1 + 1e-4, "fd"), ("div", TINY, "exact"),
     ("sigmoid", 1 + 1e-7, "symbolic"), ("exp", 1 + 1e-4, "fd")],
)  # fmt: skip
def test_verify_engine_fails_a_slightly_wrong_engine(op, factor, check):
    result = verify_engine(wrong_engine(op, factor), checks=[check], max_examples=10)[check]  # 10 per op
    assert not result.passed
    assert result.message.startswith(f"wrong_gradient ({op})"), result.message  # the rule, found by behaviour
    assert "reproducer:" in result.message


def test_verify_engine_counts_a_disagreement_no_second_method_confirms_as_inconclusive():
    # sigmoid's rule off by 1e-9: sympy sees it, finite differences cannot resolve it at these
    # points, so each such graph is inconclusive: counted in the message, not a failure
    result = verify_engine(wrong_engine("sigmoid", 1 + 1e-9), checks=["symbolic"], max_examples=5)["symbolic"]
    assert result.passed
    counts = re.findall(r"(\d+) graphs judged, (\d+) inconclusive", result.message)
    assert counts and all(int(n) > 0 for n in counts[0]), result.message


@pytest.mark.slow
def test_verify_engine_passes_the_engine_on_every_check():
    results = verify_engine(autograd, max_examples=10)
    assert set(results) == set(autograd.testing.CHECKS)
    assert all(r.passed for r in results.values()), [str(r) for r in results.values() if not r.passed]


@pytest.mark.parametrize("oracle", [assert_grads_symbolic, assert_grads_fd], ids=lambda f: f.__name__)
def test_the_float_oracles_judge_a_fraction_leaf_as_the_float_nearest_it(oracle):
    # as a float engine is fed: the row shows 1/3 rounded, and our (exact) engine's gradient is a float
    (row,) = oracle(Graph((Fraction(1, 3),), (Node("mul", (0, 0)),)), autograd).rows
    assert type(row.value) is float and row.value == 1 / 3
    assert type(row.engine) is float and row.engine == 2 / 3


def test_a_number_with_more_digits_than_str_converts_is_shown_not_raised():
    # the zoo's double-counting variant gives exact gradients of thousands of digits: the mismatch
    # table raised ValueError (sys.get_int_max_str_digits) instead of showing them.  Expected:
    # 17 digits of the value rounded to 53 bits, from the decimal module (these are exact in 53 bits)
    from decimal import Decimal, localcontext

    from autograd.testing.oracles.mismatch import _short

    with localcontext() as context:
        context.prec = 60
        assert _short(3 * 2**16000) == f"{Decimal(3) * Decimal(2) ** 16000:.16e}"  # 4817 digits
        assert _short(Fraction(2**16000 + 1, 2**15000)) == f"{Decimal(2) ** 1000:.16e}"
        # as before: a Fraction of more than 24 characters as 17 digits, of 24 or fewer as it is, ints whole
        assert _short(Fraction(10**22, 3)) == f"{Decimal(10**22) / Decimal(3):.16e}"
    assert _short(Fraction(10**21, 3)) == "1000000000000000000000/3"
    assert _short(10**30) == "1" + "0" * 30
    # any other number an engine hands back (a Decimal, a numpy scalar) is shown as it is
    assert _short(Decimal("0.25")) == "Decimal('0.25')" and _short(None) == "None"


# ---------------------------------------------------------------------- the numbers of one run
# v * w at (3/4, -1/2): d/dv = -1/2, d/dw = 3/4, by hand
_MUL = Graph((Fraction(3, 4), Fraction(-1, 2)), (Node("mul", (0, 1)),))
_RIGHT, _WRONG = [Fraction(-1, 2), Fraction(3, 4)], [Fraction(-1, 2), Fraction(1, 2)]


@pytest.mark.parametrize("oracle", [assert_grads_exact, assert_grads_symbolic, assert_grads_fd])
def test_an_oracle_judges_the_gradients_it_is_given_not_a_run_of_its_own(oracle):
    graph = _MUL if oracle is assert_grads_exact else _MUL.with_leaves([0.75, -0.5])
    right, wrong = ([float(g) for g in grads] for grads in (_RIGHT, _WRONG))
    if oracle is assert_grads_exact:
        right, wrong = _RIGHT, _WRONG
    oracle(graph, wrong_engine("mul", 2), grads=right)  # a wrong engine, its numbers not asked for
    with pytest.raises(GradientMismatch):
        oracle(graph, autograd, grads=wrong)  # a right engine, handed wrong numbers


def test_finite_differences_as_the_second_vote_judge_the_given_numbers_and_show_their_own():
    from autograd.testing import verdicts
    from autograd.testing.oracles import fd_vote

    graph = _MUL.with_leaves([0.75, -0.5])
    agrees, rejects = fd_vote(graph, autograd, [-0.5, 0.75]), fd_vote(graph, autograd, [-0.5, 0.5])
    for vote, verdict in ((agrees, False), (rejects, True)):
        assert (vote.method, vote.rejects) == ("finite differences", verdict)
        shown = re.fullmatch(r"\[(\S+), (\S+)\]", vote.says)  # the differences' own numbers
        assert shown and [round(float(x), 6) for x in shown.groups()] == [-0.5, 0.75], vote.says
    assert fd_vote(graph, wrong_engine("mul", 2), [-0.5, 0.75], method="m").method == "m"
    kink = Graph((0.0,), (Node("relu", (0,)),))  # no step along x0 avoids relu's kink
    blind = fd_vote(kink, autograd, [1.0])
    assert blind == verdicts.Vote("finite differences", None, blind.says) and "kink" in blind.says


def test_the_second_vote_judges_a_float32_engine_at_its_own_precision():
    # d/dv of v * w off by 1e-7 relative: within float32's rounding, far outside float64's; the
    # vote must judge with the engine it was given (a default engine would be float64)
    from autograd.testing import resolve_engine
    from autograd.testing.oracles import fd_vote
    from tests.engines import float32

    graph = _MUL.with_leaves([0.75, -0.5])
    # in a copy of the context: resolving an engine sets the working precision for what follows
    vote = contextvars.copy_context().run(
        lambda: fd_vote(graph, resolve_engine(float32), [-0.5 * (1 + 1e-7), 0.75])
    )
    assert vote.rejects is False, vote
