"""The audit as a pytest plugin: ``pytest --audit=pkg.module`` gives one test item per check.

The ``pytest11`` entry point ``autograd.pytest_plugin`` of the distribution: it loads in every
pytest session of an environment that has the package, so it imports nothing but pytest and this
module (``import autograd`` is the engine alone, the standard library's).  The harness
(:mod:`autograd.testing`, with sympy, mpmath and hypothesis) and the items
(:mod:`autograd.testing.pytest_plugin`) are imported only when an ``--audit`` option is given or
the :func:`autograd_audit` fixture is used; without them the plugin adds no item and prints
nothing.  (The entry point is here and not in ``autograd.testing``: importing anything there
imports the harness.)

Options (``pytest --help``, group "autograd audit"): ``--audit=TARGET`` (``pkg.module`` or
``pkg.module:ClassName``, as ``python -m autograd.testing audit`` takes it; repeat for several
engines), ``--audit-examples=N`` and ``--audit-seed=S`` (the audit's ``--examples`` and
``--seed``), ``--audit-accepted=PATH`` (the accepted-findings file; default:
``audit-accepted.toml`` in the rootdir, when it exists).  A target with no engine is a usage
error (exit status 4).  See docs/pytest-plugin.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from autograd.testing.pytest_plugin import AuditFixture

__all__ = ["autograd_audit", "pytest_addoption", "pytest_configure"]


# ---------------------------------------------------------------------- options and configuration
def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("autograd audit", "audit a scalar autograd engine (autograd.testing)")
    group.addoption(
        "--audit",
        action="append",
        default=[],
        metavar="TARGET",
        help='audit an engine, "pkg.module" or "pkg.module:ClassName": one test item per check '
        "(repeat for several engines)",
    )
    group.addoption(
        "--audit-examples",
        type=int,
        default=None,
        metavar="N",
        help="examples per search (default: the audit's, 40)",
    )
    group.addoption("--audit-seed", type=int, default=0, metavar="S", help="seed of every search (default 0)")
    group.addoption(
        "--audit-accepted",
        default=None,
        metavar="PATH",
        help="the accepted-findings file (default: audit-accepted.toml in the rootdir, if it exists)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "autograd_audit: an item of the audit of an engine (pytest --audit=TARGET)"
    )
    targets: list[str] = config.getoption("audit")
    examples = config.getoption("audit_examples")
    if examples is not None and examples < 1:
        raise pytest.UsageError(f"--audit-examples must be at least 1, not {examples}")
    if targets:
        try:
            from autograd.testing import pytest_plugin
        except ImportError as exc:
            if not isinstance(exc.__cause__, ModuleNotFoundError):
                raise  # not the testing extra's (whose message says what to install): ours, loud
            raise pytest.UsageError(f"--audit: {exc}") from None
        pytest_plugin.start(config, targets)


# ---------------------------------------------------------------------- the fixture
@pytest.fixture(scope="session")
def autograd_audit(pytestconfig: pytest.Config) -> AuditFixture:
    """A factory of audits: ``report = autograd_audit("pkg.module")``, then e.g.
    ``assert not autograd_audit.unaccepted(report), report.render()``."""
    from autograd.testing.pytest_plugin import AuditFixture, audits

    return AuditFixture(audits(pytestconfig))
