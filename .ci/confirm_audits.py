"""Confirm, independently of the harness, every defect the audit pages (docs/audits/) report.

    python .ci/confirm_audits.py     # needs the engines of tox -e audits installed
    python .ci/confirm_audits.py --engines mikegrad,kaitorch     # some of them

Then, against the results `.ci/audits.py` saved (.ci/audit-results): every defect the audits
reported must be one a case here confirmed (else the exit status is 1 and the defect is listed as
NOT COVERED), and the confirmed defects the audits missed are listed (information).

For each reported defect: sympy's exact value and derivative at the reported point
(evaluated by mpmath at 12,000 digits, then rounded to a double) beside what the engine does
there, run in a fresh interpreter from a few lines written here by hand (not the
harness's reproducer), and a verdict: CONFIRMED when the engine is off (a crash
where sympy's value and derivative are finite, a value or gradient off by more than
1e-9 relative, or, for a framework's function called alone, by more than 64 units in the last
place of the exact double; different bits from the same program).  Nothing from
``autograd.testing`` is used.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import mpmath
import sympy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audits import ENGINES, MATRIX_KINDS, RESULTS, engine_dir  # the corpus and where it lives

#: The kinds of finding that are defects (the matrix's columns but its last, accepts_invalid).
DEFECT_KINDS = MATRIX_KINDS[:-1]

x, y = sympy.symbols("x y", real=True)


@dataclass(frozen=True)
class Api:
    """How hand-written lines drive one engine: its import (binding V to its scalar class), how to
    read a Value's number and a leaf's gradient, how to run the backward pass."""

    imports: str
    data: str = "{v}.data"
    grad: str = "{v}.grad"
    backward: str = "{out}.backward()"
    engine: str = ""  # name==version, when the engine lives in its own directory (.ci/audits.py)

    def env(self, seed: str = "0") -> dict[str, str]:
        """A fresh interpreter's environment: the engine's own directory on PYTHONPATH if it has one
        (the same place `.ci/audits.py` installs it), nothing else of ours."""
        env = dict(os.environ, PYTHONHASHSEED=seed)
        env.pop("PYTHONPATH", None)
        where = engine_dir(next(e for e in ENGINES if e.requirement == self.engine)) if self.engine else None
        if where is not None:
            env["PYTHONPATH"] = str(where)
        return env


@dataclass(frozen=True)
class Case:
    engine: str  # name==version
    defect: str  # kind (op), as the matrix (docs/audits/index.md) lists it
    api: Api
    code: str  # builds `out` from `a` (and `b`)
    expr: sympy.Expr  # the same function in sympy, of x (and y)
    point: tuple[float, ...]
    #: mpmath's working precisions (two, which must agree): many digits by default (see
    #: sympy_reference); fewer for functions whose mpmath evaluation is slow (polygamma)
    digits: tuple[int, int] = (12_000, 24_000)
    #: the relative error the engine's precision allows: 1e-9 for doubles, FLOAT32 for float32 engines
    rel: float = 1e-9
    #: instead, when set: the units in the last place of the exact double a function called alone
    #: may be off by (ELEMENTARY)
    ulps: float | None = None


#: A float32 engine is off when it is off by more than 8 float32 units in the last place (2**-23 each).
FLOAT32 = 8 * 2.0**-23
#: A framework's function called alone (one kernel of its math library, not a graph of an engine's
#: own ops) is off when it is off by more than 64 units in the last place of the exact double: such
#: libraries promise a few, and 1e-9 relative would pass an error of millions of them.
ELEMENTARY = 64


def edge(engine: str, api: Api, kind: str, op: str, source: str, expr: sympy.Expr, at: float) -> Case:
    return Case(engine, f"{kind} ({op})", api, f"a = V({at!r})\nout = {source}\n", expr, (at,))


def pair(
    engine: str, api: Api, kind: str, op: str, source: str, expr: sympy.Expr, at: tuple[float, float]
) -> Case:
    code = f"a = V({at[0]!r})\nb = V({at[1]!r})\nout = {source}\n"
    return Case(engine, f"{kind} ({op})", api, code, expr, at)


MICROGRAD = Api("from micrograd.engine import Value as V")
SCALARGRAD = Api("from scalargrad import Scalar as V")
PYFIT = Api("from pyfit.engine import Scalar as V")
PROPGRAD = Api("from propgrad import Value as V")
COREGRAD = Api("from coregrad import Scalar as V")
FEMTOGRAD = Api("from femtograd.femtograd import value as V")
TONYGRAD = Api("from tonygrad.engine import Value as V")
BACKPROP = Api("from backprop.engine import Value as V")
GRADFLOW = Api("from micrograd import Node as V", engine="gradflow-kit==0.1.3")  # its own `micrograd`
LILGRAD = Api("from micrograd.engine import Value as V", engine="lilgrad==0.6.0")
NANOGRAD_AMAN = Api("from nanograd.engine import Value as V")
BGRIEBEL = Api("from nanograd_bgriebel import Value as V", backward="{out}.backwards()")
SIMPLEGRAD = Api("from simplegrad import Node as V", data="{v}.data()", grad="{v}.grad()")
CENTIGRAD = Api("from centigrad.variable import Variable as V", data="{v}.value", grad="{v}.grad()",
                backward="pass  # the gradient is computed when it is read")  # fmt: skip
GRADPY = Api(
    "from gradpy.autodiff import Var as V",
    data="{v}.value",
    grad="out.der({v})",
    backward="pass  # the gradient is computed when it is read",
)
GRADIM = Api("from GrADim import ReverseMode as V", data="{v}.value", grad="{v}.derivative",
             backward="pass  # the gradient is computed when it is read")  # fmt: skip
MIKEGRAD = Api("from mikegrad import Value as V")
KAITORCH = Api("from kaitorch.core import Scalar as V")
TINYMLP = Api("from tinymlp import Value as V")
OMNIGRAD = Api("from omnigrad.diffengine import Value as V")
FAUXGRAD = Api("from fauxgrad import Value as V", data="{v}.val", engine="fauxgrad==0.2")
TARDIGRAD = Api("from tardigrad.value import Value as V")
VIZGRAD = Api("from vizgrad import Value as V")
#: PyTorch as the shipped adapter drives it: 0-d float64 tensors that require a gradient.
TORCH = Api(
    "import torch\nV = lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)",
    data="{v}.item()",
    grad="{v}.grad.item()",
)

sigmoid = 1 / (1 + sympy.exp(-x))
tanh = sympy.tanh(x)
gelu = x * (1 + sympy.erf(x / sympy.sqrt(2))) / 2
softsign = x / (1 + sympy.Abs(x))
relu = sympy.Max(x, 0)
silu = x / (1 + sympy.exp(-x))
mish = x * sympy.tanh(sympy.log(1 + sympy.exp(x)))
digamma = sympy.polygamma(0, x)
#: PyTorch's gelu(approximate='tanh'): x / 2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x**3)))
gelu_tanh = x / (1 + sympy.exp(-2 * sympy.sqrt(2 / sympy.pi) * (x + sympy.Rational("0.044715") * x**3)))
GELU_TANH = "torch.nn.functional.gelu(a, approximate='tanh')"
sinc = sympy.sin(sympy.pi * x) / (sympy.pi * x)  # normalised, as torch.sinc
hardsigmoid = (sympy.Max(x + 3, 0) - sympy.Max(x - 3, 0)) / 6  # relu6(x + 3) / 6
atan2 = sympy.atan2(x, y)  # torch.atan2(a, b): a is the ordinate
logaddexp = sympy.log(sympy.exp(x) + sympy.exp(y))
#: The largest double.
TOP = 1.7976931348623157e308
F32_1E_9 = 9.999999717180685e-10  # float32(1e-9), exactly


def powc_at_zero(engine: str, api: Api) -> Case:
    """d(x**0)/dx at 0 is 0; the rule c * x**(c-1) divides by zero there."""
    return edge(engine, api, "crash", "powc", "a ** 0", x**0, 0.0)


def tanh_by_exponentials(engine: str, api: Api) -> list[Case]:
    """tanh as (e^2x - 1)/(e^2x + 1): 0.0 for tiny x (cancellation), OverflowError at 1e4, and at
    the largest double (where 2x is already inf, so math.exp does not raise) inf/inf: nan."""
    return [
        edge(engine, api, "wrong_value", "tanh", "a.tanh()", tanh, 1e-300),
        edge(engine, api, "crash", "tanh", "a.tanh()", tanh, 1e4),
        edge(engine, api, "wrong_gradient", "tanh", "a.tanh()", tanh, 1.7976931348623157e308),
    ]


def sigmoid_overflow(engine: str, api: Api, method: str = "sigmoid", op: str = "sigmoid") -> Case:
    """1 / (1 + math.exp(-x)) raises OverflowError at x = -1e4, where sigmoid is 1.1e-4343 (0.0)."""
    return edge(engine, api, "crash", op, f"a.{method}()", sigmoid, -1e4)


def rdiv_swapped(engine: str, api: Api) -> Case:
    """c / x computed as x / c (or 1 / (x / c)): 0 / x raises ZeroDivisionError where it is 0."""
    return edge(engine, api, "crash", "rdiv", "0 / a", sympy.Integer(0) / x, 1.0)


def rdiv_at_subnormal(engine: str, api: Api) -> Case:
    """0 / x is 0 for every x != 0; computed as 0 * x**-1 (or 0 * reciprocal(x)), it is 0 * inf = nan
    at the smallest subnormal, 5e-324, whose reciprocal overflows."""
    return edge(engine, api, "wrong_value", "rdiv", "0 / a", sympy.Integer(0) / x, 5e-324)


def rdiv_of_zero_at_tiny(engine: str, api: Api) -> Case:
    """0 / x is 0 for every x != 0, and so is its gradient; the rule -c / x**2 (or c * -x**-2)
    overflows at x = 1e-300 on the way, where nothing asked for is out of range."""
    return edge(engine, api, "crash", "rdiv", "0 / a", sympy.Integer(0) / x, 1e-300)


def rdiv_slope_at_tiny(engine: str, api: Api) -> Case:
    """0 / x is 0 for every x != 0, and so is its gradient; -c / x**2 is 0 / 0 = nan at 1e-300,
    where x**2 underflows (or 0 * inf = nan where 1 / x**2 overflows)."""
    return edge(engine, api, "wrong_gradient", "rdiv", "0 / a", sympy.Integer(0) / x, 1e-300)


def torch_second(op: str, source: str, expr: sympy.Expr, at: tuple[float, ...], wrt: str = "a") -> Case:
    """A second derivative of PyTorch's: `out` is the first one, d(source)/d(wrt) kept differentiable
    (`torch.autograd.grad` with `create_graph=True`), beside sympy's d(expr)/d(wrt), so the case's
    gradient is the second derivative (of `wrt`, then of each leaf)."""
    leaves = "ab"[: len(at)]
    code = "".join(f"{leaf} = V({p!r})\n" for leaf, p in zip(leaves, at))
    code += f"out = torch.autograd.grad({source}, {wrt}, create_graph=True)[0]\n"
    first = sympy.diff(expr, dict(zip(leaves, (x, y)))[wrt])
    return Case("torch==2.13.0", f"wrong_gradient ({op})", TORCH, code, first, at)


def div_by_huge(engine: str, api: Api) -> Case:
    """x / y at y = 1e300 is 1.5e-300, d/dy = -x / y**2 rounds to -0.0: finite; y**2 overflows."""
    return pair(engine, api, "crash", "div", "a / b", x / y, (1.5, 1e300))


def rdiv_at_huge(engine: str, api: Api) -> Case:
    """1 / x at 1e300 is 1e-300, its gradient -1 / x**2 rounds to -0.0: finite; x**2 overflows."""
    return edge(engine, api, "crash", "rdiv", "1 / a", 1 / x, 1e300)


CASES = [
    powc_at_zero("micrograd==0.1.0", MICROGRAD),
    powc_at_zero("scalargrad==1.0.5", SCALARGRAD),
    sigmoid_overflow("scalargrad==1.0.5", SCALARGRAD),
    powc_at_zero("propgrad==0.1.1", PROPGRAD),
    edge("propgrad==0.1.1", PROPGRAD, "wrong_value", "sigmoid", "a.sigmoid()", sigmoid, -100.0),
    powc_at_zero("coregrad==0.1.0", COREGRAD),
    # ... the same rule on 0 ** x (x > 0), where 0 ** x is 0 (sympy's expression 0)
    edge("coregrad==0.1.0", COREGRAD, "crash", "rpow", "0 ** a", sympy.Integer(0), 1e-9),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "rpow", "2 ** a", 2**x, 0.0),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "vpow", "a ** a", x**x, 0.5),
    edge("coregrad==0.1.0", COREGRAD, "wrong_value", "tanh", "a.tanh()", tanh, 1e-300),
    edge("coregrad==0.1.0", COREGRAD, "wrong_value", "tanh", "a.tanh()", tanh, 1e4),
    edge("coregrad==0.1.0", COREGRAD, "wrong_gradient", "tanh", "a.tanh()", tanh, 1e4),
    powc_at_zero("femtograd==0.0.5", FEMTOGRAD),
    *tanh_by_exponentials("femtograd==0.0.5", FEMTOGRAD),
    powc_at_zero("tonygrad==2.0.0", TONYGRAD),
    *tanh_by_exponentials("tonygrad==2.0.0", TONYGRAD),
    powc_at_zero("backprop-lib==0.1.0", BACKPROP),
    edge("backprop-lib==0.1.0", BACKPROP, "wrong_gradient", "vpow", "a ** a", x**x, 0.5),
    *tanh_by_exponentials("backprop-lib==0.1.0", BACKPROP),
    # gradflow-kit: __rsub__ and __rtruediv__ return self - other and self / other; __sub__'s
    # backward has both signs wrong; __pow__ and __neg__ set no backward at all.
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_value", "rsub", "1 - a", 1 - x, 3.0),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "rsub", "a * (1 - a)", x * (1 - x), 0.0),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_value", "rdiv", "2 / a", 2 / x, 4.0),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "rdiv", "2 / a", 2 / x, 4.0),
    pair("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "sub", "a - b", x - y, (1.0, 2.0)),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "powc", "a ** 2", x**2, 3.0),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "vpow", "a ** a", x**x, 0.5),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "neg", "-a", -x, 3.0),
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "subc", "a - 1", x - 1, 0.0),
    # ... the stateful check's finding: the same missing backward of `-x`, on a fresh leaf at 0
    edge("gradflow-kit==0.1.3", GRADFLOW, "wrong_gradient", "stateful", "-a", -x, 0.0),
    rdiv_swapped("gradflow-kit==0.1.3", GRADFLOW),
    *tanh_by_exponentials("gradflow-kit==0.1.3", GRADFLOW),
    # lilgrad: micrograd's power rule; sigmoid through math.exp(-x)
    powc_at_zero("lilgrad==0.6.0", LILGRAD),
    # ... `__abs__` and `__pos__` return a new Value with no parents: the gradient stops there
    edge("lilgrad==0.6.0", LILGRAD, "wrong_gradient", "abs", "abs(a)", sympy.Abs(x), 0.3),
    edge("lilgrad==0.6.0", LILGRAD, "wrong_gradient", "pos", "+a", x, 0.3),
    sigmoid_overflow("lilgrad==0.6.0", LILGRAD),
    # nanograd-aman: __rsub__ is `self - other`
    edge("nanograd-aman==0.1.0", NANOGRAD_AMAN, "wrong_value", "rsub", "1 - a", 1 - x, 3.0),
    edge("nanograd-aman==0.1.0", NANOGRAD_AMAN, "wrong_gradient", "rsub", "1 - a", 1 - x, 3.0),
    powc_at_zero("nanograd-aman==0.1.0", NANOGRAD_AMAN),
    *tanh_by_exponentials("nanograd-aman==0.1.0", NANOGRAD_AMAN),
    # nanograd-bgriebel (C++): 0 * pow(0, -1) = 0 * inf = nan
    edge("nanograd-bgriebel==0.1.4", BGRIEBEL, "wrong_gradient", "powc", "a ** 0", x**0, 0.0),
    rdiv_at_subnormal("nanograd-bgriebel==0.1.4", BGRIEBEL),
    rdiv_slope_at_tiny("nanograd-bgriebel==0.1.4", BGRIEBEL),
    # simplegrad (C++, float32 values, judged at float32 precision): relu is a leaky relu of slope 0.2;
    # the power adds 1e-9 to its base, (x + 1e-9) ** c, and division is x * y ** -1 through it
    *(
        dataclasses.replace(case, rel=FLOAT32)
        for case in (
            edge("simplegrad==0.1.0", SIMPLEGRAD, "wrong_value", "relu", "a.relu()", relu, -1.0),
            edge("simplegrad==0.1.0", SIMPLEGRAD, "wrong_gradient", "relu", "a.relu()", relu, -1.0),
            # ... and the stateful check's finding: the same leaky relu, on a fresh leaf at -1
            edge("simplegrad==0.1.0", SIMPLEGRAD, "wrong_gradient", "stateful", "a.relu()", relu, -1.0),
            edge("simplegrad==0.1.0", SIMPLEGRAD, "wrong_value", "powc", "a ** 2", x**2, 0.0),
            edge("simplegrad==0.1.0", SIMPLEGRAD, "wrong_gradient", "powc", "a ** 2", x**2, 0.0),
            # 9.999999717180685e-10 is float32(1e-9): the point is exact in the engine's precision
            pair("simplegrad==0.1.0", SIMPLEGRAD, "wrong_value", "div", "a / b", x / y, (1.5, F32_1E_9)),
            pair("simplegrad==0.1.0", SIMPLEGRAD, "wrong_gradient", "div", "a / b", x / y, (1.5, F32_1E_9)),
        )
    ),
    # centigrad: the local derivative c * x**(c-1) is computed in the forward pass
    powc_at_zero("centigrad==0.1.3", CENTIGRAD),
    sigmoid_overflow("centigrad==0.1.3", CENTIGRAD),
    # GrADim: tanh from exponentials (numpy: nan at 1e4, not an exception)
    powc_at_zero("GrADim==0.0.5", GRADIM),
    edge("GrADim==0.0.5", GRADIM, "wrong_value", "tanh", "a.tanh()", tanh, 1e-300),
    edge("GrADim==0.0.5", GRADIM, "wrong_value", "tanh", "a.tanh()", tanh, 1e4),
    edge("GrADim==0.0.5", GRADIM, "wrong_gradient", "tanh", "a.tanh()", tanh, 1e4),
    # GrADim: cosh's derivative as (e**x - e**-x) / 2 cancels to 0 at 1e-20 (sinh(1e-20) = 1e-20)
    edge("GrADim==0.0.5", GRADIM, "wrong_gradient", "cosh", "a.cosh()", sympy.cosh(x), 1e-20),
    # ... and logistic 1 / (1 + e^-x) through numpy: e^-x = inf at -1e20, the derivative inf / inf = nan
    edge("GrADim==0.0.5", GRADIM, "wrong_gradient", "logistic/sigmoid", "a.logistic()", sigmoid, -1e20),
    # ... cosh and sinh as (e^x +- e^-x) / 2: inf where e^x overflows but the result does not, and
    # sinh(1e-20) cancels to 0.0
    edge("GrADim==0.0.5", GRADIM, "wrong_value", "cosh", "a.cosh()", sympy.cosh(x), 710.4758600739439),
    edge("GrADim==0.0.5", GRADIM, "wrong_value", "sinh", "a.sinh()", sympy.sinh(x), 710.4758600739439),
    edge("GrADim==0.0.5", GRADIM, "wrong_value", "sinh", "a.sinh()", sympy.sinh(x), 1e-20),
    # ... and d(0 ** x)/dx through x * 0 ** (x - 1) + ln(0) * 0 ** x: nan. 0 ** x is 0 for every x > 0
    edge("GrADim==0.0.5", GRADIM, "wrong_gradient", "rpow", "0 ** a", sympy.Integer(0), 1.0),
    # gradpy: the power rule's c * x**(c-1) at 0 with c = 0
    powc_at_zero("gradpy==1.0.0", GRADPY),
    # ... which `Power.der` also evaluates when the base is a constant (times its derivative 0):
    # at 3 ** x near the top of the doubles x * 3**(x-1) overflows to inf, and inf * 0 is nan
    edge(
        "gradpy==1.0.0",
        GRADPY,
        "wrong_gradient",
        "rpow",
        "3.0 ** a",
        sympy.Integer(3) ** x,
        645.9864616352966,
    ),
    # ... and at 0 ** x (x > 0), 0.0 ** (x - 1) raises. 0 ** x is 0 for every x > 0: sympy's expression 0
    edge("gradpy==1.0.0", GRADPY, "crash", "rpow", "0 ** a", sympy.Integer(0), 1e-9),
    # mikegrad: log clamps its argument to [1e-8, 1 - 1e-8] (meant for probabilities)
    edge("mikegrad==0.2.0", MIKEGRAD, "wrong_value", "log", "a.log()", sympy.log(x), 2.0),
    edge("mikegrad==0.2.0", MIKEGRAD, "wrong_gradient", "log", "a.log()", sympy.log(x), 2.0),
    edge("mikegrad==0.2.0", MIKEGRAD, "wrong_value", "log", "a.log()", sympy.log(x), 1e-9),
    powc_at_zero("mikegrad==0.2.0", MIKEGRAD),
    *tanh_by_exponentials("mikegrad==0.2.0", MIKEGRAD),
    sigmoid_overflow("mikegrad==0.2.0", MIKEGRAD),
    # kaitorch: (x + 1e-8) ** c, x * (c + 1e-8) ** -1, log(x + 1e-8)
    edge("kaitorch==0.1.0", KAITORCH, "wrong_value", "powc", "a ** 2", x**2, 3.0),
    # ... and the power rule differentiates the unfudged x**c: right alone, wrong through a second power
    edge("kaitorch==0.1.0", KAITORCH, "wrong_gradient", "powc", "(a ** 2) ** 2", x**4, 0.125),
    edge("kaitorch==0.1.0", KAITORCH, "wrong_value", "divc", "a / 3", x / 3, 1.0),
    edge("kaitorch==0.1.0", KAITORCH, "wrong_gradient", "divc", "a / 3", x / 3, 1.0),
    pair("kaitorch==0.1.0", KAITORCH, "wrong_value", "div", "a / b", x / y, (1.0, 3.0)),
    pair("kaitorch==0.1.0", KAITORCH, "wrong_gradient", "div", "a / b", x / y, (1.0, 3.0)),
    edge("kaitorch==0.1.0", KAITORCH, "wrong_value", "log", "a.log()", sympy.log(x), 0.5),
    edge("kaitorch==0.1.0", KAITORCH, "wrong_gradient", "log", "a.log()", sympy.log(x), 0.5),
    powc_at_zero("kaitorch==0.1.0", KAITORCH),
    powc_at_zero("tinymlp==0.1.0", TINYMLP),
    # omnigrad: digamma by a central difference without the 1/2; softsign's derivative 0 at 0
    powc_at_zero("omnigrad==0.2.3", OMNIGRAD),
    *tanh_by_exponentials("omnigrad==0.2.3", OMNIGRAD),
    sigmoid_overflow("omnigrad==0.2.3", OMNIGRAD, method="sigmod", op="sigmoid/sigmod"),
    edge("omnigrad==0.2.3", OMNIGRAD, "wrong_gradient", "softsign", "a.softsign()", softsign, 0.0),
    # ... `__rtruediv__` is `Value(1) / (self / other)`: 0 / x raises, and c / x underflows through x / c
    rdiv_swapped("omnigrad==0.2.3", OMNIGRAD),
    edge(
        "omnigrad==0.2.3",
        OMNIGRAD,
        "wrong_value",
        "rdiv",
        "0.5 / a",
        sympy.Rational(1, 2) / x,
        1.7976931348623157e308,
    ),
    dataclasses.replace(
        edge(
            "omnigrad==0.2.3",
            OMNIGRAD,
            "wrong_gradient",
            "gamma/gamma_actual",
            "a.gamma_actual()",
            sympy.gamma(x),
            2.5,
        ),
        digits=(60, 120),
    ),
    sigmoid_overflow("fauxgrad==0.2", FAUXGRAD),
    # tardigrad: gelu assigns its backward to its input (`self.grad_fn = grad_fn`), not to its output:
    # right on a leaf (whose own backward it replaces), but an interior input's backward is lost, so
    # nothing reaches the leaves below it; and a leaf used in two gelus keeps only the last share
    edge("tardigrad==0.1.0", TARDIGRAD, "wrong_gradient", "gelu", "(a * 1).gelu()", gelu, 1.0),
    edge("tardigrad==0.1.0", TARDIGRAD, "wrong_gradient", "gelu", "a.gelu() + a.gelu()", 2 * gelu, 1.0),
    # ... and x * (1 + erf(x / sqrt 2)) / 2 cancels to -0.0 far left, where gelu is -6.47e-61
    edge("tardigrad==0.1.0", TARDIGRAD, "wrong_value", "gelu", "a.gelu()", gelu, -16.63497187569737),
    powc_at_zero("tardigrad==0.1.0", TARDIGRAD),
    *tanh_by_exponentials("tardigrad==0.1.0", TARDIGRAD),
    sigmoid_overflow("tardigrad==0.1.0", TARDIGRAD),
    # vizgrad (numpy): 0 * 0.0 ** -1 = 0 * inf = nan, with a warning instead of an exception
    edge("vizgrad==0.1.2", VIZGRAD, "wrong_gradient", "powc", "a ** 0", x**0, 0.0),
    # ... and `__pow__` returns None for an exponent neither int, float nor Value (a Fraction)
    edge(
        "vizgrad==0.1.2",
        Api(VIZGRAD.imports + "\nfrom fractions import Fraction"),
        "crash",
        "powc",
        "a ** Fraction(1, 2)",
        sympy.sqrt(x),
        1.0,
    ),
    # ... which, added to a Value, gives a Value of nan (Value(None) is a 0-d array of nan), no error
    pair(
        "vizgrad==0.1.2",
        Api(VIZGRAD.imports + "\nfrom fractions import Fraction"),
        "wrong_value",
        "powc",
        "a ** Fraction(1, 2) + b ** 2",
        sympy.sqrt(x) + y**2,
        (2.154802097563916, 0.0),
    ),
    rdiv_at_subnormal("vizgrad==0.1.2", VIZGRAD),
    rdiv_slope_at_tiny("vizgrad==0.1.2", VIZGRAD),
    # torch: `__rdiv__` is `self.reciprocal() * other`, and 1 / 5e-324 overflows to inf; reciprocal's
    # backward `-grad * (result * result)` is 0 * inf at 1e-300
    rdiv_at_subnormal("torch==2.13.0", TORCH),
    rdiv_slope_at_tiny("torch==2.13.0", TORCH),
    # ... and its elementwise functions, as a person calls them (torch.* and torch.nn.functional.*):
    # intermediates that overflow (x*x, y*y, x * ln 10, pi*x, x**3, exp(-x)), cancellations (1 + erf,
    # 1 + tanh, x - tanh x, 1/d - (|x|/d)/d), mish's subnormal softplus and hardsigmoid's slope 1/6
    # as a float32 constant
    *(
        edge("torch==2.13.0", TORCH, kind, op, source, expr, at)
        for kind, op, source, expr, at in [
            ("wrong_gradient", "acosh", "torch.acosh(a)", sympy.acosh(x), 1e300),
            ("wrong_gradient", "asinh", "torch.asinh(a)", sympy.asinh(x), 1e300),
            ("wrong_gradient", "log10", "torch.log10(a)", sympy.log(x, 10), TOP),
            ("wrong_value", "sinc", "torch.sinc(a)", sinc, TOP),
            ("wrong_gradient", "sinc", "torch.sinc(a)", sinc, TOP),
            ("wrong_gradient", "gelu_tanh", GELU_TANH, gelu_tanh, 1e300),
            ("wrong_value", "gelu_tanh", GELU_TANH, gelu_tanh, -21.17688025178522),
            ("wrong_value", "gelu", "torch.nn.functional.gelu(a)", gelu, -37.615868313955986),
            ("wrong_value", "silu", "torch.nn.functional.silu(a)", silu, -714.9686572379665),
            ("wrong_gradient", "silu", "torch.nn.functional.silu(a)", silu, -714.9686572379665),
            ("wrong_gradient", "mish", "torch.nn.functional.mish(a)", mish, -714.9686572379665),
            ("wrong_gradient", "softsign", "torch.nn.functional.softsign(a)", softsign, 1e20),
            ("wrong_value", "tanhshrink", "torch.nn.functional.tanhshrink(a)", x - tanh, 1e-20),
            ("wrong_gradient", "hardsigmoid", "torch.nn.functional.hardsigmoid(a)", hardsigmoid, -2.5),
        ]
    ),
    pair("torch==2.13.0", TORCH, "wrong_gradient", "atan2", "torch.atan2(a, b)", atan2, (1e300, 1.5)),
    pair(
        "torch==2.13.0",
        TORCH,
        "wrong_gradient",
        "tanhshrink",
        "torch.nn.functional.tanhshrink(a * b)",
        x * y - sympy.tanh(x * y),
        (1.0, 1.175494351e-38),
    ),
    # ... second derivatives: 0 * inf where a first derivative's factor is 0 and another inf (x**2 in
    # erf's and gelu's, exp in logaddexp's, log(0) in the unselected branch of 0 ** x), and the power
    # rule's mask `exponent == 0` selecting a constant, so d/dy of d(x**y)/dx at y = 0 is 0
    torch_second("erf", "torch.erf(a)", sympy.erf(x), (TOP,)),
    torch_second("gelu", "torch.nn.functional.gelu(a)", gelu, (1e300,)),
    torch_second("logaddexp", "torch.logaddexp(a, b)", logaddexp, (1e20, 1.5), wrt="b"),
    # 0 ** x is 0 for every x > 0: sympy's expression 0
    torch_second("rpow", "0 ** a", sympy.Integer(0), (1.0,)),
    torch_second("vpow", "a ** b", x**y, (1.5, 0.0)),
    # errors below 1e-9 relative but of millions of units in the last place (trigamma's short series,
    # digamma' and lgamma''), or hundreds where softplus is subnormal (mish), by ELEMENTARY's bound
    *(
        dataclasses.replace(case, ulps=ELEMENTARY)
        for case in [
            dataclasses.replace(
                edge("torch==2.13.0", TORCH, "wrong_gradient", "digamma", "torch.digamma(a)", digamma, 1.0),
                digits=(60, 120),
            ),
            dataclasses.replace(
                torch_second("lgamma", "torch.lgamma(a)", sympy.loggamma(x), (1.0,)), digits=(60, 120)
            ),
            edge(
                "torch==2.13.0",
                TORCH,
                "wrong_value",
                "mish",
                "torch.nn.functional.mish(a)",
                mish,
                -714.9686572379665,
            ),
        ]
    ),
    # exact results that are ordinary (0) or round to a finite float, where only an intermediate
    # (x**2, 1/x, exp(x)) overflows: a crash, not a range limit
    *(
        rdiv_of_zero_at_tiny(engine, api)
        for engine, api in [
            ("micrograd==0.1.0", MICROGRAD),
            ("scalargrad==1.0.5", SCALARGRAD),
            ("propgrad==0.1.1", PROPGRAD),
            ("pyfit==1.0.2", PYFIT),
            ("femtograd==0.0.5", FEMTOGRAD),
            ("tonygrad==2.0.0", TONYGRAD),
            ("backprop-lib==0.1.0", BACKPROP),
            ("lilgrad==0.6.0", LILGRAD),
            ("centigrad==0.1.3", CENTIGRAD),
            ("tinymlp==0.1.0", TINYMLP),
            ("tardigrad==0.1.0", TARDIGRAD),
        ]
    ),
    *(
        div_by_huge(engine, api)
        for engine, api in [
            ("coregrad==0.1.0", COREGRAD),
            ("gradflow-kit==0.1.3", GRADFLOW),
            ("gradpy==1.0.0", GRADPY),
            ("GrADim==0.0.5", GRADIM),
            ("omnigrad==0.2.3", OMNIGRAD),
        ]
    ),
    *(
        rdiv_at_huge(engine, api)
        for engine, api in [
            ("coregrad==0.1.0", COREGRAD),
            ("gradpy==1.0.0", GRADPY),
            ("GrADim==0.0.5", GRADIM),
        ]
    ),
    # atan(1e300) is pi/2, its derivative 1 / (1 + x**2) rounds to 0.0: x**2 overflows
    edge("GrADim==0.0.5", GRADIM, "crash", "arctan/atan", "a.arctan()", sympy.atan(x), 1e300),
    # softsign(1e300) is 1 - 1e-300, its derivative 1 / (1 + |x|)**2 rounds to 0.0
    edge("omnigrad==0.2.3", OMNIGRAD, "crash", "softsign", "a.softsign()", softsign, 1e300),
    # the backward of gamma_actual evaluates the engine's gamma at x - 1e-6, which refuses a
    # non-positive argument: at x = 5e-7, where the gamma is 2e6 and its derivative -4e12
    dataclasses.replace(
        edge(
            "omnigrad==0.2.3",
            OMNIGRAD,
            "crash",
            "gamma/gamma_actual",
            "a.gamma_actual()",
            sympy.gamma(x),
            5e-7,
        ),
        digits=(60, 120),
    ),
    # gelu(1e300) is 1e300 (erf is 1), its derivative 1: the forward overflows on the way
    edge("tardigrad==0.1.0", TARDIGRAD, "crash", "gelu", "a.gelu()", gelu, 1e300),
]

_RUN = """\
{imports}
try:
{code}
    {backward}
    print(repr([float({data})] + [{grads}]))
