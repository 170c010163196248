"""Verification helpers for autograd engines, in the spirit of ``numpy.testing``.

Everything here checks gradients against oracles that never use an engine's own
derivative rules: sympy's exact derivative at rational points, sympy's
derivative evaluated with mpmath at high precision, and central finite
differences.  Random computation graphs come from hypothesis strategies.

* :mod:`autograd.testing.ops`: one row per operation, every fact a named field (name,
  arity, sympy and float counterparts, region and domain, kinks, closure over the
  rationals, error model): the table ``OPS`` and the catalogue of known functions.
* :mod:`autograd.testing.graph`: ``Graph``, a plain-data computation that
  compiles to engine Values, a sympy expression or a float function.
* :mod:`autograd.testing.oracles.reference`: ``certify``, the one reference every oracle
  and probe calls: the exact value of sympy expressions at floats, certified
  (exact Fractions, or mpmath intervals settled to one float), ``UNDEFINED`` where
  it is not a finite real number, else ``ReferenceUnresolved``.
* :mod:`autograd.testing.strategies`: hypothesis strategies for graphs.
* :mod:`autograd.testing.oracles`: ``assert_grads_exact``,
  ``assert_grads_symbolic``, ``assert_grads_fd``, ``gradcheck``.
* :mod:`autograd.testing.oracles.higher`: second and third derivatives:
  ``assert_hessian_exact``, ``assert_hessian_symbolic``, ``assert_hessian_fd``,
  ``assert_third_exact``, ``gradgradcheck``, ``supports_higher_order``.
* :mod:`autograd.testing.checks`: the checks, one module a family, in one registry
  (the probes of :mod:`autograd.testing.probes` register there too); the properties.
* :mod:`autograd.testing.runner`: the one search every check runs (settings, ``Trials``).
* :mod:`autograd.testing.verify`: ``verify_engine``, the audit with our engine's conventions declared.
* :mod:`autograd.testing.engines`: ``resolve_engine`` finds any engine's scalar class.
* :mod:`autograd.testing.auditor`: ``audit(target)``, the verdict on any engine
  (also ``python -m autograd.testing audit TARGET``), and ``run_checks``.

An *engine* is a module or namespace with a ``Value`` class and optionally the
fused ops ``vsum(values)`` and ``dot(ws, xs, start)``, or a bare Value class.
The default engine is :mod:`autograd` itself.
"""

import sys

try:
    import hypothesis  # noqa: F401
    import mpmath  # type: ignore[import-untyped]  # noqa: F401
    import sympy  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    _message = (
        f"autograd.testing needs sympy, mpmath and hypothesis ({exc.name} is missing); "
        # the distribution is not on the package index: install from a checkout
        "install them with: pip install '.[testing]' (from a checkout of verified-autograd)"
    )
    if sys.argv[:1] == ["-m"]:  # `python -m autograd.testing ...`: one line, exit status 2
        print(f"python -m autograd.testing: {_message}", file=sys.stderr)
        raise SystemExit(2) from None
    raise ImportError(_message) from exc

from autograd.testing.auditor import (
    AuditReport,
    CheckOutcome,
    Finding,
    SearchMode,
    audit,
    run_check,
    run_checks,
)
from autograd.testing.engines import Engine, EngineNotFound, resolve_engine
from autograd.testing.graph import Graph, Node
from autograd.testing.oracles import (
    GradcheckReport,
    GradientMismatch,
    OracleInconclusive,
    assert_grads_exact,
    assert_grads_fd,
    assert_grads_symbolic,
    gradcheck,
)
from autograd.testing.oracles.higher import (
    assert_hessian_exact,
    assert_hessian_fd,
    assert_hessian_symbolic,
    assert_third_exact,
    check_second_order,
    gradgradcheck,
    supports_higher_order,
)
from autograd.testing.oracles.reference import UNDEFINED, Certified, ReferenceUnresolved, certify
from autograd.testing.verify import CHECKS, CheckResult, verify_engine

__all__ = [
    "CHECKS",
    "UNDEFINED",
    "AuditReport",
    "Certified",
    "CheckOutcome",
    "CheckResult",
    "Engine",
    "EngineNotFound",
    "Finding",
    "GradcheckReport",
    "GradientMismatch",
    "Graph",
    "Node",
    "OracleInconclusive",
    "ReferenceUnresolved",
    "SearchMode",
    "assert_grads_exact",
    "assert_grads_fd",
    "assert_grads_symbolic",
    "assert_hessian_exact",
    "assert_hessian_fd",
    "assert_hessian_symbolic",
    "assert_third_exact",
    "audit",
    "certify",
    "check_second_order",
    "gradcheck",
    "gradgradcheck",
    "resolve_engine",
    "run_check",
    "run_checks",
    "supports_higher_order",
    "verify_engine",
]
