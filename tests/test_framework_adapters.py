"""The framework adapters the library ships (``autograd.testing.adapters``), tested like its code.

Each framework is audited through its adapter with few examples: the audit must judge every op
the adapter maps and, where the framework has a second order, differentiate twice (a second-order
check that judged nothing means the adapter lost ``create_graph``).  Each adapter is also broken
on purpose, by a subclass in this file (``create_graph`` dropped; a wrong derivative for one op),
and the audit must catch it.
Expected values are worked out by hand (``math``), never read from the framework.
"""

import math
import re
import subprocess
import sys
from pathlib import Path

import jax
import mygrad
import pytest
import torch

from autograd.testing import resolve_engine, run_check, run_checks
from autograd.testing.adapters import TorchFloat64, torch_float64
from autograd.testing.adapters.common import require
from autograd.testing.adapters.hips import HipsFloat64, hips_autograd, hips_float64
from autograd.testing.adapters.jax import JaxFloat64, Recorded, jax_float64
from autograd.testing.adapters.mygrad import MygradFloat64, mygrad_float64
from autograd.testing.adapters.recorded import recorded_op
from autograd.testing.adapters.tinygrad import TinygradFloat64, tinygrad_float64
from autograd.testing.auditor import DEFECT_KINDS, capabilities, check_names
from autograd.testing.checks import backward_convention
from autograd.testing.engines import scalar_class
from tests.ci_scripts import load

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = 3
#: the ops of the table no framework adapter maps (they are functions of lists, not of scalars)
UNMAPPED = {"vsum", "dot"}
#: and those a framework lacks (HIPS autograd has no relu function)
LACKS = {"hips": {"relu"}}


def page_defects(framework_name):
    """The defects (kind, op) of the framework's page in docs/frameworks/, from its saved result;
    None for a framework without a page."""
    frameworks = load("frameworks")
    published = [fw for fw in frameworks.FRAMEWORKS if fw.adapter.endswith(f":{framework_name}_float64")]
    if not published:
        return None
    return {(d["finding"]["kind"], d["finding"]["op"]) for d in frameworks.saved(published[0])["defects"]}


def run_snippet(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)


# ---------------------------------------------------------------------- broken adapters
class TorchWithoutCreateGraph(TorchFloat64):
    """PyTorch whose backward never keeps the graph of its gradients."""

    def backward(self, output, leaves, *, create_graph=False):
        output.backward(retain_graph=True)


class _TorchWrongTanh(torch.autograd.Function):
    """tanh with the derivative 1 - tanh (not 1 - tanh^2)."""

    @staticmethod
    def forward(ctx, x):
        t = torch.tanh(x)
        ctx.save_for_backward(t)
        return t

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * (1 - t)


class TorchWrongTanh(TorchFloat64):
    ops = {"tanh": _TorchWrongTanh.apply}  # noqa: RUF012


class JaxWithoutCreateGraph(JaxFloat64):
    """JAX whose backward never makes its gradients differentiable."""

    def backward(self, output, leaves, *, create_graph=False):
        super().backward(output, leaves)


@jax.custom_jvp
def _jax_wrong_tanh(x):
    return jax.numpy.tanh(x)


@_jax_wrong_tanh.defjvp
def _jax_wrong_tanh_jvp(primals, tangents):
    t = jax.numpy.tanh(primals[0])
    return t, (1 - t) * tangents[0]  # 1 - tanh, not 1 - tanh^2


def _wrong_tanh(v):
    return Recorded(_jax_wrong_tanh(v.value), _jax_wrong_tanh, (v,))


class JaxWrongTanh(JaxFloat64):
    ops = {**JaxFloat64.ops, "tanh": _wrong_tanh}  # noqa: RUF012


def _mygrad_wrong_tanh(v):
    return mygrad.tanh(v) + 0.5 * (v - v.data)  # the value of tanh, the derivative 1.5 - tanh^2


class MygradWrongTanh(MygradFloat64):
    ops = {**MygradFloat64.ops, "tanh": _mygrad_wrong_tanh}  # noqa: RUF012