except Exception as exc:
    print(repr(f"{{type(exc).__name__}}: {{exc}}"))
"""


def run_engine(case: Case, seed: str = "0") -> object:
    api = case.api
    leaves = ["a", "b"][: len(case.point)]
    code = "\n".join("    " + line for line in case.code.strip().splitlines())
    grads = ", ".join(f"float({api.grad.format(v=leaf)})" for leaf in leaves)
    program = _RUN.format(imports=api.imports, code=code, backward=api.backward.format(out="out"),
                          data=api.data.format(v="out"), grads=grads)  # fmt: skip
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          env=api.env(seed), check=True, cwd="/")  # fmt: skip
    return eval(done.stdout.strip().splitlines()[-1], {"nan": math.nan, "inf": math.inf})


def sympy_reference(case: Case) -> list[float]:
    """sympy's value and derivatives, evaluated by mpmath at 12,000 and 24,000 digits (they must agree).

    So many digits because 1 - tanh(x)**2 at x = 1e4 is 4e-8686: at fewer digits it cancels to
    0 (and sympy.N(expr, 30) even returns a wrong 1e-165 for it).
    """
    symbols = (x, y)[: len(case.point)]
    exprs = [case.expr, *(sympy.diff(case.expr, s) for s in symbols)]
    f = sympy.lambdify(symbols, exprs, modules="mpmath")
    results = []
    for dps in case.digits:
        with mpmath.workdps(dps):
            results.append([float(v) for v in f(*(mpmath.mpf(p) for p in case.point))])
    assert results[0] == results[1], results
    return results[0]


def off(got: float, want: float, rel: float = 1e-9, ulps: float | None = None) -> bool:
    if got != got:  # NaN
        return True
    if ulps is not None:
        return abs(got - want) > ulps * math.ulp(want)
    return abs(got - want) > rel * max(abs(want), 1e-300)


def verdict(case: Case, want: list[float], got: object) -> str:
    kind = case.defect.split()[0]
    if isinstance(got, str):
        return "CONFIRMED" if kind == "crash" else f"engine raised ({got}), reported as {kind}"
    assert isinstance(got, list)
    if kind == "wrong_value":
        return (
            "CONFIRMED" if off(got[0], want[0], case.rel, case.ulps) else "NOT confirmed: the value is right"
        )
    if kind == "wrong_gradient":
        bad = [i for i in range(1, len(want)) if off(got[i], want[i], case.rel, case.ulps)]
        return "CONFIRMED" if bad else "NOT confirmed: the gradient is right"
    return f"NOT confirmed: no {kind}"


#: d/dx of x*w0 + x*w1 + ... at x = 1 is w0 + w1 + ...: a float sum whose value depends on the order.
WEIGHTS = (1e16, 1.0, -1e16, 1.0, 3.0, 1e16, -1e16, 0.5, 2.0, -3.0)
_FAN_OUT = """\
{imports}
seen, kept = set(), []
for i in range(10):
    kept.append([object() for _ in range(7 * i)])
    a = V(1.0)
    terms = [a * V(w) for w in {weights}]
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    {backward}
    kept.append(out)
    seen.add(float({grad}))
