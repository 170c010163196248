"""Discovery and adapters (``autograd.testing.engines``): any attribute form, any gradient API.

The fixture engines live in ``tests/engines/``; expected gradients are worked out by hand.
Nothing here needs torch: the adapter protocol is exercised through ``tests.engines.functional``.
"""

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from autograd.testing import EngineNotFound, Graph, Node, audit, resolve_engine
from autograd.testing.engines import Adapter, GradientOnRead, scalar_class
from autograd.testing.engines.apis import read_convention
from autograd.testing.engines.fit import _numbers
from autograd.testing.oracles import GradientMismatch, assert_grads_symbolic

ROOT = Path(__file__).resolve().parents[1]


def run_snippet(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


# ---------------------------------------------------------------------- any attribute form
@pytest.mark.parametrize("module", ["tests.engines.property_attrs", "tests.engines.descriptor_attrs"])
def test_data_and_gradient_behind_properties_or_descriptors_are_found(module):
    eng = resolve_engine(module)
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
    x = eng.make(3.0)
    eng.backward(x * x * 2)
    assert eng.grad(x) == 12.0  # d(2x^2)/dx at 3
    assert "data" not in vars(x) and "grad" not in vars(x)  # only the class can show them


@pytest.mark.parametrize("module", ["tests.engines.property_attrs", "tests.engines.descriptor_attrs"])
def test_explicit_names_work_for_properties_and_descriptors(module):
    eng = resolve_engine(module, data="data", grad="grad", backward="backward")
    assert (eng.data_attr, eng.grad_attr) == ("data", "grad")
    with pytest.raises(EngineNotFound, match="no numeric attribute 'gradient'"):
        resolve_engine(module, grad="gradient")


def test_c_extension_descriptors_are_read():
    # float's real and imag are getset descriptors of a C type; complex's are member descriptors
    assert _numbers(2.5) == {"real": 2.5, "imag": 0.0}
    assert _numbers(complex(1, 2)) == {"real": 1.0, "imag": 2.0}


@pytest.mark.slow
def test_an_engine_with_properties_audits_clean():
    report = audit("tests.engines.property_attrs", examples=3)
    assert report.defects == [], [f.summary for f in report.defects]
    assert report.accessors == {"data": "data", "grad": "grad", "backward": "backward"}
    assert report.outcomes["exact"].status == "passed"


# ---------------------------------------------------------------------- gradient computed on read
class _AllOutputs:
    """x.grad() is d(sum of every Value built from x)/dx (here: products with constants only)."""

    def __init__(self, data, users=None):
        self.data, self.users = data, users if users is not None else []

    def __add__(self, other):
        return _AllOutputs(self.data + other.data)

    def __mul__(self, other):
        out = _AllOutputs(self.data * other.data)
        self.users.append(other.data)
        return out

    def grad(self):
        return sum(self.users)


class _OutputMethod(_AllOutputs):
    """y.grad(x) is dy/dx: the method belongs to the output (here: y = x * c only)."""

    def __mul__(self, other):
        out = _OutputMethod(self.data * other.data)
        out.source = (self, other.data)
        return out

    def grad(self, leaf):
        source, c = self.source
        return c if source is leaf else 0


@pytest.mark.parametrize(
    ("cls", "method", "convention"),
    [
        (__import__("tests.engines.grad_on_read", fromlist=["Value"]).Value, "grad", "passed"),
        (__import__("tests.engines.grad_on_read_last", fromlist=["Value"]).Value, "grad", "last"),
        (_AllOutputs, "grad", "all"),
        (_OutputMethod, "grad", "output"),
    ],
)
def test_the_convention_of_a_gradient_read_is_observed(cls, method, convention):
    found, seen = read_convention(cls, "data", method)
    assert found == convention, seen


def test_an_engine_without_backward_is_discovered_as_gradient_on_read():
    eng = resolve_engine("tests.engines.grad_on_read")
    assert eng.gradient_api == "read: Value.grad"
    assert eng.gradient_convention == "the output passed to the leaf's method: x.grad(y)"
    x, w = eng.make(Fraction(3)), eng.make(Fraction(2))
    h = x * w
    y = h * x + w  # dy/dx = 2xw = 12, dy/dw = x^2 + 1 = 10, dy/dh = x = 3
    eng.backward(y)
    assert (eng.grad(x), eng.grad(w), eng.grad(h)) == (12, 10, 3)
    eng.backward(y)  # leaves accumulate; an interior node holds its latest pass
    assert (eng.grad(x), eng.grad(w), eng.grad(h)) == (24, 20, 3)


@pytest.mark.slow
def test_a_gradient_on_read_engine_audits_clean_and_reports_its_api():
    report = audit("tests.engines.grad_on_read", examples=3)
    assert report.defects == [], [f.summary for f in report.defects]
    assert report.capabilities["gradient_api"] == "read: Value.grad"
    assert "x.grad(y)" in report.capabilities["gradient_convention"]
    assert report.capabilities["adapter"] is None
    assert "gradient: read: Value.grad, of the output passed to the leaf's method: x.grad(y)" in str(report)


def test_a_class_with_neither_backward_nor_a_gradient_read_is_rejected_with_what_was_seen():
    with pytest.raises(EngineNotFound, match=r"no backward method; no gradient computed on read either"):
        resolve_engine(_NoGradient)


class _NoGradient:
    def __init__(self, data):
        self.data = data

    def __add__(self, other):
        return _NoGradient(self.data + other.data)

    def __mul__(self, other):
        return _NoGradient(self.data * other.data)


# ---------------------------------------------------------------------- the adapter protocol
@pytest.mark.slow
def test_a_functional_engine_is_audited_through_its_adapter():
    report = audit(adapter="tests.engines.functional:adapter", examples=3)
    assert report.defects == [], [f.summary for f in report.defects]
    caps = report.capabilities
    assert caps["gradient_api"] == "adapter" and caps["adapter"] == "tests.engines.functional:adapter"
    assert {"add", "mul", "sub", "div", "neg", "powc", "tanh"} <= set(caps["ops"])
    assert {"exp", "rpow", "vpow"} <= set(caps["missing_ops"])  # not in its ops: never tried
    assert report.outcomes["symbolic"].status == "passed"


@pytest.mark.slow
def test_a_wrong_rule_behind_an_adapter_is_caught_and_its_reproducer_runs():
    eng = resolve_engine(adapter="tests.engines.functional_wrong_mul:adapter")
    graph = Graph((2.0, 5.0), (Node("mul", (0, 1)),))
    with pytest.raises(GradientMismatch):
        assert_grads_symbolic(graph, eng)
    snippet = graph.snippet(eng)
    assert "from tests.engines.functional_wrong_mul import adapter" in snippet
    out = run_snippet(snippet)
    assert out.returncode == 0, out.stderr
    assert "6.0" in out.stdout  # d(x0*x1)/dx0 = x1 + 1 = 6 with the planted rule (5 is right)


def test_engine_is_an_implementation_of_the_protocol_and_any_adapter_becomes_a_scalar_class():
    ours = resolve_engine()
    assert isinstance(ours, Adapter)
    Value = scalar_class(resolve_engine("tests.engines.sound"))  # an Engine used as an adapter
    x, w = Value(3.0), Value(2.0)
    y = (x * w + 1) * x
    y.backward()
    assert (x.grad, w.grad, y.data) == (13.0, 9.0, 21.0)  # 2xw + 1, x^2
    assert scalar_class(ours) is scalar_class(ours)


def test_an_adapter_without_the_protocol_is_refused_by_name():
    with pytest.raises(EngineNotFound, match="lacks backward, grad"):
        resolve_engine(adapter=_HalfAdapter())
    with pytest.raises(EngineNotFound, match="MODULE:OBJECT"):
        resolve_engine(adapter="tests.engines.functional")
    with pytest.raises(EngineNotFound, match="has no adapter 'nothing'"):
        resolve_engine(adapter="tests.engines.functional:nothing")


class _HalfAdapter:
    def make(self, x):
        return x

    def data(self, v):
        return v


def test_engine_errors_are_caught_at_the_boundary_and_ours_propagate(monkeypatch):
    # the engine's own refusal is a fact about the engine ...
    assert resolve_engine("tests.engines.float_only").number_types["fraction"] == "refused"

    # ... but a bug of the harness inside discovery is an error, never "no such class"
    def broken(obj):
        raise RuntimeError("harness bug")

    monkeypatch.setattr("autograd.testing.engines.fit._numbers", broken)
    with pytest.raises(RuntimeError, match="harness bug"):
        resolve_engine("tests.engines.sound")


@pytest.mark.slow
def test_the_torch_adapter_imports_torch_only_when_used():
    out = run_snippet(
        "import sys\n"
        "from autograd.testing.adapters import torch_float64\n"
        "from autograd.testing.engines import Adapter\n"
        "assert isinstance(torch_float64, Adapter)\n"
        "print('torch' in sys.modules)"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_an_adapter_class_or_function_is_a_factory_and_reproducers_say_how_to_build_it():
    from tests.engines import functional

    eng = resolve_engine(adapter="tests.engines.functional:Adapter")  # a class: called to make one
    assert "Value = scalar_class(Adapter())" in eng.import_line()
    eng = resolve_engine("tests.engines.functional", adapter=lambda module: module.Adapter())
    assert "scalar_class(ADAPTER)" in eng.import_line()  # made on the fly: nowhere to import it from
    x = eng.make(2.0)
    y = (x * x).tanh() * 3 - x
    eng.backward(y)  # d(3 tanh(x^2) - x)/dx = 6x (1 - tanh(x^2)^2) - 1
    t = functional.math.tanh(4.0)
    assert eng.grad(x) == pytest.approx(12.0 * (1 - t * t) - 1, rel=1e-12)
    with pytest.raises(AttributeError, match="no attribute '_private'"):
        x._private  # noqa: B018 - names of the wrapper itself never reach the engine


def test_an_adapter_without_set_grad_says_so_when_the_harness_writes_a_gradient():
    class NoSetGrad:
        make, data = staticmethod(lambda x: [x]), staticmethod(lambda v: v[0])

        def backward(self, output, leaves, create_graph=False):
            pass

        def grad(self, leaf):
            return 0

    Value = scalar_class(NoSetGrad())
    with pytest.raises(AttributeError, match="cannot set a gradient"):
        Value(1.0).grad = 0


def test_a_gradient_read_from_the_output_is_adapted():
    adapter = GradientOnRead(_OutputMethod, "data", "grad", "output")
    x = adapter.make(2.0)
    y = x * _OutputMethod(7.0)
    adapter.backward(y, [x])
    adapter.backward(y, [x])  # leaves accumulate
    assert adapter.grad(x) == 14.0 and adapter.read(x, y) == 7.0
    with pytest.raises(ValueError, match="unknown convention 'first'"):
        GradientOnRead(_OutputMethod, "data", "grad", "first")
    with pytest.raises(TypeError, match="no create_graph"):
        adapter.backward(y, [x], create_graph=True)
    assert GradientOnRead(_AllOutputs, "data", "grad", "all").read is None  # the engine picks the output