class TinygradWithoutCreateGraph(TinygradFloat64):
    """tinygrad whose backward never hands out its gradients as tensors to differentiate."""

    def backward(self, output, leaves, *, create_graph=False):
        super().backward(output, leaves)


def _tinygrad_wrong_tanh(v):
    return v.tanh() + 0.5 * (v - v.detach())  # the value of tanh, the derivative 1.5 - tanh^2


class TinygradWrongTanh(TinygradFloat64):
    ops = {**TinygradFloat64.ops, "tanh": _tinygrad_wrong_tanh}  # noqa: RUF012


class HipsWithoutCreateGraph(HipsFloat64):
    """HIPS autograd whose backward never makes its gradients differentiable."""

    def backward(self, output, leaves, *, create_graph=False):
        super().backward(output, leaves)


@hips_autograd.extend.primitive
def _hips_wrong_tanh(x):
    return hips_autograd.numpy.tanh(x)


# 1 - tanh, not 1 - tanh^2
hips_autograd.extend.defvjp(_hips_wrong_tanh, lambda ans, x: lambda g: g * (1 - ans))


class HipsWrongTanh(HipsFloat64):
    ops = {**HipsFloat64.ops, "tanh": recorded_op(_hips_wrong_tanh)}  # noqa: RUF012


#: name -> (the adapter, a copy that drops create_graph (None: no second order), a copy whose
#: tanh has a wrong derivative)
FRAMEWORKS = {
    "torch": (torch_float64, TorchWithoutCreateGraph, TorchWrongTanh),
    "jax": (jax_float64, JaxWithoutCreateGraph, JaxWrongTanh),
    "mygrad": (mygrad_float64, None, MygradWrongTanh),
    "tinygrad": (tinygrad_float64, TinygradWithoutCreateGraph, TinygradWrongTanh),
    "hips": (hips_float64, HipsWithoutCreateGraph, HipsWrongTanh),
}
SECOND_ORDER = [name for name, (_, dropped, _) in FRAMEWORKS.items() if dropped is not None]


# ---------------------------------------------------------------------- the audits
@pytest.fixture(scope="module", params=sorted(FRAMEWORKS))
def framework(request):
    """(name, its adapter, its capabilities, the outcomes of every check (the probes but the edge
    points left out: they time chains and memory, minutes per framework) with few examples)."""
    adapter = FRAMEWORKS[request.param][0]
    eng = resolve_engine(adapter=adapter)
    checks = [*check_names(probes=False), "edge_points"]
    return request.param, adapter, capabilities(eng), run_checks(checks, eng, examples=EXAMPLES, seed=0)


def test_every_op_the_adapter_maps_is_judged_to_first_and_second_order(framework):
    framework_name, _, caps, outcomes = framework
    assert caps["gradient_api"] == "adapter"
    assert set(caps["missing_ops"]) == UNMAPPED | LACKS.get(framework_name, set())
    assert caps["higher_order"] is (framework_name in SECOND_ORDER)
    unidentified = [method for method, known in caps["extra_ops"].items() if known is None]
    published = page_defects(framework_name)
    for name in check_names(probes=False):
        result = outcomes[name]
        if (
            name == "exact"
            or (name == "self_consistency" and not unidentified)
            or (name == "second_order" and not caps["higher_order"])
        ):
            # floats only; every extra op is identified; no second order to judge
            assert result.status == "not_applicable", name
            continue
        assert result.judged > 0, name
        found = {(f.kind, f.op) for f in result.findings if f.kind in DEFECT_KINDS}
        if published is None:  # a framework without a page (see docs/frameworks/index.md): judged
            continue
        # only defects the framework's page reports, each confirmed there with its reproducer
        assert found <= published, (name, found - published)
        assert result.status == ("failed" if found else "passed"), (
            name,
            [f.summary for f in result.findings],
        )
    assert outcomes["edge_points"].judged > 0


