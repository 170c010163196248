"""Regenerate docs/audits/: the audit of real scalar autograd engines from the package index.

    tox -e audits                      # = python .ci/audits.py --install
    python .ci/audits.py --install     # installs the pinned engines below, audits them all
    python .ci/audits.py               # the same, with the engines already installed
    python .ci/audits.py --only mikegrad,torch   # re-audit two, the others from the last run
    python .ci/audits.py --render      # audit nothing: the pages from the last run (after editing NOTES)

Installs.  Most engines go into the running environment with their dependencies, in one
``pip install`` (one resolution: a conflict between two engines stops the run at once).  An
engine with ``own_dir`` is installed with ``pip install --no-deps --target .audits/<name>`` (plus
the dependencies listed beside it) and audited with ``PYTHONPATH`` pointing there for its own
audit process only: engines whose top-level package clashes with another's (two distributions
install ``micrograd``) and engines whose declared dependencies do not install.  A distribution
that installs a top-level ``autograd`` (this project's import name) is refused.

Audits.  Each engine is audited through the command line, ``python -m autograd.testing audit
TARGET --json [flags]``, in a child process of its own with a time limit, so that no engine's
import side effects reach another and an engine that segfaults, hangs or cannot be audited
becomes a row saying so rather than the end of the run.  Only the JSON document is read (any
field the harness adds later is carried along), and the per-engine text is rendered from it.

The notes on how each reported defect was confirmed are written by hand, after checking every
defect against sympy (``.ci/confirm_audits.py``): they live in NOTES below and go into the
engines' pages as they are.

Pages.  docs/audits/index.md holds the matrix (engine by defect class), how to read it and the
corpus; docs/audits/<engine>.md one engine each (``page_of``): what was audited, its defects with
their reproducers, the notes, its facts and the report.  Both are written from the saved results
alone, so ``--render`` writes the same pages as the run did.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the autograd of this checkout, installed or not
from autograd.testing.findings import DEFECT_KINDS, SEVERITIES, Severity  # noqa: E402

#: Where engines installed with --target live (each in its own directory) and the last run's results.
AUDITS_DIR = Path(os.environ.get("AUDITS_DIR", ROOT / ".audits"))
#: Each audit's result as JSON (committed: the pages are rendered from them alone, and
#: tests/test_audits_pages.py checks that they are), for --render, --only and .ci/confirm_audits.py.
RESULTS = ROOT / ".ci" / "audit-results"
#: The generated pages: index.md (the matrix) and one page per engine.
DOCS = ROOT / "docs" / "audits"
#: Seconds one audit may take before its process group is killed (the row then says so): omnigrad's
#: audit (a gamma integrated in a million Python steps per call) took 1005 s on a loaded 2-core machine.
DEFAULT_TIMEOUT = 1800
TORCH_ADAPTER = "autograd.testing.adapters:torch_float64"


@dataclass(frozen=True)
class Audited:
    requirement: str  # name==version, what is installed
    target: str | None  # the CLI's TARGET (None when an adapter names the engine)
    why: str  # why this engine is in the list
    args: tuple[str, ...] = ()  # more CLI arguments: --adapter, --class, ...
    own_dir: str = ""  # why it is installed into .audits/<name> ("" = into the environment)
    deps: tuple[str, ...] = ()  # installed with it: undeclared dependencies, or those of an own_dir

    @property
    def name(self) -> str:
        return self.requirement.partition("==")[0]

    @property
    def label(self) -> str:
        return f"{self.requirement} (adapter)" if "--adapter" in self.args else self.requirement


ENGINES = (
    Audited("micrograd==0.1.0", "micrograd.engine", "the reference scalar engine everyone copies"),
    Audited("scalargrad==1.0.5", "scalargrad", "class Scalar; converts every number to float"),
    Audited("propgrad==0.1.1", "propgrad", "refuses Fraction data (TypeError)"),
    Audited("pyfit==1.0.2", "pyfit.engine", "class Scalar; no pow, tanh, exp, log, sigmoid"),
    Audited("coregrad==0.1.0", "coregrad", "class Scalar; numpy tanh; parents in a tuple"),
    Audited("femtograd==0.0.5", "femtograd.femtograd", "class value (lower case), parents in .prev"),
    Audited("tonygrad==2.0.0", "tonygrad.engine", "micrograd with tanh"),
    Audited("backprop-lib==0.1.0", "backprop.engine", "micrograd with tanh and exp, Value ** Value"),
    Audited(
        "gradflow-kit==0.1.3",
        "micrograd",
        "class Node; a container of its children (bool(leaf) is False)",
        own_dir="installs a top-level `micrograd`, as micrograd does",
        deps=("graphviz==0.21",),
    ),
    Audited(
        "lilgrad==0.6.0",
        "micrograd.engine",
        "all five functions; float data only, validates input",
        own_dir="installs a top-level `micrograd`, as micrograd does",
    ),
    Audited("nanograd-aman==0.1.0", "nanograd.engine", "tanh and exp; parents in a set; no 2 / x"),
    Audited(
        "nanograd-bgriebel==0.1.4",
        "nanograd_bgriebel",
        "compiled (C++/pybind11): data and grad are properties of the class, backward is backwards()",
    ),
    Audited(
        "simplegrad==0.1.0",
        "simplegrad",
        "compiled (C++/pybind11): data() and grad() are methods; float32 values",
    ),
    Audited(
        "centigrad==0.1.3",
        "centigrad.variable",
        "gradient on read: x.grad() sums d/dx over every expression built from x; number in .value",
    ),
    Audited(
        "gradpy==1.0.0",
        "gradpy.autodiff",
        "gradient on read: out.der(x) (a method of the output); expression tree re-evaluated on each read",
    ),
    Audited(
        "GrADim==0.0.5",
        "GrADim",
        "gradient on read: the property x.derivative, one entry per output",
    ),
    Audited("mikegrad==0.2.0", "mikegrad", "all five functions, leaky_relu, Value ** Value"),
    Audited("kaitorch==0.1.0", "kaitorch.core", "class Scalar; 1e-8 added inside pow, division and log"),
    Audited("tinymlp==0.1.0", "tinymlp", "all five functions; data converted to float"),
    Audited("omnigrad==0.2.3", "omnigrad.diffengine", "table ops under other names: ln, reLU, sigmod"),
    Audited(
        "fauxgrad==0.2",
        "fauxgrad",
        "number in .val; no sub, div or pow",
        own_dir="its declared dependencies do not install (sklearn>=0.21 is a stub that refuses)",
    ),
    Audited(
        "tardigrad==0.1.0",
        "tardigrad.value",
        "tanh, relu, sigmoid, gelu; parents in a tuple",
        deps=("graphviz==0.21",),  # imported at the top of tardigrad/value.py, not declared
    ),
    Audited("vizgrad==0.1.2", "vizgrad", "data and grad are 0-d numpy arrays (read as their numbers)"),
    Audited(
        # PyPI serves Linux x86_64 a CUDA build of torch (2.14.1: a 555 MB wheel and 2.2 GB of the
        # nvidia-* wheels it requires); this project's machines keep the CPU build of 2.13.0 (190 MB)
        # on disk, which pip takes. See tox.ini.
        "torch==2.13.0",
        None,
        "PyTorch through 0-d float64 tensors: the shipped adapter",
        args=("--adapter", TORCH_ADAPTER),
    ),
)
OURS = "verified-autograd (this repository)"

#: How each engine's defects were confirmed (by hand, see .ci/confirm_audits.py), by requirement.
#: "confirm_audits" = sympy's value and derivative at the reported point (mpmath, 12,000 digits)
#: beside the engine run from hand-written lines in a fresh interpreter; "source" = the line of
#: the engine's source (site-packages) that causes it.
NOTES: dict[str, str] = {
    "micrograd==0.1.0": (
        "crash (powc): d(x**0)/dx at 0 is 0 (sympy), the engine raises ZeroDivisionError (confirm_audits, "
        "at 0.0 and, in the audit's exact check, at Fraction(0)); source: `other * self.data**(other-1)`. "
        "nondeterministic: d/dx of sum_i x*w_i (exactly 4.5 by sympy) took 5 to 8 different values between "
        "1.5 and 6.0 over 10 builds under PYTHONHASHSEED 0 and 1 in each run of confirm_audits; source: "
        "`_prev = set(_children)` and Values hash by address, so the order in which gradient shares are "
        "summed changes from build to build (and from run to run)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "scalargrad==1.0.5": (
        "crash (powc): as micrograd (same rule). crash (sigmoid): sigmoid(-1e4) is 1.1e-4343 exactly, 0.0 "
        "as a double, its derivative 0.0 (sympy), the engine raises OverflowError from "
        "`1 / (1 + math.exp(-self.data))` (confirm_audits). nondeterministic: as micrograd (parents in a "
        "set; confirm_audits saw 6 or 7 different sums)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "propgrad==0.1.1": (
        "crash (powc): as micrograd. wrong_value (sigmoid): sigmoid(-100) = 3.72e-44 (sympy), the engine "
        "returns 0.0 because it clamps every x < -50 to 0.0 (confirm_audits; an absolute error of 4e-44, "
        "but all of the value). nondeterministic: as micrograd (parents in a set)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "pyfit==1.0.2": (
        "nondeterministic: as micrograd (`_prev: Set[Scalar] = set(children)`; confirm_audits)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "coregrad==0.1.0": (
        "crash (powc, rpow): as micrograd (`other.data * (self.data ** (other.data - 1.0))` at 0.0; for "
        "0 ** x at 1e-9 too, where 0 ** x is 0). "
        "wrong_value (tanh): tanh(±1e-300) = ±1e-300 (sympy), the engine's (e^2x - 1)/(e^2x + 1) gives 0.0; "
        "tanh(1e4) = 1.0, the engine gives nan (inf/inf). wrong_gradient (tanh): at 1e4 the derivative is "
        "4e-8686, 0.0 as a double, the engine gives nan (from the nan value). wrong_gradient (vpow, rpow): "
        "the exponent's gradient line is commented out in `__pow__`, so d(x**x)/dx at 0.5 is "
        "0.7071 instead of x**x*(ln x + 1) = 0.2170 and d(2**x)/dx at 0 is 0 instead of ln 2 (sympy; the "
        "audit also confirmed both by finite differences). All by confirm_audits."
        " crash (div): x / y at y = 1e300 is 1.5e-300 and d/dy rounds to -0.0 (sympy); the engine "
        "raises because y**2 overflows (confirm_audits). crash (rdiv): 1 / x at 1e300 is 1e-300 and "
        "its gradient rounds to -0.0 (sympy); the engine raises because x**2 overflows "
        "(confirm_audits)."
    ),
    "femtograd==0.0.5": (
        "crash (powc): as micrograd. wrong_value (tanh): tanh(±1e-300) gives 0.0, want ±1e-300 (sympy), "
        "from `(math.exp(2*x)-1)/(math.exp(2*x)+1)`; crash (tanh): the same formula raises OverflowError at "
        "1e4 where tanh is 1.0; wrong_gradient (tanh): at the largest double 2*x is already inf, math.exp "
        "does not raise, and value and gradient are nan (sympy 1.0 and 0.0). nondeterministic: parents in a "
        "set (`self.prev = set(children)`). All by confirm_audits."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "tonygrad==2.0.0": (
        "as femtograd: the same tanh formula, the same power rule, parents in a set (confirm_audits)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "backprop-lib==0.1.0": (
        "as femtograd for powc, tanh and nondeterministic; wrong_gradient (vpow): `Value ** Value` unwraps "
        "the exponent to a number (its docstring says only the base gets a gradient), so d(x**x)/dx at 0.5 "
        "is 0.7071 instead of 0.2170 (sympy; confirm_audits, and finite differences in the audit)."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "gradflow-kit==0.1.3": (
        "wrong_value (rsub, rdiv): `__rsub__` and `__rtruediv__` return `self - other` and `self / other`, "
        "so 1 - x at 3 gives 2.0 and 2 / x at 4 gives 2.0 (sympy -2 and 0.5). wrong_gradient (sub, rsub, "
        "rdiv, powc, vpow, neg): `__sub__`'s backward does `self.grad -= ...; other.grad += ...`, so "
        "d(x - y) at (1, 2) is [-1, 1] instead of [1, -1]; d(x*(1 - x))/dx at 0 is -1 instead of 1; "
        "d(2/x)/dx at 4 is 0.5 instead of -0.125, d(x - 1)/dx at 0 is -1 instead of 1; `__pow__` and "
        "`__neg__` set no backward at all, so d(x**2)/dx at 3, d(x**x)/dx at 0.5 and d(-x)/dx are 0 instead "
        "of 6, 0.2170 and -1 (the stateful check's finding is this `-x`). crash (rdiv): 0 / x at 1 is x / 0, "
        "ZeroDivisionError. tanh: as femtograd. Parents in a tuple: deterministic. All by confirm_audits."
        " crash (div): x / y at y = 1e300 is 1.5e-300 and d/dy rounds to -0.0 (sympy); the engine "
        "raises because y**2 overflows (confirm_audits)."
    ),
    "lilgrad==0.6.0": (
        "crash (powc): as micrograd. crash (sigmoid): as scalargrad (`1.0 / (1.0 + math.exp(-self.data))`). "
        "wrong_gradient (abs, pos): `__abs__` and `__pos__` return a new Value with no parents, so d|x|/dx "
        "and d(+x)/dx at 0.3 are 0 (sympy 1). nondeterministic: parents in a frozenset (confirm_audits saw 5 "
        "to 6 different sums in two runs). All by confirm_audits."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "nanograd-aman==0.1.0": (
        "wrong_value and wrong_gradient (rsub): `__rsub__` is `return self - other`, so 1 - x at 3 gives "
        "2.0 with d/dx = +1 (sympy -2 and -1). crash (powc), tanh (wrong_value, wrong_gradient, crash) and "
        "nondeterministic: as femtograd (parents in a set). All by confirm_audits."
    ),
    "nanograd-bgriebel==0.1.4": (
        "wrong_gradient (powc): d(x**0)/dx at 0 is nan (the C++ rule's 0 * pow(0, -1) = 0 * inf), sympy 0. "
        "wrong_value (rdiv): 0 / x at 5e-324 is nan (0 * x**-1, and 1 / 5e-324 overflows to inf), sympy 0; "
        "its gradient at 1e-300 is nan too (sympy 0). "
        "crash: the C++ backward recurses once per node: a chain y = y*1 + 0 of 43,750 steps (dy/dx = 1) "
        "kills the interpreter with SIGSEGV. All by confirm_audits."
    ),
    "simplegrad==0.1.0": (
        "Judged at float32 precision (its values are float32). wrong_value and wrong_gradient (powc, div): "
        "the power adds 1e-9 to its base, (x + 1e-9) ** c, and division goes through it, so x**2 at 0 gives "
        "1.0e-18 with d/dx = 2.0e-9 (sympy 0 and 0) and 1.5 / float32(1e-9) gives 7.5e8 with gradients "
        "5e8 and -3.75e17 (sympy 1.5000000424e9, 1.0000000283e9 and -1.5000000848e18). wrong_value and "
        "wrong_gradient (relu): `relu()` is a leaky relu of slope 0.2: relu(-1) gives -0.2 with d/dx = 0.2 "
        "(sympy 0 and 0). crash: the C++ backward recurses once per node: a chain y = y*1 + 0 of 66,250 "
        "steps (dy/dx = 1) kills the interpreter with SIGSEGV. All by confirm_audits."
    ),
    "centigrad==0.1.3": (
        "crash (powc): the local derivative `other_value*(self.value**(other_value-1))` is computed in the "
        "forward pass, so x**0 at 0 raises ZeroDivisionError at once. crash (sigmoid): as scalargrad. "
        "exponential_time: `grad()` recurses over every path with no memo: for y = x doubled n times "
        "(2**n paths, dy/dx = 2**n by sympy, right both times) n = 16 took 12 times as long as n = 12. "
        "All by confirm_audits. (The gradient sums over every expression ever built from x: a convention.)"
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "GrADim==0.0.5": (
        "crash (powc): as centigrad (the local derivative is computed in the forward pass). wrong_value "
        "and wrong_gradient (tanh): (e^x - e^-x)/(e^x + e^-x) through numpy gives 0.0 at 1e-300 and nan "
        "(value and gradient) at 1e4 (sympy 1e-300, 1.0 and 0.0); the audit's own witness is milder, "
        "tanh(0.0078125) off by 38 units in the last place, 4.2e-15 relative (the same cancellation). "
        "Its methods under other names: wrong_value (cosh, sinh) by the same exponentials: inf at "
        "710.4758600739439 where both are 1.7976931348621744e308, and sinh(1e-20) gives 0.0; wrong_gradient "
        "(logistic, as sigmoid): d/dx at -1e20 is nan (sympy 0.0). wrong_gradient (rpow): d(0**x)/dx at 1 "
        "is nan (sympy 0: 0**x is 0 for x > 0). exponential_time: the `derivative` property walks every "
        "path (16 to 17 times as long for 4 more doublings in two runs, as centigrad). All by "
        "confirm_audits."
        " crash (div): x / y at y = 1e300 is 1.5e-300 and d/dy rounds to -0.0 (sympy); the engine "
        "raises because y**2 overflows (confirm_audits). crash (rdiv): 1 / x at 1e300 is 1e-300 and "
        "its gradient rounds to -0.0 (sympy); the engine raises because x**2 overflows "
        "(confirm_audits). crash (arctan~atan): atan(1e300) is pi/2 and its derivative rounds to 0.0 "
        "(sympy); the engine's 1 / (1 + x**2) overflows (confirm_audits). wrong_gradient (cosh): "
        "d/dx cosh at 1e-20 is 0.0, sympy sinh(1e-20) = 1e-20 ((e^x - e^-x) / 2 cancels; confirm_audits)."
    ),
    "gradpy==1.0.0": (
        "crash (powc): d(x**0)/dx at 0 raises ZeroDivisionError (the power rule's x**(c-1)). crash and "
        "wrong_gradient (rpow): `Power.der` evaluates `c * base**(c-1) * d(base)` also when the base is a "
        "constant, so d(0**x)/dx at 1e-9 raises ZeroDivisionError (0**x is 0 for x > 0: sympy 0) and "
        "d(3**x)/dx at 645.9864616352966 is nan (x * 3**(x-1) overflows to inf, times 0), sympy "
        "1.7976931348621317e308. exponential_time: `out.der(x)` recurses over every path with no memo: "
        "y = x doubled 16 times took 13 to 25 times as long as 12 times (two runs), the gradient 2**n "
        "right both times. All by confirm_audits."
        " crash (div): x / y at y = 1e300 is 1.5e-300 and d/dy rounds to -0.0 (sympy); the engine "
        "raises because y**2 overflows (confirm_audits). crash (rdiv): 1 / x at 1e300 is 1e-300 and "
        "its gradient rounds to -0.0 (sympy); the engine raises because x**2 overflows "
        "(confirm_audits)."
    ),
    "mikegrad==0.2.0": (
        "wrong_value and wrong_gradient (log): `log()` clamps its argument to [1e-8, 1 - 1e-8] (meant for "
        "probabilities): log(2) gives -1.00000001e-08 with d/dx = 1.00000001 (sympy 0.6931 and 0.5), "
        "log(1e-9) gives -18.42 (sympy -20.72). crash (powc), tanh (wrong_value, wrong_gradient, crash) and "
        "nondeterministic: as femtograd; crash (sigmoid): as scalargrad. All by confirm_audits."
    ),
    "kaitorch==0.1.0": (
        "wrong_value (powc, divc, div, log): 1e-8 fudges, `(a + 1e-8) ** b`, `a * (b + 1e-8) ** -1` (a "
        "second 1e-8 inside the power when b is a Scalar) and `log(a + 1e-8)`: 3**2 gives 9.00000006, x/3 "
        "at 1 gives 0.33333333222 (x/y at (1, 3): 0.33333333111), log(0.5) gives -0.69314716 (sympy 9, 1/3, "
        "-0.69314718). wrong_gradient (powc, divc, div, log): the power rule differentiates the unfudged "
        "x**c, so d((x**2)**2)/dx at 0.125 is 0.00781250125 (sympy 1/128); the fudges reach the gradients "
        "of division and of log (d(log x)/dx at 0.5 is 1.99999996). crash (powc): as micrograd. "
        "nondeterministic: parents in a set. All by confirm_audits."
    ),
    "tinymlp==0.1.0": (
        "crash (powc): as micrograd; nondeterministic: parents in a set (both by confirm_audits). Its tanh "
        "(math.tanh) and sigmoid (two branches) are right at the edges where the others fail."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits)."
    ),
    "omnigrad==0.2.3": (
        "crash (powc), tanh (wrong_value, wrong_gradient, crash) and nondeterministic: as femtograd; crash "
        "(sigmoid, the method `sigmod`): as scalargrad. crash and wrong_value (rdiv): `__rtruediv__` is "
        "`Value(1) / (self / other)`, so 0 / x at 1 raises ZeroDivisionError and 0.5 / x at the largest "
        "double gives 0.0 (x / 0.5 overflows), sympy 2.78e-309. wrong_gradient (softsign): d/dx x/(1 + |x|) "
        "at 0 is 1, the backward adds 0 there. wrong_gradient (gamma): `digamma_internal` is a central "
        "difference without the 1/2, so dΓ(x)/dx at 2.5 is 1.8695, twice sympy's Γ(x)ψ(x) = 0.9347. All by "
        "confirm_audits."
        " crash (div): x / y at y = 1e300 is 1.5e-300 and d/dy rounds to -0.0 (sympy); the engine "
        "raises because y**2 overflows (confirm_audits). crash (softsign~softsign): softsign(1e300) "
        "is 1.0 as a double and its derivative rounds to 0.0 (sympy); the engine raises in backward() "
        "(confirm_audits)."
        " crash (gamma_actual): its backward evaluates the engine's gamma at x - 1e-6, which raises "
        "ValueError for a non-positive argument, so backward() raises at every x up to 1e-6: at 5e-7, "
        "where the gamma is 2.0e6 and its derivative -4.0e12 (sympy; confirm_audits); the audit's own "
        "witness, 1.1e-308, is the same cause."
    ),
    "fauxgrad==0.2": "crash (sigmoid): as scalargrad (confirm_audits). Parents in a list: deterministic.",
    "tardigrad==0.1.0": (
        "wrong_gradient (gelu): `gelu()` assigns its backward to its input (`self.grad_fn = grad_fn`), not "
        "to its output: on a leaf the gradient is right, but through an interior input nothing reaches the "
        "leaves (d gelu(x*1)/dx at 1 is 0, sympy 1.0833) and a leaf used in two gelus keeps one share "
        "(1.0833 instead of 2.1666). wrong_value (gelu): x * (1 + erf(x / sqrt 2)) / 2 cancels to -0.0 at "
        "-37.616, where gelu is -2.225e-308, the least normal float. crash (powc), tanh: as femtograd; "
        "crash (sigmoid): as scalargrad. "
        "Parents in a tuple: deterministic. All by confirm_audits."
        " crash (rdiv): 0 / x at 1e-300 is 0 and so is its gradient (sympy); the engine raises on the "
        "way (its rule's x**2 or x**-2 leaves the floats; confirm_audits). crash (gelu): gelu(1e300) "
        "is 1e300 with derivative 1 (sympy); the engine's forward overflows on the way "
        "(confirm_audits)."
    ),
    "vizgrad==0.1.2": (
        "wrong_gradient (powc): numpy's 0.0 ** -1 is inf (a warning, not an error), so d(x**0)/dx at 0 is "
        "nan, sympy 0. crash (powc): `__pow__` returns None for an exponent that is neither an int, a float "
        "nor a Value (x ** Fraction(1, 2)), which fails at the next use, or, added to a Value, gives nan "
        "(wrong_value (powc): sqrt(x) + y**2 at (2.1548, 0) is nan, sympy 1.4679). wrong_value (rdiv): 0 / x "
        "at 5e-324 is nan (0 * x**-1 = 0 * inf), sympy 0, and its gradient at 1e-300 is nan (sympy 0). All "
        "by confirm_audits. Parents in "
        "a set, but confirm_audits' fan-out sum gave one value (4.0) over 20 builds: no nondeterminism "
        "confirmed."
    ),
    "torch==2.13.0": (
        "All by confirm_audits, through 0-d float64 tensors as the adapter builds them, each function "
        "called as PyTorch's own `torch.*` or `torch.nn.functional.*` (a second derivative as the "
        "gradient of `torch.autograd.grad(..., create_graph=True)`). "
        "wrong_value and wrong_gradient (rdiv): 0 / x at 5e-324 (and -5e-324) is nan, sympy 0: "
        "`Tensor.__rdiv__` is `self.reciprocal() * other`, and 1 / 5e-324 overflows to inf, times 0; "
        "d/dx at 1e-300 is nan (reciprocal's backward `-grad * (result * result)`: 0 * inf), sympy 0. "
        "wrong_gradient (acosh, asinh, atan2, log10): an intermediate overflows where the exact "
        "derivative is a finite number: d/dx acosh(x) and asinh(x) at 1e300 give 0.0 (x*x is inf), sympy "
        "1e-300; d/dy atan2(x, y) at (1e300, 1.5) gives -0.0, sympy -1e-300; d/dx log10(x) at the largest "
        "double gives 0.0 (x * ln 10 is inf), sympy 2.4e-309. wrong_value and wrong_gradient (sinc): at "
        "the largest double value and derivative are nan (pi * x is inf), sympy 0 and 5.6e-309. "
        "gelu_tanh: d/dx at 1e300 is nan (x**3 overflows), sympy 1; its value at -21.177 is -0.0 "
        "(1 + tanh cancels), sympy -2.2e-308. wrong_value (gelu): -0.0 at -37.616 (1 + erf cancels), sympy "
        "-2.2e-308. wrong_value and wrong_gradient (silu): -0.0 and -0.0 at -714.97 (exp(-x) overflows), "
        "sympy -2.2e-308 and -2.2e-308. wrong_gradient (mish): 3.1e-311 at -714.97, sympy -2.2e-308. "
        "wrong_gradient (softsign): 0.0 at 1e20 (the quotient rule's two terms cancel), sympy 1e-40. "
        "tanhshrink: x - tanh(x) at 1e-20 is 0.0, sympy 3.3e-61, and the gradient of tanhshrink(x * y) "
        "at (1, 1.175494351e-38) is [0.0, 0.0], sympy [1.6e-114, 1.4e-76]. wrong_gradient (hardsigmoid): "
        "d/dx at -2.5 is 0.1666666716337204, float32's 1/6, sympy 1/6. Second derivatives "
        "(wrong_gradient): erf'' at the largest double and gelu'' at 1e300 are nan, sympy -0.0; "
        "d2 logaddexp(x, y) / dy dx and / dy2 at (1e20, 1.5) are nan, sympy 0; d2(0 ** x)/dx2 at 1 is nan, "
        "sympy 0; d/dy of d(x ** y)/dx at (1.5, 0) is 0.0, sympy 2/3. "
        "Three errors are below 1e-9 relative, the criterion for an engine's graph of its own ops, and "
        "confirmed by the bound of one library function called alone (64 units in the last place): "
        "wrong_gradient (digamma) and, as its second derivative, wrong_gradient (lgamma): trigamma at 1 is "
        "1.6449340676383375, sympy pi**2/6 = 1.6449340668482264, 4.8e-10 relative (3.6 million units in "
        "the last place; at most 4.9e-10 on 400 points of [0.18, 6.28], where the audit found it); "
        "wrong_value (mish), inaccurate at the extremes: mish(-714.97) is -2.2250738585070724e-308, sympy "
        "-2.225073858507239e-308, 7.5e-14 relative (337 units in the last place)."
    ),
}

#: How to read the matrix, a paragraph each (the first follows the list of defect classes).
READING = (
    "the conventions an engine follows, what it does not support, the invalid inputs it "
    "accepts, how deep a backward it survives, and `inconclusive` findings (a disagreement one method saw "
    "and a second, independent one did not confirm), never counted as defects. A wrong gradient is a "
    "defect when it is exact on a rational graph (an engine that keeps Fractions) or when a second, "
    "independent method agrees (finite differences of the graph's forward in plain floats); a wrong value "
    "when it is off both from the high-precision reference and from a plain float evaluation of the same "
    "program; a `crash` is an exception at a point inside the op's domain; `nondeterministic` is the same "
    "graph giving different gradients from build to build.",
    "**Severity.** A wrong value or gradient is `wrong` at an ordinary point (every operand and exact "
    "result 0 or a finite number between 2**-500 and 2**500), and at an extreme point when off by more "
    "than 1e-3 relative and 16 ulps; otherwise (off by at most 1e-3 relative or 16 ulps where an operand "
    "or the exact result is subnormal, tiny or huge) it is *inaccurate at the extremes*. Both are "
    "defects. [The audit's page](../audit.md) defines severity in full.",
    "**The cells.** A cell names the ops in which a defect of its class was found (**yes** when the "
    "finding is about no op in particular, as nondeterminism): in bold where they are wrong, after "
    "`at the extremes:` where they are only inaccurate at the extremes; `·` means none. An op of an "
    "engine's own (found by its values) is written `method~op`, the method's name, then the op of the "
    "catalogue it was identified as (`method~?` when it is none of them). `accepts_invalid` "
    "(information, not a defect) counts the invalid inputs accepted without an error. `?` in every cell "
    "means the engine could not be audited (the last column says why). The last column lists the other "
    "facts: the depth a backward survives at the default recursion limit, the count of each kind of "
    "information, and how the gradient is read when it is not by `backward()`.",
    "**Confirmed by hand.** Every defect in these pages was checked again against sympy by "
    "`.ci/confirm_audits.py`: it evaluates sympy's value or derivative at the reported point with "
    "mpmath (at 12,000 and 24,000 digits, which must agree; 60 and 120 for gamma, digamma and lgamma, "
    "whose derivatives are polygamma functions, slow to evaluate) and runs the engine there from "
    "hand-written lines in a fresh interpreter, independently of the harness: a defect is confirmed "
    "when the engine is off by more than 1e-9 relative (8 float32 units in the last place for a "
    "float32 engine; 64 double units in the last place for a framework's function called alone). "
    "Each engine's page says how each of its defects was confirmed.",
)

#: The harness's guards against false alarms that engines of this corpus make concrete, each with
#: the test that holds it (present tense: what the harness does, on which engine it matters).
GUARDS = (
    "An engine that lacks ops is never fed them: pyfit 1.0.2 has no negation and no powers, so the "
    "stateful machine draws only the ops the engine has (falling back to `a + a`) and linearity is not "
    "applicable without `c * x`; a missing op is `unsupported`, never a `crash`. Held by "
    "`test_the_audit_never_feeds_an_engine_an_op_it_lacks` on the `tests/engines/missing_ops.py` fixture.",
    "An engine that keeps 0-d arrays is audited by discovery, with no adapter: vizgrad 0.1.2 keeps its "
    "number and gradient as 0-d numpy arrays and adds into them in place, so a 0-d array is read as its "
    "number and a gradient the harness writes is a copy of the 0-d array the engine keeps "
    "(`autograd.testing.engines.numbers.write_grad`), never a numpy scalar, which has no `__iadd__`. "
    "Held by `test_a_0d_array_engine_audits_clean_with_its_stateful_check_judged` and "
    "`test_a_gradient_written_to_a_0d_array_engine_stays_a_fresh_0d_array_it_adds_into` on the "
    "`tests/engines/zero_d_arrays.py` fixture.",
    "An exact result far below the floats is evaluated with enough digits: `.ci/confirm_audits.py` "
    "evaluates sympy's expressions with mpmath at 12,000 and 24,000 digits and requires both to agree, "
    "because `sympy.N(expr, 30)` gives 1.1e-165 for 1 - tanh(10000)**2, which is 4e-8686 (0.0 as a "
    "double, which is what the harness's own reference gives).",
)

#: The matrix's columns: the defect kinds (this checkout's list, whatever it has grown to), then the
#: information kind a reader most wants beside them.
MATRIX_KINDS = (*DEFECT_KINDS, "accepts_invalid")


# ---------------------------------------------------------------------------------------------
# Installing


def engine_dir(engine: Audited) -> Path | None:
    return AUDITS_DIR / engine.name if engine.own_dir else None


def child_env(engine: Audited | None) -> dict[str, str]:
    """The environment of an engine's own processes: this checkout first, then its directory."""
    paths = [str(ROOT)]
    where = engine_dir(engine) if engine else None
    if where is not None:
        paths.append(str(where))
    # PYTHONFAULTHANDLER: a segfault prints the Python stack it happened in (where stderr is still open)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONFAULTHANDLER="1")


