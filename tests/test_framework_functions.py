"""The frameworks' elementwise functions, audited through their adapters: each function an adapter
maps is a method of the scalar class, identified by its values against the catalogue, and judged
there; a planted wrong derivative and an overflow at an edge are found with the right function."""

import math
import re
import subprocess
import sys

import pytest
import torch

from autograd.testing import resolve_engine, run_check
from autograd.testing.adapters import TorchFloat64
from autograd.testing.adapters.common import function
from autograd.testing.adapters.hips import HIPS_FUNCTIONS, hips_float64
from autograd.testing.adapters.jax import JAX_FUNCTIONS, jax_float64
from autograd.testing.adapters.mygrad import MYGRAD_FUNCTIONS, mygrad_float64
from autograd.testing.adapters.pytorch import TORCH_SOURCES, torch_float64, torch_functions
from autograd.testing.adapters.tinygrad import TINYGRAD_FUNCTIONS, tinygrad_float64
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.identify import extra_ops

FRAMEWORKS = {
    "torch": (torch_float64, torch_functions()),
    "jax": (jax_float64, JAX_FUNCTIONS),
    "mygrad": (mygrad_float64, MYGRAD_FUNCTIONS),
    "tinygrad": (tinygrad_float64, TINYGRAD_FUNCTIONS),
    "hips": (hips_float64, HIPS_FUNCTIONS),
}
#: the module a framework's reproducers import, where it is not the framework's name
IMPORTED_AS = {"hips": "autograd"}


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_every_function_an_adapter_maps_is_an_extra_op_of_its_scalar_class(name):
    adapter, functions = FRAMEWORKS[name]
    found = {op.method for op in extra_ops(resolve_engine(adapter=adapter))}
    assert set(functions) <= found, sorted(set(functions) - found)