def test_only_jax_flushes_subnormals_and_that_is_one_fact_not_a_defect_per_op(framework):
    # XLA on the CPU flushes subnormal numbers to zero: one engine-wide fact, whose consequences at
    # the edge points (1.5 / 1.8e308 gives 0, log(5e-324) gives -inf, ...) are not defects of each op
    framework_name, _, _, outcomes = framework
    edges = outcomes["edge_points"]
    facts = [f for f in edges.findings if f.summary.startswith("subnormal numbers are flushed to zero")]
    assert len(facts) == (framework_name == "jax")
    subnormal = re.compile(r"\d\.?\d*e-3(?:09|1\d|2\d)\b")  # 1e-309 .. 9e-329: below the smallest normal
    at_subnormals = [
        f.summary for f in edges.findings if f.kind in DEFECT_KINDS and subnormal.search(f.summary)
    ]
    # where subnormals are kept, a defect there is the op's own (PyTorch's 0 / x at 5e-324 is nan)
    assert not (facts and at_subnormals), at_subnormals


def test_mygrads_documented_backward_conventions_are_observed_as_such():
    # MyGrad documents both: a tensor involved in a new operation has its gradient nulled, and
    # backward() clears the graph it went through (a later pass over it raises InvalidBackprop or
    # does nothing); the stateful check's model must follow them, not call them wrong gradients
    observed = backward_convention(resolve_engine(adapter=mygrad_float64))
    assert (observed.operands, observed.graph) == ("clear", "freed")
    observed = backward_convention(resolve_engine(adapter=torch_float64))  # retain_graph=True
    assert (observed.operands, observed.graph) == ("keep", "kept")


def test_pytorch_divides_a_number_by_a_tiny_tensor_through_its_reciprocal():
    # 0 / x is 0 for every x != 0; PyTorch computes it as 0 * (1/x), and 1/5e-324 is inf
    edges = run_check("edge_points", resolve_engine(adapter=torch_float64), examples=EXAMPLES)
    defects = [f for f in edges.findings if f.kind in DEFECT_KINDS]
    (rdiv,) = [f for f in defects if f.op == "rdiv" and f.kind == "wrong_value"]
    assert "0 / x at x = 5e-324: value nan, expected 0.0" in rdiv.summary
    # and its gradient, 0 too, is nan where 1 / x * (1 / x) overflows: no float step differences it,
    # the certified differences of 0 / x do
    (slope,) = [f for f in defects if f.op == "rdiv" and f.kind == "wrong_gradient"]
    said = "0 / x at x = 1e-300: d/dx nan; sympy/mpmath 0.0 differs, confirmed by certified first differences"
    assert slope.summary.startswith(said)
    # the others are PyTorch's functions' own, every one on its page (docs/frameworks/pytorch.md)
    assert {(f.kind, f.op) for f in defects} <= page_defects("torch")


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_an_adapter_that_drops_create_graph_is_not_audited_to_second_order(name):
    adapter, dropped, _ = FRAMEWORKS[name]
    broken = dropped()
    assert run_check("second_order", resolve_engine(adapter=broken), examples=EXAMPLES).judged == 0
    # the same check on the adapter itself judges graphs
    assert run_check("second_order", resolve_engine(adapter=adapter), examples=EXAMPLES).judged > 0


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_a_wrong_derivative_behind_an_adapter_is_found_for_its_op(name):
    adapter, _, wrong = FRAMEWORKS[name]
    broken = resolve_engine(adapter=wrong())
    result = run_check("symbolic", broken, examples=EXAMPLES, ops=["tanh"])
    assert result.status == "failed"
    assert {(f.kind, f.op) for f in result.findings if f.kind == "wrong_gradient"} == {
        ("wrong_gradient", "tanh")
    }
    assert (
        run_check("symbolic", resolve_engine(adapter=adapter), examples=EXAMPLES, ops=["tanh"]).status
        == "passed"
    )