def same_version(have: str, want: str) -> bool:
    """2.13.0+cpu is 2.13.0: a local label (a build of the same release) is not another version."""
    return have.partition("+")[0] == want


def installed(engine: Audited) -> str | None:
    """The installed version of the engine's distribution, where its audit will look for it."""
    name, _, _ = engine.requirement.partition("==")
    where = engine_dir(engine)
    if where is None:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    wanted = name.lower().replace("-", "_")
    for dist in importlib.metadata.distributions(path=[str(where)]):
        if dist.metadata["Name"].lower().replace("-", "_") == wanted:
            return dist.version
    return None


def top_level_names(dist: importlib.metadata.Distribution) -> set[str]:
    """The importable names a distribution puts on sys.path (packages and modules)."""
    names = set()
    for file in dist.files or ():
        first = file.parts[0]
        if first.endswith((".dist-info", ".data", ".egg-info")) or first in ("..", "__pycache__"):
            continue
        if len(file.parts) > 1 or first.endswith((".py", ".so", ".pyd")):
            names.add(first.split(".")[0])
    return names


def check_names(engines: tuple[Audited, ...]) -> None:
    """Refuse a distribution that installs `autograd`, and two that install the same top-level name
    into one environment (whichever was installed last would be audited under both names)."""
    owners: dict[str, str] = {}
    for engine in engines:
        where = engine_dir(engine)
        paths = [str(where)] if where else None
        dists = list(importlib.metadata.distributions(path=paths)) if paths else []
        if where is None:
            dists = [importlib.metadata.distribution(engine.name)]
        for dist in dists:
            names = top_level_names(dist)
            if "autograd" in names:
                sys.exit(
                    f"audits: {dist.metadata['Name']} installs a top-level `autograd`, this project's own "
                    f"import name: it cannot be audited here"
                )
            if where is not None:
                continue
            for top in names:
                other = owners.setdefault(top, engine.requirement)
                if other != engine.requirement:
                    sys.exit(
                        f"audits: {other} and {engine.requirement} both install a top-level `{top}`: "
                        "give one of them own_dir in .ci/audits.py"
                    )


def pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", *args]
    print("+ " + " ".join(command[1:]), file=sys.stderr)
    subprocess.run(command, check=True)


def install(engines: tuple[Audited, ...]) -> None:
    # one resolution for the whole environment (pip does nothing for what is already there)
    pip(*sorted({r for e in engines if not e.own_dir for r in (e.requirement, *e.deps)}))
    for engine in engines:
        where = engine_dir(engine)
        if where is None or same_version(installed(engine) or "", engine.requirement.partition("==")[2]):
            continue
        shutil.rmtree(where, ignore_errors=True)
        where.parent.mkdir(parents=True, exist_ok=True)
        (where.parent / ".gitignore").write_text("*\n")  # nothing under .audits/ is ever committed
        pip("--no-deps", "--target", str(where), engine.requirement, *engine.deps)


def check_installed(engines: tuple[Audited, ...]) -> None:
    for engine in engines:
        want = engine.requirement.partition("==")[2]
        have = installed(engine)
        where = f" in {engine_dir(engine)}" if engine.own_dir else ""
        if have is None:
            sys.exit(
                f"audits: {engine.name} is not installed{where}; run `tox -e audits` "
                "(or python .ci/audits.py --install)"
            )
        if not same_version(have, want):
            sys.exit(
                f"audits: {engine.name} {have} is installed{where}, the audit is of {engine.requirement}"
            )
    check_names(engines)