print(sorted(seen))
"""
NONDETERMINISTIC = {
    "micrograd==0.1.0": MICROGRAD, "scalargrad==1.0.5": SCALARGRAD, "propgrad==0.1.1": PROPGRAD,
    "pyfit==1.0.2": PYFIT, "femtograd==0.0.5": FEMTOGRAD,
    "tonygrad==2.0.0": TONYGRAD, "backprop-lib==0.1.0": BACKPROP,
    # parents in a set (a frozenset for lilgrad), Values hashed by address
    "lilgrad==0.6.0": LILGRAD, "nanograd-aman==0.1.0": NANOGRAD_AMAN, "mikegrad==0.2.0": MIKEGRAD,
    "kaitorch==0.1.0": KAITORCH, "tinymlp==0.1.0": TINYMLP, "omnigrad==0.2.3": OMNIGRAD,
}  # fmt: skip


def confirm_nondeterminism(engine: str, api: Api) -> bool:
    exact = sum(sympy.Rational(w) for w in WEIGHTS)
    lines = dict(imports=api.imports, backward=api.backward.format(out="out"), grad=api.grad.format(v="a"))
    program = _FAN_OUT.format(weights=repr(WEIGHTS), **lines)
    seen = set()
    for seed in ("0", "1"):
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True,
                              text=True, env=api.env(seed), check=True, cwd="/")  # fmt: skip
        seen.update(eval(done.stdout.strip().splitlines()[-1]))
    confirmed = len(seen) > 1
    result = "CONFIRMED" if confirmed else "NOT confirmed: one value"
    print(f"{engine:24} {'nondeterministic':26} dy/dx = {sympy.N(exact)} exactly; engine gave {sorted(seen)}")
    print(f"{'':24} {'':26}    over 10 builds x PYTHONHASHSEED 0, 1 -> {result}")
    return confirmed


#: y = x; y = y + y (n times): dy/dx = 2**n through 2**n paths. A gradient that walks every path
#: (no memo of what it already summed) takes twice as long for each step more.
_DOUBLING = """\
import time
{imports}
for n in {steps}:
    a = V(1.0)
    out = a
    for _ in range(n):
        out = out + out
    start = time.perf_counter()
    {backward}
    g = float({grad})
    print(n, g, time.perf_counter() - start)