class _WrongSinDerivative(torch.autograd.Function):
    """sin with d/dx cos(x) * (1 + 1e-6): wrong at every ordinary point, by a millionth."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.cos(x) * (1 + 1e-6)


class _PlantedTorch(TorchFloat64):
    """PyTorch with two functions planted: sin's derivative off by a millionth, and softplus as
    log(1 + exp(x)), which overflows to inf far before its value (x itself, nearly) does."""

    name = "torch with a wrong sin derivative and a naive softplus"

    @property
    def ops(self):
        return {
            "sin": _WrongSinDerivative.apply,
            "softplus": lambda x: torch.log(1 + torch.exp(x)),
            "cos": torch.cos,
        }


@pytest.mark.slow
def test_a_planted_wrong_derivative_and_an_overflow_at_an_edge_are_found_where_they_are():
    eng = resolve_engine(adapter=_PlantedTorch())
    identified = {op.method: op.known for op in extra_ops(eng)}
    assert (identified["sin"], identified["softplus"], identified["cos"]) == ("sin", "softplus", "cos")
    extra = run_check("extra_ops", eng, examples=10)
    wrong = [f for f in extra.findings if f.kind in DEFECT_KINDS]
    assert {(f.kind, f.op) for f in wrong} == {("wrong_gradient", "sin~sin")}, [f.summary for f in wrong]
    assert all(f.severity.label == "wrong" and f.severity.point == "ordinary" for f in wrong)
    edges = run_check("edge_points", eng)
    defects = [f for f in edges.findings if f.kind in DEFECT_KINDS]
    # (and PyTorch's own: 0 / x at 5e-324 is nan, through the reciprocal)
    assert {f.op for f in defects} == {"sin~sin", "softplus~softplus", "rdiv"}, [f.summary for f in defects]
    overflow = [f for f in defects if f.op == "softplus~softplus"]
    # log(1 + exp(x)) is inf from x = 709.8 on, where softplus(x) is x to the last digit (and 0 where
    # 1 + exp(x) rounds to 1: at the underflow threshold, where softplus(x) is exp(x))
    (value,) = [f for f in overflow if f.kind == "wrong_value"]
    assert "x.softplus() at x = 1e+20: value inf, expected 1e+20" in value.summary
    assert all(f.severity.label == "wrong" for f in overflow)


# ---------------------------------------------------------------------- reproducers of the framework alone
def test_a_function_source_names_a_module_path_and_fixes_its_literal_keywords():
    x = 0.75
    tanh_form = 0.5 * x * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))  # by hand
    gelu_tanh = function("torch.nn.functional.gelu(approximate='tanh')")
    assert gelu_tanh(torch.tensor(x, dtype=torch.float64)).item() == pytest.approx(tanh_form, rel=1e-15)
    leaky = function("mygrad.nnet.activations.leaky_relu(slope=0.01)")
    assert leaky(-2.0).item() == -0.02
    assert function("jax.numpy.arcsinh")(1.0) == pytest.approx(math.asinh(1.0), rel=1e-7)  # float32 default
    assert TORCH_SOURCES["gelu_tanh"] == "torch.nn.functional.gelu(approximate='tanh')"


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_a_standalone_reproducer_imports_only_its_framework_and_prints_value_and_gradients(name):
    adapter, functions = FRAMEWORKS[name]
    x0, x1, x2 = 0.5, 1.5, 2.0
    u = x0 * x1
    if "atan2" in functions:  # by hand: d atan2(u, v) = (v du - u dv) / (u^2 + v^2)
        binary, inner = "atan2", math.atan2(u, x2)
        du, dv = x2 / (u * u + x2 * x2), -u / (u * u + x2 * x2)
    else:  # tinygrad has no atan2: d logaddexp(u, v) = (e^u du + e^v dv) / (e^u + e^v)
        binary, inner = "logaddexp", math.log(math.exp(u) + math.exp(x2))
        du, dv = math.exp(u) / (math.exp(u) + math.exp(x2)), math.exp(x2) / (math.exp(u) + math.exp(x2))
    program = adapter.standalone(
        f"(x0 * x1).{binary}(x2).exp() + x0.sin()", [("x0", x0), ("x1", x1), ("x2", x2)]
    )
    imported = set(re.findall(r"^import ([\w.]+)", program, flags=re.MULTILINE))
    assert {module.partition(".")[0] for module in imported} <= {IMPORTED_AS.get(name, name), "functools"}, (
        imported
    )
    # isolated (-I), or in the directory a framework installed apart runs from (nothing else on the path)
    where = getattr(adapter, "standalone_directory", None)
    command = [sys.executable, *(["-I"] if where is None else []), "-c", program]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=where)
    assert ran.returncode == 0, ran.stderr
    printed = re.fullmatch(r"value (\S+) gradient \[(.+)\]", ran.stdout.strip())
    value, grads = float(printed[1]), [float(g) for g in printed[2].split(", ")]
    # f = exp(g(x0 x1, x2)) + sin(x0)
    e = math.exp(inner)
    expected = [e * du * x1 + math.cos(x0), e * du * x0, e * dv]
    assert value == pytest.approx(e + math.sin(x0), rel=1e-15)
    assert grads == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("name", sorted(FRAMEWORKS))
def test_a_standalone_reproducer_of_second_order_prints_the_hessian(name):
    adapter, _ = FRAMEWORKS[name]
    x, y = 0.5, 1.5
    if name == "mygrad":  # no second order: no such reproducer, said at once
        with pytest.raises(ValueError, match="no second order"):
            adapter.standalone("x * y", [("x", x), ("y", y)], order=2)
        return
    program = adapter.standalone("x.sin() * y", [("x", x), ("y", y)], order=2)
    where = getattr(adapter, "standalone_directory", None)
    command = [sys.executable, *(["-I"] if where is None else []), "-c", program]
    ran = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=where)
    assert ran.returncode == 0, ran.stderr
    printed = re.fullmatch(
        r"value (\S+) second derivatives \[\[(.+), (.+)\], \[(.+), (.+)\]\]", ran.stdout.strip()
    )
    assert printed, ran.stdout
    # sin(x) y: d2/dx2 = -sin(x) y, d2/dx dy = cos(x), d2/dy2 = 0 (by hand)
    expected = [-math.sin(x) * y, math.cos(x), math.cos(x), 0.0]
    assert float(printed[1]) == pytest.approx(math.sin(x) * y, rel=1e-15)
    assert [float(h) for h in printed.groups()[1:]] == pytest.approx(expected, rel=1e-14, abs=1e-300)


def test_a_function_source_that_is_not_a_dotted_path_with_literal_keywords_is_refused_by_its_text():
    for bad in ("torch.nn.functional.gelu(x)", "(lambda x: x)", "torch.sin(**kw)", "nosuchmodule.sin"):
        with pytest.raises(ValueError, match=re.escape(repr(bad))):
            function(bad)