# ---------------------------------------------------------------------------------------------
# Auditing


def audit_command(engine: Audited | None, extra: list[str]) -> list[str]:
    target = [engine.target] if engine and engine.target else [] if engine else ["autograd"]
    args = list(engine.args) if engine else []
    return [
        sys.executable,
        "-W",
        "ignore",
        "-m",
        "autograd.testing",
        "audit",
        *target,
        "--json",
        *args,
        *extra,
    ]


def json_document(stdout: str) -> dict[str, Any] | None:
    """The report in stdout: the whole of it, or (if the engine printed too) the last JSON object
    that has a schema_version."""
    try:
        doc = json.loads(stdout)
        return doc if isinstance(doc, dict) else None
    except json.JSONDecodeError:
        pass
    decoder = json.JSONDecoder()
    found = None
    start = stdout.find("{")
    while start != -1:
        try:
            doc, end = decoder.raw_decode(stdout, start)
        except json.JSONDecodeError:
            start = stdout.find("{", start + 1)
            continue
        if isinstance(doc, dict) and "schema_version" in doc:
            found = doc
        start = stdout.find("{", end)
    return found


def harness() -> str:
    """The harness that audits, as the pages state it: the package's version and the last commit
    that changed autograd/ (and whether autograd/ has changed since)."""
    version = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)[1]
    git = ["git", "-C", str(ROOT)]
    try:
        commit = subprocess.run([*git, "log", "-1", "--format=%H", "--", "autograd"], capture_output=True,
                                text=True, check=True)  # fmt: skip
        changed = subprocess.run([*git, "status", "--porcelain", "--", "autograd"], capture_output=True,
                                 text=True, check=True)  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return f"verified-autograd {version}"
    local = " with local changes to autograd/" if changed.stdout.strip() else ""
    return f"verified-autograd {version}, autograd/ as of commit {commit.stdout.strip()[:12]}{local}"


def signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def run_audit(engine: Audited | None, extra: list[str], timeout: float) -> dict[str, Any]:
    """One audit in a child process of its own (and its own process group, so that a timeout also
    ends whatever it started): {"status": "audited" | "cannot_audit" | "timeout" | "died", ...}."""
    command = audit_command(engine, extra)
    made_by = {"harness": harness(), "python": platform.python_version()}
    start = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=child_env(engine),
        start_new_session=True,
    )
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        stdout, stderr = child.communicate()
        return {
            "status": "timeout",
            "seconds": time.perf_counter() - start,
            "command": command[3:],
            "reason": f"no report after {timeout:.0f} s (the audit process was killed)",
            "stderr": stderr[-4000:],
            **made_by,
        }
    seconds = time.perf_counter() - start
    result: dict[str, Any] = {
        "seconds": seconds,
        "command": command[3:],
        "returncode": child.returncode,
        **made_by,
    }
    report = json_document(stdout) if child.returncode in (0, 1) else None
    lines = [line for line in stderr.splitlines() if line.strip()]
    if report is not None:
        return {**result, "status": "audited", "json": report, "stderr": stderr[-4000:]}
    if child.returncode == 2:
        return {
            **result,
            "status": "cannot_audit",
            "reason": lines[-1] if lines else "exit status 2",
            "stderr": stderr[-4000:],
        }
    if child.returncode < 0:
        reason = f"the audit process died of {signal_name(child.returncode)}"
    else:
        reason = f"the audit process exited with status {child.returncode} and no report"
    return {
        **result,
        "status": "died",
        "reason": reason + (f": {lines[-1]}" if lines else ""),
        "stderr": stderr[-4000:],
        "stdout": stdout[-2000:],
    }


