"""Hypothesis profiles shared by tests/, properties/ and regressions/.

Pick one with ``--hypothesis-profile=NAME`` or ``HYPOTHESIS_PROFILE=NAME``:

* ``dev``: quick, random; the default outside tox.
* ``ci``: deterministic (``derandomize``), no deadline; the default under tox.
* ``mutation``: small, deterministic, no example database; used by mutmut.
* ``thorough``: ten times ``ci``'s examples; ``tox -e thorough``.
* ``fast``: deterministic, no deadline, a tenth of ``ci``'s examples; ``tox -e fast``, the tier
  that leaves out the tests marked ``slow`` and ``timing``.

A failure under a deterministic profile reproduces by running the same test
with the same profile; the falsifying example is printed as runnable code.
"""

import os

import pytest
from hypothesis import Phase, settings

settings.register_profile("dev", max_examples=30, deadline=None)
settings.register_profile("ci", max_examples=100, derandomize=True, deadline=None, print_blob=True)
settings.register_profile(
    "mutation",
    max_examples=20,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # no shrinking: a mutant only needs to fail
)
settings.register_profile("thorough", max_examples=1000, derandomize=True, deadline=None, print_blob=True)
settings.register_profile("fast", max_examples=10, derandomize=True, deadline=None, print_blob=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slow: takes seconds (whole audits, probes in child interpreters, training runs, the zoos); left out "
        "of the fast tier (tox -e fast) and of the mutation run (see [tool.mutmut])",
    )
    config.addinivalue_line(
        "markers",
        "timing: asserts what the time probe measures; tox runs these alone, after the rest of the "
        "suite has run on every core (beside other tests' load a pass can run out of its CPU budget)",
    )


# ---------------------------------------------------------------------- hypothesis's own defaults
@pytest.fixture
def hypothesis_defaults():
    """Hypothesis's own default settings (random, an example database, a deadline) during the test:
    under our profiles, settings a function fails to set itself would come from the profile."""
    settings.load_profile("default")
    yield
    settings.load_profile(PROFILE)


# ---------------------------------------------------------------------- tests run alone
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

_ALONE = "AUTOGRAD_TEST_ALONE"


@pytest.fixture
def alone(request: pytest.FixtureRequest) -> bool:
    """True where the test body should run: in a fresh interpreter that collected only this test.

    For tests that assert statistics of one derandomized hypothesis sample: importing other test
    modules (seen: tests/test_compile.py) changes what the same seed draws, so in a full run the
    sample would depend on which modules were collected.  The parent re-runs the test by its node
    id in a child and fails with the child's output when it fails.

    Why: hypothesis (6.170 here) draws a number, one choice in 20, from the literals of every local
    non-test module loaded (``providers._get_local_constants``, a private function, no setting);
    tests/test_compile.py imports regressions/codegen_zoo.py, whose literals join that pool.
    Emptying the pool makes the samples independent of collection, but then micrograd's float
    sample draws ``x ** 1.5`` in none of its 247 powc nodes (and ``x ** -0.5`` in 4): a bound
    of the strategy, not of the pool, to be fixed there before this fixture can go.
    """
    nodeid = request.node.nodeid
    if os.environ.get(_ALONE) in (nodeid, "*"):  # "*": this interpreter collected only chosen tests
        return True
    root = Path(__file__).resolve().parent
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", nodeid],
        env=dict(os.environ, **{_ALONE: nodeid}), cwd=root, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, f"{nodeid} alone:\n{done.stdout[-6000:]}\n{done.stderr[-2000:]}"
    assert " passed" in done.stdout, done.stdout[-2000:]  # the child ran it, and it passed
    return False


# ---------------------------------------------------------------------- mutation runs
import functools  # noqa: E402
import re  # noqa: E402

#: mutmut 3 names the mutant a test process runs, e.g. ``autograd.testing.graph.x__settled__mutmut_3``.
_MUTANT_MODULE = re.compile(r"^(?P<module>[\w.]+)\.x(?:_|ǁ)")


@pytest.fixture(autouse=True)
def _mutated_module_starts_with_empty_caches() -> None:
    """Under mutmut, empty the functools caches :func:`empty_caches` names before each test."""
    empty_caches(os.environ.get("MUTANT_UNDER_TEST", ""))


def empty_caches(under_test: str) -> None:
    """Empty every functools cache of the module being mutated (``under_test``: mutmut's name of
    the mutant), or of the whole package in mutmut's clean run (``"stats"``); else nothing.

    mutmut forks each mutant's test process from one whose clean run filled those caches, so a
    mutant in a function whose results are cached (graph.py's compiled references) never ran
    and survived whatever the tests asserted.  In the clean run, a cached function is reached
    only by the first test that fills its cache, and mutmut runs a mutant only against the tests
    recorded for its function: emptying every cache before each test records them all.
    """
    if under_test == "stats":
        modules = [m for name, m in list(sys.modules.items()) if name.startswith("autograd.")]
    else:
        found = _MUTANT_MODULE.match(under_test)
        modules = [sys.modules[found["module"]]] if found and found["module"] in sys.modules else []
    for module in modules:
        for obj in list(vars(module).values()):
            if isinstance(obj, functools._lru_cache_wrapper):
                obj.cache_clear()


# ---------------------------------------------------------------------- extra-op discovery
@pytest.fixture
def discovery_afresh() -> None:
    """Each test discovers its engines' extra ops itself (identify caches them per engine).

    A mutation run (mutmut) runs a mutant only against the tests that called its function in a
    clean run; with the cache shared between tests, only the first test to discover an engine ran
    the discovery code, and the others' assertions about what it found never met its mutants.
    (Here, not in tests/conftest.py: a second module named conftest would shadow this one for
    ``import conftest`` in tests/test_mutation_runs.py.)
    """
    from autograd.testing import identify

    identify._discover.cache_clear()
