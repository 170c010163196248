"""Verification helpers for autograd engines, in the spirit of ``numpy.testing``.

Everything here checks gradients against oracles that never use an engine's own
derivative rules: sympy's exact derivative at rational points, sympy's
derivative evaluated with mpmath at high precision, and central finite
differences.  Random computation graphs come from hypothesis strategies.

The package along its flow, a room each (the first name in each line is where to look)::

    engines/      discovery of any engine's scalar class (resolve_engine), adapters, the Engine
                  every check calls through, support probing (engines/support.py)
    boundary.py   the one place that catches what an engine raises (EngineRaised)
    ops/          one row per operation, every fact a named field (ops/row.py), the table
                  OPS (ops/table.py), the catalogue of known functions (ops/catalogue.py)
    graph.py      Graph: a computation described once, compiled to engine Values, sympy, floats
    strategies/   hypothesis strategies of graphs and of the properties' examples
    oracles/      the certified reference (oracles/reference.py: certify), the exact,
                  symbolic and finite-difference oracles, their tolerances, higher order
    checks/       the checks, one module a family, in one registry (checks/registry.py)
    probes/       the probes (edges, bad inputs, conventions, depth, memory, time, ...),
                  registered in the same registry
    runner.py     the one search every check runs: hypothesis settings, Trials
    verdicts.py   the rules: second vote, identity, severity; findings.py: what a check found
    auditor.py    audit(target) and run_checks(names, engine): the registry, run
    report.py     the report and its JSON; reproducers.py: the programs findings carry
    verify.py     verify_engine: the audit's checks with our conventions declared

The public functions (``assert_grads_exact``, ``assert_grads_symbolic``, ``assert_grads_fd``,
``gradcheck``, the Hessian oracles, ``certify``, ``audit``, ``run_checks``, ``verify_engine``)
are re-exported here.

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