# ---------------------------------------------------------------------------------------------
# Rendering (from the JSON document only)


def defect_kinds() -> tuple[str, ...]:
    return DEFECT_KINDS


def status_of(check: Any) -> str:
    """A check's status: a string, or an object with "status" (the form may grow)."""
    return str(check.get("status", "?")) if isinstance(check, dict) else str(check)


def ops_of(findings: list[dict[str, Any]]) -> str:
    ops = sorted({f.get("op") or "" for f in findings})
    return ", ".join(markdown(op) for op in ops if op) or "yes"


def markdown(name: str) -> str:
    """A name as markdown text: `__abs__` would be bold `abs`."""
    return name.replace("__", "\\_\\_")


def severity_of(finding: dict[str, Any]) -> Severity | None:
    """A finding's severity from its JSON form (null numbers are infinite), None where it has
    none (not a wrong value or gradient, or a report of schema version 1)."""
    given = finding.get("severity")
    if not given:
        return None
    size = [math.inf if given[k] is None else given[k] for k in ("relative_error", "ulps")]
    return Severity(given["label"], given["point"], *size)


def defect_cell(group: list[dict[str, Any]]) -> str:
    """The ops of one defect class: in bold those wrong, then those only inaccurate at the extremes."""
    mild = [f for f in group if (s := severity_of(f)) is not None and s.label == SEVERITIES[1]]
    wrong = [f for f in group if f not in mild]
    cells = [f"**{ops_of(wrong)}**"] if wrong else []
    return "; ".join([*cells, *([f"at the extremes: {ops_of(mild)}"] if mild else [])])


def matrix_columns(results: dict[str, dict[str, Any]]) -> list[str]:
    seen = {f["kind"] for r in results.values() if r["status"] == "audited" for f in r["json"]["findings"]}
    extra = [k for k in defect_kinds() if k not in MATRIX_KINDS and k in seen]
    return [*MATRIX_KINDS[:-1], *extra, MATRIX_KINDS[-1]]


def facts(report: dict[str, Any], columns: list[str]) -> str:
    """What is neither a defect nor a column: conventions, missing features, limits, and how the
    engine was reached (a gradient API other than backward, an adapter)."""
    counts: dict[str, int] = {}
    for f in report["findings"]:
        if f["kind"] not in columns:
            counts[f["kind"]] = counts.get(f["kind"], 0) + 1
    parts = []
    depth = [
        f["actual"].split(" (")[0] or f["expected"] for f in report["findings"] if f["kind"] == "depth_limit"
    ]
    if depth:
        parts.append(f"depth: {depth[0]}")
        counts.pop("depth_limit", None)
    parts += [f"{kind} {n}" for kind, n in sorted(counts.items())]
    caps = report.get("capabilities", {})
    api = caps.get("gradient_api")
    if api and api != "backward":
        parts.append(f"gradient: {api}")
    aliases = caps.get("aliases")
    if aliases:
        parts.append("aliases: " + ", ".join(f"{k}={v}" for k, v in sorted(aliases.items())))
    return "; ".join(parts) or "-"


def matrix_row(label: str, result: dict[str, Any], columns: list[str], page: str = "") -> str:
    """The engine's row of the matrix (its label a link to its page, given one)."""
    label = f"[{label}]({page})" if page else label
    if result["status"] != "audited":
        return f"| {label} | " + " | ".join("?" for _ in columns) + f" | **{short_failure(result, 160)}** |"
    report = result["json"]
    cells = []
    for kind in columns:
        group = [f for f in report["findings"] if f["kind"] == kind]
        if not group:
            cells.append("·")
        elif kind == "accepts_invalid":
            cells.append(str(len(group)))
        else:
            cells.append(defect_cell(group))
    return f"| {label} | " + " | ".join(cells) + f" | {facts(report, columns)} |"


def short_failure(result: dict[str, Any], limit: int = 0) -> str:
    """Why an engine has no report, in one line (cut at `limit` characters for a table cell)."""
    words = {"cannot_audit": "cannot audit", "timeout": "timed out", "died": "audit died"}[result["status"]]
    reason = result["reason"].removeprefix("python -m autograd.testing: ")
    if reason.startswith("could not audit ") and ": " in reason:  # the CLI's prefix names the target again
        reason = reason.split(": ", 1)[1]
    if limit and len(reason) > limit:
        reason = reason[: limit - 3].rstrip() + "..."
    return f"{words}: {reason}".replace("|", "/")


def summary_row(label: str, result: dict[str, Any], kinds: tuple[str, ...], page: str = "") -> str:
    label = f"[{label}]({page})" if page else label
    if result["status"] != "audited":
        return f"| {label} | - | {short_failure(result, 160)} | | | | | {result['seconds']:.0f} s |"
    report = result["json"]
    findings = report["findings"]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        if f["kind"] in kinds:
            by_kind.setdefault(f["kind"], []).append(f)
    shown = "; ".join(f"{k}: {ops_of(group)}" for k, group in sorted(by_kind.items())) or "none"
    depths = [f["actual"].split(" (")[0] or f["expected"] for f in findings if f["kind"] == "depth_limit"]
    invalid = sum(f["kind"] == "accepts_invalid" for f in findings)
    unsupported = sorted({markdown(f.get("op") or "numbers") for f in findings if f["kind"] == "unsupported"})
    na = [name for name, check in report["checks"].items() if status_of(check) == "not_applicable"]
    return (
        f"| {label} | `{report['class']}` | {shown} | {', '.join(depths) or '?'} | {invalid} | "
        f"{', '.join(unsupported) or '-'} | {', '.join(na) or '-'} | {result['seconds']:.0f} s |"
    )