"""
EXPONENTIAL = {"centigrad==0.1.3": CENTIGRAD, "GrADim==0.0.5": GRADIM, "gradpy==1.0.0": GRADPY}


def confirm_exponential_time(engine: str, api: Api, steps: tuple[int, int] = (12, 16)) -> bool:
    """CONFIRMED when 4 more doublings take more than 4 times as long (8 would be 2**3: a linear
    backward takes about 1.3 times as long) and the gradient is right (2**n, by sympy)."""
    lines = dict(imports=api.imports, backward=api.backward.format(out="out"), grad=api.grad.format(v="a"))
    program = _DOUBLING.format(steps=repr(steps), **lines)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          env=api.env(), check=True, cwd="/")  # fmt: skip
    rows = [line.split() for line in done.stdout.strip().splitlines()[-2:]]
    (n0, g0, t0), (n1, g1, t1) = ((int(n), float(g), float(t)) for n, g, t in rows)
    exact = [sympy.diff(sympy.Mul(2**n, x), x) for n in (n0, n1)]  # y = 2**n * x
    right = [g0, g1] == [float(e) for e in exact]
    ratio = t1 / max(t0, 1e-9)
    confirmed = right and ratio > 4
    result = "CONFIRMED" if confirmed else f"NOT confirmed (ratio {ratio:.1f}, gradients right: {right})"
    print(f"{engine:24} {'exponential_time':26} y = x doubled n times, dy/dx = 2**n (sympy {exact})")
    print(f"{'':24} {'':26}    engine: n={n0}: {g0} in {t0:.3f} s, n={n1}: {g1} in {t1:.3f} s "
          f"(x{ratio:.0f}) -> {result}")  # fmt: skip
    return confirmed


#: y = x; y = y*w + b (n times) with w = 1, b = 0: dy/dx = 1 (sympy). A backward that recurses once
#: per node in C++ overflows the C stack and the interpreter dies of a signal.
_CHAIN = """\
{imports}
a = V(0.5)
out = a
for _ in range({steps}):
    out = out * V(1.0) + V(0.0)
{backward}
print(float({grad}))
"""
#: The engines whose backward killed the interpreter on a long chain, with the length it died at.
DEEP = {"nanograd-bgriebel==0.1.4": (BGRIEBEL, 43_750), "simplegrad==0.1.0": (SIMPLEGRAD, 66_250)}


def confirm_deep_crash(engine: str, api: Api, steps: int) -> bool:
    """CONFIRMED when backward() of the chain kills the interpreter (a signal) where sympy's dy/dx is 1."""
    lines = dict(imports=api.imports, backward=api.backward.format(out="out"), grad=api.grad.format(v="a"))
    program = _CHAIN.format(steps=steps, **lines)
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", program], capture_output=True, text=True,
                          env=api.env(), cwd="/")  # fmt: skip
    exact = sympy.diff(x, x)  # y*1 + 0 is y, so the chain is y = x
    confirmed = done.returncode < 0
    got = f"killed by signal {-done.returncode}" if confirmed else f"exit {done.returncode}: {done.stdout}"
    result = "CONFIRMED" if confirmed else "NOT confirmed"
    print(f"{engine:24} {'crash (depth)':26} chain y = y*1 + 0 of {steps:,} steps, dy/dx = {exact} (sympy)")
    print(f"{'':24} {'':26}    engine: {got} -> {result}")
    return confirmed


