"""The graph description, its backends and printing, the strategies, and the optional extra."""

import contextlib
import io
import subprocess
import sys
import types
from fractions import Fraction

import pytest
import sympy
from hypothesis import Phase, find, given, settings

import autograd
from autograd.testing import Graph, Node, resolve_engine, verify_engine
from autograd.testing import strategies as gs
from autograd.testing.ops import OPS
from tests.wrong_engines import TINY, wrong_engine

# Shrinking is what these searches test, so it is on whatever profile is loaded (`mutation` turns it off).
FIND = settings(database=None, derandomize=True, max_examples=2000, phases=tuple(Phase))

# x0 * x1 + tanh(x0 * x1) / x1: fan-out of n2, constants-free, two leaves
EXAMPLE = Graph(
    (0.5, -2.0), (Node("mul", (0, 1)), Node("tanh", (2,)), Node("div", (3, 1)), Node("add", (2, 4)))
)


def run_snippet(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    return out.getvalue().strip()


def test_backends_agree_with_hand_computation():
    x0, x1 = sympy.symbols("x0 x1", real=True)
    symbols, expr = EXAMPLE.sympy()
    assert symbols == (x0, x1)
    assert sympy.simplify(expr - (x0 * x1 + sympy.tanh(x0 * x1) / x1)) == 0
    want = 0.5 * -2.0 + __import__("math").tanh(-1.0) / -2.0
    assert EXAMPLE(0.5, -2.0) == want
    assert EXAMPLE.build()[EXAMPLE.out].data == want


def test_repr_is_a_runnable_snippet_printing_the_engine_gradients():
    values = EXAMPLE.build()
    values[EXAMPLE.out].backward()
    assert run_snippet(repr(EXAMPLE)) == str([values[0].grad, values[1].grad])
    assert repr(EXAMPLE).splitlines()[0] == "from autograd import Value"


def test_snippet_imports_fraction_and_fused_ops_only_when_used():
    nodes = (Node("vsum", (0, 1, 1)), Node("dot", (0, 1, 2)), Node("mulc", (3,), 2))
    code = repr(Graph((Fraction(1, 2), 3), nodes))
    imports = ["from fractions import Fraction", "from autograd import Value, dot, vsum"]
    assert code.splitlines()[:2] == imports
    # n4 = 2 * (x0*x1 + x0 + 2*x1): gradients 2*(x1 + 1) = 8 and 2*(x0 + 2) = 5
    assert eval(run_snippet(code), {"Fraction": Fraction}) == [8, 5]


def test_code_rebuilds_the_description():
    nodes = (Node("powc", (0,), Fraction(3, 2)), Node("vpow", (2, 1)))
    graph = Graph((Fraction(1, 3), -1.5), nodes, output=2)
    assert eval(graph.code(), {"Graph": Graph, "Node": Node, "Fraction": Fraction}) == graph


@pytest.mark.parametrize(
    ("leaves", "nodes", "message"),
    [((1.0,), (Node("nope", (0,)),), "unknown op 'nope'"),
     ((1.0,), (Node("add", (0, 1)),), "refers to a later slot"),
     ((1.0,), (Node("add", (0,)),), "wrong number of operands"),
     ((1.0,), (Node("powc", (0,)),), "constant None is misplaced"),
     ((1.0,), (Node("dot", (0, 0)),), "wrong number of operands")],
)  # fmt: skip
def test_invalid_descriptions_are_refused_with_the_node_named(leaves, nodes, message):
    with pytest.raises(ValueError, match=message):
        Graph(leaves, nodes)


def test_rational_means_closed_ops_and_no_float_leaf():
    assert Graph((Fraction(1, 2),), (Node("powc", (0,), -2),)).rational
    assert not Graph((Fraction(1, 2),), (Node("powc", (0,), 0.5),)).rational
    assert not Graph((0.5,), (Node("neg", (0,)),)).rational
    assert not Graph((Fraction(1, 2),), (Node("exp", (0,)),)).rational


# ---------------------------------------------------------------------- strategies
def depth(graph):
    d = [0] * (len(graph.leaves) + len(graph.nodes))
    for i, node in enumerate(graph.nodes):
        d[len(graph.leaves) + i] = 1 + max(d[a] for a in node.args)
    return d[graph.out]


def uses_twice(graph):
    return any(len(set(n.args)) < len(n.args) for n in graph.nodes)


def feeds_several(graph):
    consumers = {}
    for i, node in enumerate(graph.nodes):
        for a in node.args:
            consumers.setdefault(a, set()).add(i)
    return any(len(c) > 1 for a, c in consumers.items() if a >= len(graph.leaves))


@pytest.mark.slow
def test_every_op_reuse_fan_out_and_long_chains_are_generated():
    seen = {"ops": set(), "reuse": 0, "fan-out": 0, "depth": 0, "leaves": set()}

    @settings(max_examples=300, derandomize=True, database=None, deadline=None)
    @given(gs.graphs(max_nodes=12))
    def collect(graph):
        seen["ops"].update(n.op for n in graph.nodes)
        seen["reuse"] += uses_twice(graph)
        seen["fan-out"] += feeds_several(graph)
        seen["depth"] = max(seen["depth"], depth(graph))
        seen["leaves"].add(len(graph.leaves))

    collect()
    assert seen["ops"] == set(OPS)
    assert seen["reuse"] >= 30 and seen["fan-out"] >= 30  # of 300
    assert seen["depth"] >= 10 and seen["leaves"] == {1, 2, 3, 4}


def test_rational_graphs_use_only_closed_ops_on_fraction_leaves():
    @settings(max_examples=100, derandomize=True, database=None, deadline=None)
    @given(gs.graphs(exact=True))
    def check(graph):
        assert graph.rational and all(isinstance(x, Fraction) for x in graph.leaves)

    check()


@pytest.mark.slow
@pytest.mark.parametrize("op", ["dot", "vpow", "relu"])
def test_a_search_for_an_op_shrinks_to_a_tiny_graph(op, alone):
    if not alone:
        return  # judged by the same test run alone (see conftest.alone)
    graph = find(gs.graphs(), lambda g: any(n.op == op for n in g.nodes), settings=FIND)
    assert len(graph.nodes) <= 2, graph


def test_generated_operands_are_inside_each_ops_domain_and_bound():
    @settings(max_examples=200, derandomize=True, database=None, deadline=None)
    @given(gs.graphs())
    def check(graph):
        values = graph.evaluate()
        for node in graph.nodes:
            args = [float(values[a]) for a in node.args]
            assert OPS[node.op].domain(args, node.const)
            if node.op == "relu":
                assert abs(args[0]) >= 0.01

    check()


def test_a_failure_shrinks_to_the_one_node_that_is_wrong():
    engine = wrong_engine("mul", TINY)

    def fails(graph):
        try:
            autograd.testing.assert_grads_exact(graph, engine)
        except AssertionError:
            return True
        return False

    graph = find(gs.graphs(exact=True), fails, settings=FIND)
    assert [n.op for n in graph.nodes] in (["mul"], ["mulc"])
    assert len(graph.leaves) == 1


# ---------------------------------------------------------------------- engines
def test_an_engine_can_be_a_module_a_namespace_or_a_value_class():
    assert resolve_engine().Value is autograd.Value
    assert resolve_engine(autograd).dot is autograd.dot
    bare = resolve_engine(autograd.Value)
    assert bare.Value is autograd.Value and bare.vsum is None and bare.dot is None
    space = resolve_engine(types.SimpleNamespace(Value=autograd.Value, vsum=autograd.vsum))
    assert space.vsum is autograd.vsum and space.dot is None
    with pytest.raises(TypeError, match="no scalar autograd class found"):
        resolve_engine(object())


def test_ops_an_engine_lacks_are_not_generated():
    bare = autograd.Value  # no fused ops
    seen = set()

    @settings(max_examples=150, derandomize=True, database=None, deadline=None)
    @given(gs.graphs(bare))
    def collect(g):
        seen.update(n.op for n in g.nodes)

    collect()
    assert not seen & {"vsum", "dot"} and {"add", "mul"} <= seen


@pytest.mark.slow
def test_micrograd_is_checked_on_the_ops_it_has():
    import micrograd.engine as micrograd  # a test dependency (tox.ini), never skipped
    engine = resolve_engine(micrograd)
    assert [op for op in OPS if engine.supports(op)] == ["add", "mul", "neg", "sub", "div", "addc", "rsub",
                                                         "mulc", "rdiv", "powc", "relu", "radd", "subc",
                                                         "vmulc", "divc"]  # fmt: skip
    results = verify_engine(micrograd, checks=["exact", "symbolic", "backward_twice"], max_examples=20)
    for check in ("exact", "symbolic"):  # no op it lacks; its crash x ** 0 at 0 (docs/audits/micrograd.md),
        result = results[check]  # fails a check only where the sample draws it
        assert result.passed or all(s in result.message for s in ("crash (powc)", "ZeroDivisionError", "**"))
    # micrograd accumulates into interior nodes too, so a second backward() is not what ours does
    assert not results["backward_twice"].passed
    assert "does not follow the declared convention" in results["backward_twice"].message


# ---------------------------------------------------------------------- the optional extra
def test_engine_imports_none_of_the_testing_extra():
    extra = "{'sympy', 'mpmath', 'hypothesis'}"
    code = f"import autograd, autograd.nn, sys; print(sorted({extra} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_importing_the_harness_without_the_extra_says_how_to_install_it():
    code = "import sys; sys.modules['sympy'] = None; import autograd.testing"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode != 0
    # the README's install command: the distribution is not on the package index
    assert "pip install '.[testing]'" in out.stderr and "sympy" in out.stderr