def text_report(result: dict[str, Any], kinds: tuple[str, ...], reproducers: bool = True) -> str:
    """The report as text, from the JSON document (the same layout as the command's text output),
    with or without the reproducers."""
    if result["status"] != "audited":
        tail = "\n".join(result.get("stderr", "").rstrip().splitlines()[-15:])
        command = " ".join(["python", *result["command"]])
        failure = f"{short_failure(result)} (after {result['seconds']:.0f} s)"
        return f"$ {command}\n{failure}\n\nstderr (last lines):\n{tail}"
    report = result["json"]
    caps = report.get("capabilities", {})
    acc = report.get("accessors", {})
    settings = report.get("settings", {})
    lines = [
        f"audit of {report['engine']}: class {report['class']} (number .{acc.get('data')}, "
        f"gradient .{acc.get('grad')}, {acc.get('backward')}())",
        f"settings: {settings.get('examples')} examples per search, seed {settings.get('seed')}; "
        f"{report.get('seconds', result['seconds'])} s",
        f"ops: {', '.join(caps.get('ops', []))}"
        + (f"; missing: {', '.join(caps['missing_ops'])}" if caps.get("missing_ops") else ""),
        f"numbers: int {caps.get('int')}, Fraction {caps.get('fraction')}; higher order: "
        f"{'yes' if caps.get('higher_order') else 'no'}",
    ]
    for key in ("gradient_api", "gradient_convention", "adapter", "aliases", "extra_ops"):
        if caps.get(key):
            value = caps[key]
            lines.append(
                f"{key.replace('_', ' ')}: {json.dumps(value) if not isinstance(value, str) else value}"
            )
    judged = report.get("judged") or {}  # {check: {"judged": n, "inconclusive": m, "unit": "graphs"}}

    def tally(name: str) -> str:
        count = judged.get(name)
        if not isinstance(count, dict) or "judged" not in count:
            return ""
        more = f", {count['inconclusive']} inconclusive" if count.get("inconclusive") else ""
        return f" [{count['judged']} {count.get('unit') or 'judged'}{more}]"

    lines.append("checks: " + ", ".join(f"{n} {status_of(c)}{tally(n)}" for n, c in report["checks"].items()))
    order = list(dict.fromkeys([*kinds, *(f["kind"] for f in report["findings"])]))
    for kind in order:
        group = [f for f in report["findings"] if f["kind"] == kind]
        if group:
            lines.append(f"\n{kind} ({len(group)})" + (" -- DEFECT" if kind in kinds else ""))
            lines += [
                f"  [{f['check']}] {f['op'] + ': ' if f.get('op') else ''}"
                + (f"{s.describe()}: " if (s := severity_of(f)) else "")
                + f["summary"]
                for f in group
            ]
    reproducible = [
        f
        for f in report["findings"]
        if f.get("reproducer") and (f["kind"] in kinds or f["kind"] == "inconclusive")
    ]
    if reproducible and reproducers:
        lines.append("\nreproducers")
        for f in reproducible:
            lines.append(f"--- {f['kind']} {f.get('op') or ''} [{f['check']}]".rstrip())
            lines.append(f["reproducer"])
    defects = [f for f in report["findings"] if f["kind"] in kinds]
    lines.append("")
    lines.append(f"{len(defects)} defect(s)" if defects else "no defects")
    return "\n".join(lines)


def corpus() -> list[tuple[Audited | None, str, str]]:
    """(engine, label, name) of every audit, ours last (engine None): the label heads its row and
    page, the name is its results file's (RESULTS/<name>.json)."""
    return [*((e, e.label, e.name) for e in ENGINES), (None, OURS, "autograd")]


def saved_results() -> dict[str, dict[str, Any]]:
    """The saved result of every audit of the corpus that has one, by label, in the corpus's order."""
    paths = [(label, RESULTS / f"{name}.json") for _, label, name in corpus()]
    return {label: json.loads(path.read_text()) for label, path in paths if path.exists()}