def op_key(op: str | None) -> str:
    """An op as the audit names it (a table name such as `rsub`, or a form such as `c - v`,
    `v.tanh()`) reduced to one key, so that this file's cases can be matched to the report."""
    if not op:
        return ""
    forms = {
        "v + w": "add", "v * w": "mul", "-v": "neg", "v - w": "sub", "v / w": "div", "v + c": "addc",
        "c + v": "radd", "c - v": "rsub", "v - c": "subc", "c * v": "mulc", "v * c": "vmulc",
        "c / v": "rdiv", "v / c": "divc", "v ** c": "powc", "v ** w": "vpow", "c ** v": "rpow",
    }  # fmt: skip
    op = op.strip()
    if op in forms:
        return forms[op]
    if op.startswith("v.") and op.endswith("()"):
        return op[2:-2]
    if op.startswith("__") and op.endswith("__") and len(op) > 4:  # a dunder method: __abs__ is abs
        return op[2:-2]
    return op


def op_names(op: str | None, aliases: dict[str, str]) -> set[str]:
    """Every name a reported op goes by: an extra op is reported as `method~table op` (`~?` when no
    table op matched it: `gamma_actual~?`), and an alias names a table op (`ln` is `log`)."""
    parts = [op_key(part) for part in (op or "").split("~")]
    return {name for p in parts for name in (p, op_key(aliases.get(p, p)))} - {"", "?"}