# ---------------------------------------------------------------------- by hand
@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_values_and_gradients_match_the_hand_worked_ones(name):
    Value = scalar_class(FRAMEWORKS[name][0])
    x, y = Value(0.5), Value(2.0)
    inner = x * y
    z = inner.tanh() + x.exp() / y - 3**x
    z.backward()
    t = math.tanh(1.0)
    dx = 2 * (1 - t * t) + math.exp(0.5) / 2 - math.log(3) * 3**0.5
    assert z.data == pytest.approx(t + math.exp(0.5) / 2 - 3**0.5, rel=1e-14)
    assert x.grad == pytest.approx(dx, rel=1e-14)
    assert y.grad == pytest.approx(0.5 * (1 - t * t) - math.exp(0.5) / 4, rel=1e-14)
    assert inner.grad == pytest.approx(1 - t * t, rel=1e-14)  # an interior value's gradient


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_gradients_accumulate_and_differentiate_again(name):
    Value = scalar_class(FRAMEWORKS[name][0])
    x = Value(0.5)
    z = x.exp() * x
    z.backward()
    z.backward()
    assert x.grad == pytest.approx(2 * 1.5 * math.exp(0.5), rel=1e-14)  # d(x e^x)/dx twice
    a = Value(1.5)
    cube = a * a * a
    cube.backward(create_graph=True)
    first = a.grad
    assert first.data == pytest.approx(3 * 1.5**2, rel=1e-15)
    a.grad = 0
    first.backward()
    assert a.grad == pytest.approx(6 * 1.5, rel=1e-15)


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_a_gradient_differentiates_again_with_respect_to_every_leaf_not_only_its_own(name):
    # d(x1/x0)/dx0 = -x1/x0^2 depends on x1: its derivative there is -1/x0^2 (by hand), which the
    # JAX adapter once gave as 0, differentiating a gradient only with respect to its own leaf
    Value = scalar_class(FRAMEWORKS[name][0])
    x0, x1 = Value(1.0), Value(2.0)
    (x1 / x0).backward(create_graph=True)
    d0, d1 = x0.grad, x1.grad
    hessian = []
    for d in (d0, d1):
        x0.grad, x1.grad = 0, 0
        d.backward()
        hessian.append([x0.grad, x1.grad])
    assert hessian == [[4.0, -1.0], [-1.0, 0.0]]  # [[2 x1 / x0^3, -1 / x0^2], [-1 / x0^2, 0]]


# ---------------------------------------------------------------------- a framework not installed
@pytest.mark.parametrize(
    ("module", "framework"), [("jax", "JAX"), ("mygrad", "MyGrad"), ("tinygrad", "tinygrad")]
)
def test_a_missing_framework_is_named_with_the_extra_that_installs_it(module, framework):
    out = run_snippet(
        f"import sys\nsys.modules[{module!r}] = None\nimport autograd.testing.adapters.{module}\n"
    )
    assert out.returncode == 1
    assert f"the {framework} adapter needs {module}, which is not installed" in out.stderr
    assert f"(pip install 'verified-autograd[{module}]')" in out.stderr


def test_the_cli_names_a_missing_framework_in_one_line_and_pytorch_when_first_used():
    cli = run_snippet(
        "import runpy, sys\n"
        "sys.modules['jax'] = None\n"
        "sys.argv = ['audit', 'audit', '--adapter', 'autograd.testing.adapters.jax:jax_float64']\n"
        "runpy.run_module('autograd.testing', run_name='__main__')\n"
    )
    assert cli.returncode == 2, cli.stderr
    assert "verified-autograd[jax]" in cli.stderr and "Traceback" not in cli.stderr
    out = run_snippet(
        "import sys\n"
        "sys.modules['torch'] = None\n"
        "from autograd.testing.adapters import torch_float64\n"
        "torch_float64.make(1.0)\n"
    )
    assert (
        "the PyTorch adapter needs torch, which is not installed (pip install 'verified-autograd[torch]')"
        in (out.stderr)
    )


def test_a_framework_module_that_does_not_import_is_named_with_its_extra():
    expected = (
        r"the Nowhere adapter needs no_such_framework_module, which is not installed "
        r"\(pip install 'verified-autograd\[nowhere\]'\)"
    )
    with pytest.raises(ModuleNotFoundError, match=expected):
        require("no_such_framework_module", "Nowhere", "nowhere")