def pages(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Every page of docs/audits/, by file name, from the results alone."""
    columns = matrix_columns(results)
    written = {"index.md": index_page(results)}
    for label, result in results.items():
        written[page_of(label)] = engine_page(label, result, columns)
    return written


def write_pages(written: dict[str, str]) -> None:
    """Write the pages into docs/audits/, removing the page of an engine no longer audited."""
    DOCS.mkdir(parents=True, exist_ok=True)
    for stale in set(p.name for p in DOCS.glob("*.md")) - set(written):
        (DOCS / stale).unlink()
    for name, text in written.items():
        (DOCS / name).write_text(text)


def page_of(label: str) -> str:
    """The file name, in docs/audits/, of the page of the engine a result is labelled with."""
    return "verified-autograd.md" if label == OURS else label.partition("==")[0].lower() + ".md"


def title_of(label: str) -> str:
    """An engine's name and version as a heading: `micrograd 0.1.0`."""
    name, _, version = label.removesuffix(" (adapter)").partition("==")
    return f"{name} {version} through the adapter" if label.endswith(" (adapter)") else f"{name} {version}"


def how_run(results: dict[str, dict[str, Any]]) -> str:
    """How the results were produced: the command, the harness and the Python they were run with."""
    made = sorted({(r.get("harness", ""), r.get("python", "")) for r in results.values()})
    harness = " and ".join(
        (h or "the harness of this repository") + (f" on Python {p}" if p else "") for h, p in made
    )
    return (
        "`python -m autograd.testing audit TARGET --json` in a process of its own (its page gives the "
        f"command, its report the settings), with {harness}"
    )


def index_page(results: dict[str, dict[str, Any]]) -> str:
    """docs/audits/index.md: the matrix of engines by defect class, how to read it, the corpus."""
    kinds = defect_kinds()
    columns = matrix_columns(results)
    audited = sum(r["status"] == "audited" for r in results.values())
    indexed = [e for e in ENGINES if e.label in results and "--adapter" not in e.args]
    adapted = [e for e in ENGINES if e.label in results and "--adapter" in e.args]
    minutes = sum(r["seconds"] for r in results.values()) / 60
    lines = [
        "# Audits of scalar autograd engines",
        "",
        f"The harness of this repository audits {len(indexed)} scalar autograd engines from the package "
        f"index, each at a pinned version, {', '.join(e.name for e in adapted) or 'no other'} through "
        "the adapter the package ships, and, in the last row, this repository's own engine: "
        f"{audited} of {len(results)} could be audited. Each engine has a page of its own (follow its "
        "name in the matrix): what was audited, its defects with a reproducer for each, how each defect "
        "was confirmed independently of the harness, the facts the audit found and the report.",
        "",
        f"These pages are generated by `tox -e audits` (`.ci/audits.py`): each engine audited with "
        f"{how_run(results)}; {minutes:.0f} minute{'' if round(minutes) == 1 else 's'} of wall "
        "time one after another. `python .ci/audits.py --render` writes them again from the saved "
        "results.",
        "",
        "## How to read the matrix",
        "",
        "**Defects and information.** The defect classes are "
        + ", ".join(f"`{k}`" for k in kinds)
        + "; everything else the audit reports is information: "
        + READING[0],
        "",
        *(paragraph for text in READING[1:] for paragraph in (text, "")),
        "## Matrix",
        "",
        "| engine | " + " | ".join(f"`{c}`" for c in columns) + " | facts |",
        "|---|" + "---|" * len(columns) + "---|",
    ]
    lines += [matrix_row(label, result, columns, page_of(label)) for label, result in results.items()]
    lines += [
        "",
        "## Summary",
        "",
        "| engine | class | defects (kind: ops) | depth_limit | accepts_invalid | unsupported "
        "| checks not applicable | audit time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [summary_row(label, result, kinds, page_of(label)) for label, result in results.items()]
    lines += [
        "",
        "## The corpus",
        "",
        "| engine | audited as | why it is here | installed |",
        "|---|---|---|---|",
    ]
    lines += [corpus_row(engine) for engine in ENGINES if engine.label in results]
    lines += ["", "## Guards against false alarms", ""]
    lines += [
        "Engines of this corpus that differ from the usual make the harness's guards against false "
        "alarms concrete; each guard is held by a test:",
        "",
    ]
    lines += [f"- {text}" for text in GUARDS]
    return "\n".join(lines) + "\n"


def corpus_row(engine: Audited) -> str:
    how = " ".join(x for x in (engine.target or "", *engine.args) if x)
    where = f"own directory: {engine.own_dir}" if engine.own_dir else "in the environment"
    deps = f" (with {', '.join(engine.deps)})" if engine.deps else ""
    return f"| [{engine.label}]({page_of(engine.label)}) | `{how}` | {engine.why} | {where}{deps} |"


def engine_page(label: str, result: dict[str, Any], columns: list[str]) -> str:
    """docs/audits/<engine>.md: one engine's audit, its defects with reproducers, the notes on how
    they were confirmed, its facts and the report."""
    kinds = defect_kinds()
    engine = next((e for e in ENGINES if e.label == label), None)
    lines = [f"# {title_of(label) if engine else label}", "", "[All engines](index.md)", ""]
    if engine:
        how = " ".join(x for x in (engine.target or "", *engine.args) if x)
        where = f"into a directory of its own: {engine.own_dir}" if engine.own_dir else "in the environment"
        deps = f" (with {', '.join(engine.deps)})" if engine.deps else ""
        lines += [
            f"- **Version**: {engine.requirement.partition('==')[2]} (pinned in `.ci/audits.py`)",
            f"- **Audited as**: `{how}`",
            f"- **Why it is here**: {engine.why}",
            f"- **Installed**: {where}{deps}",
        ]
    else:
        lines += ["- **Audited as**: `autograd`, this repository's engine"]
    harness = result.get("harness")
    lines += [
        *([f"- **Harness**: {harness}"] if harness else []),
        f"- **Command**: `python {' '.join(result['command'])}`",
        f"- **Audit time**: {result['seconds']:.0f} s",
    ]
    if result["status"] != "audited":
        why = short_failure(result)
        lines += ["", "## Not audited", "", why[:1].upper() + why[1:] + "."]
    else:
        report = result["json"]
        lines.insert(-2, f"- **Class**: `{report['class']}`")
        defects = [f for f in report["findings"] if f["kind"] in kinds]
        lines += ["", "## Defects", ""]
        if defects:
            lines += [
                f"{len(defects)} defect(s), one finding per class and op. In bold the ops that are wrong; "
                "after `at the extremes:` those only inaccurate at the extremes.",
                "",
                "| class | ops | findings |",
                "|---|---|---|",
            ]
            for kind in kinds:
                group = [f for f in defects if f["kind"] == kind]
                if group:
                    lines.append(f"| `{kind}` | {defect_cell(group)} | {len(group)} |")
        else:
            lines.append("None.")
        if defects:
            notes = NOTES.get(label.removesuffix(" (adapter)"), "Not confirmed.")
            lines += ["", "## How the defects were confirmed", "", linked_notes(notes)]
        lines += ["", "## Facts", "", *fact_lines(report, columns)]
        reproducible = [
            f
            for f in report["findings"]
            if f.get("reproducer") and (f["kind"] in kinds or f["kind"] == "inconclusive")
        ]
        if reproducible:
            lines += ["", "## Reproducers", ""]
            lines += [
                "Each defect (and each inconclusive finding) as a script that imports the engine and "
                "prints what it computes beside what it should:",
            ]
            for f in reproducible:
                op = f"`{f['op']}` " if f.get("op") else ""
                lines += ["", f"**{f['kind']}** {op}(check `{f['check']}`):", ""]
                lines += ["```python", f["reproducer"].rstrip(), "```"]
    lines += ["", "## Report", "", "```text", text_report(result, kinds, reproducers=False).rstrip(), "```"]
    return "\n".join(lines) + "\n"


def linked_notes(text: str) -> str:
    """The notes, "as micrograd" a link to micrograd's page (a defect shared with another engine)."""
    names = "|".join(re.escape(e.name) for e in ENGINES)
    return re.sub(rf"\bas ({names})\b", lambda m: f"as [{m[1]}]({m[1].lower()}.md)", text)


def fact_lines(report: dict[str, Any], columns: list[str]) -> list[str]:
    """The engine's facts (information, not defects) as a list."""
    findings = report["findings"]
    depths = [f["actual"].split(" (")[0] or f["expected"] for f in findings if f["kind"] == "depth_limit"]
    invalid = sum(f["kind"] == "accepts_invalid" for f in findings)
    unsupported = sorted({markdown(f.get("op") or "numbers") for f in findings if f["kind"] == "unsupported"})
    reasons = report.get("reasons", {})
    na = [
        f"`{name}`" + (f" ({reasons[name]})" if reasons.get(name) else "")
        for name, check in report["checks"].items()
        if status_of(check) == "not_applicable"
    ]
    return [
        f"- **Depth a backward survives**: {', '.join(depths) or '?'}",
        f"- **Invalid inputs accepted**: {invalid} finding(s)",
        f"- **Unsupported**: {', '.join(unsupported) or 'nothing'}",
        f"- **Checks not applicable**: {'; '.join(na) or 'none'}",
        f"- **Information, by kind**: {facts(report, columns)}",
    ]


# ---------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--install", action="store_true", help="install the pinned engines first")
    parser.add_argument(
        "--only",
        metavar="NAMES",
        help="comma-separated engine names to re-audit; the "
        "others come from the last run's results (.ci/audit-results)",
    )
    parser.add_argument(
        "--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per audit (%(default)s)"
    )
    parser.add_argument("--list", action="store_true", help="print the corpus and exit")
    parser.add_argument("--render", action="store_true", help="audit nothing: write the pages from the "
                        "last run's results (after editing NOTES)")  # fmt: skip
    parser.add_argument("audit_args", nargs="*", help="more arguments for every audit (after --)")
    args = parser.parse_args()
    if args.list:
        for e in ENGINES:
            print(
                f"{e.label:28} {' '.join(audit_command(e, [])[3:])}"
                + (f"   [{e.own_dir}]" if e.own_dir else "")
            )
        return
    only = set() if args.render else set(args.only.split(",")) if args.only else None
    if only and only - {e.name for e in ENGINES} - {"autograd"}:
        sys.exit(f"audits: no engine named {', '.join(sorted(only - {e.name for e in ENGINES}))}")
    if args.install:
        install(ENGINES)
    if not args.render:
        check_installed(ENGINES)
    RESULTS.mkdir(parents=True, exist_ok=True)
    saved = saved_results()
    results: dict[str, dict[str, Any]] = {}
    total = time.perf_counter()
    for engine, label, name in corpus():
        if only is not None and name not in only:
            if label not in saved:
                sys.exit(f"audits: no saved result for {name}; run without --only first")
            results[label] = saved[label]
            continue
        result = run_audit(engine, args.audit_args, args.timeout)
        (RESULTS / f"{name}.json").write_text(json.dumps(result, indent=1) + "\n")
        results[label] = result
        what = result["status"] if result["status"] == "audited" else short_failure(result)
        print(f"audited {label} in {result['seconds']:.1f} s: {what}", file=sys.stderr)
    print(f"all audits: {time.perf_counter() - total:.0f} s", file=sys.stderr)
    write_pages(pages(results))
    print(f"wrote {DOCS}", file=sys.stderr)


if __name__ == "__main__":
    main()