def coverage(confirmed: set[tuple[str, str, str]], chosen: Callable[[str], bool]) -> int:
    """Every defect of the last `.ci/audits.py` run (its saved results) against the cases confirmed
    here: prints each one no case confirmed, returns how many."""
    results = RESULTS
    if not results.is_dir():
        print("\ncoverage: no saved audit results (run .ci/audits.py first)")
        return 0
    missing = 0
    reported: set[tuple[str, str, str]] = set()
    print("\ncoverage: each defect the audits reported, against the cases confirmed above")
    for requirement, name in [*((e.requirement, e.name) for e in ENGINES), ("this repository", "autograd")]:
        path = results / f"{name}.json"
        if not (chosen(requirement) or chosen(name)) or not path.exists():
            continue
        result = json.loads(path.read_text())
        if result.get("status") != "audited":
            continue
        report = result["json"]
        aliases = report.get("capabilities", {}).get("aliases") or {}  # {"ln": "log"}: either name will do
        for f in report["findings"]:
            if f["kind"] not in DEFECT_KINDS:
                continue
            names = op_names(f.get("op"), aliases)
            reported |= {(requirement, f["kind"], n) for n in names or {f["check"]}}
            same_kind = [c for c in confirmed if c[:2] == (requirement, f["kind"])]
            # a finding about no op in particular (a depth probe's crash, a stateful sequence) needs a
            # case named after its check: a case about some op is no confirmation of it
            ok = any(not c[2] or (names or {f["check"]}) & set(c[2].split("/")) for c in same_kind)
            if not ok:
                missing += 1
                print(f"  NOT COVERED {requirement:24} {f['kind']} ({f.get('op')}): {f['summary'][:110]}")
    print(f"coverage: {missing} reported defect(s) without a confirming case")
    # the other way round (information, not a failure): what was confirmed here and the audit missed
    audited = {r for r, _, _ in reported} | {
        e.requirement
        for e in ENGINES
        if (RESULTS / f"{e.name}.json").exists()
        and json.loads((RESULTS / f"{e.name}.json").read_text()).get("status") == "audited"
    }
    missed = sorted(
        c
        for c in confirmed
        if c[0] in audited
        and not any((c[0], c[1], op) in reported for op in c[2].split("/"))
        and not (c[2] == "" and any(r[:2] == c[:2] for r in reported))
    )
    print(f"missed by the audit: {len(missed)} confirmed defect(s) (engine, kind, op) of audited engines")
    for c in missed:
        print(f"  {c[0]:24} {c[1]} ({c[2] or '-'})")
    return missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", metavar="NAMES", help="comma-separated name==version (default: all)")
    parser.add_argument(
        "--no-coverage", action="store_true", help="skip the comparison with the audit results"
    )
    args = parser.parse_args()
    wanted = set(args.engines.split(",")) if args.engines else None

    def chosen(engine: str) -> bool:
        return wanted is None or engine in wanted or engine.partition("==")[0] in wanted

    failures = 0
    confirmed: set[tuple[str, str, str]] = set()
    for engine, api in NONDETERMINISTIC.items():
        if chosen(engine) and confirm_nondeterminism(engine, api):
            confirmed.add((engine, "nondeterministic", ""))
        elif chosen(engine):
            failures += 1
    for engine, api in EXPONENTIAL.items():
        if chosen(engine) and confirm_exponential_time(engine, api):
            confirmed.add((engine, "exponential_time", ""))
        elif chosen(engine):
            failures += 1
    for engine, (api, steps) in DEEP.items():
        if chosen(engine) and confirm_deep_crash(engine, api, steps):
            confirmed.add((engine, "crash", "depth"))
        elif chosen(engine):
            failures += 1
    for case in CASES:
        if not chosen(case.engine):
            continue
        want = sympy_reference(case)
        got = run_engine(case)
        result = verdict(case, want, got)
        if result.startswith("CONFIRMED"):
            kind, _, ops = case.defect.partition(" ")
            confirmed.add((case.engine, kind, ops.strip("()")))  # "sigmoid/sigmod": either name
        else:
            failures += 1
        point = ", ".join(map(repr, case.point))
        print(f"{case.engine:24} {case.defect:26} at {point:10}  sympy [value, d/dx...] = {want}")
        print(f"{'':24} {'':26}    engine: {got}  -> {result}")
    if not args.no_coverage:
        failures += coverage(confirmed, chosen)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
