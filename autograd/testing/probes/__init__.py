"""Probes: what an audit asks of an engine beside the gradient checks on random graphs.

Each probe is ``probe_NAME(engine, *, examples, seed) -> CheckOutcome`` and builds
everything it needs itself, so the probes are independent: a defect one of them
meets never hides what another would find.  Every finding carries a runnable
reproducer that imports the engine under test (by the names the engine adapter
discovered) and prints what was expected and what happened.

One module a probe (its docstring says what it asks and what counts as a defect)::

    probe (name in the report)       module            finds
    support                          support.py        ops and number types the engine lacks (facts)
    edge_points, out_of_domain       edges.py          each op at the edges of its domain, and outside
    edge_second_order                curvature.py      each op's second derivatives at those edges
    bad_inputs                       bad_inputs.py     garbage data accepted without an error
    conventions                      conventions.py    what a second backward() does, relu'(0) (facts)
    determinism                      determinism.py    different bits across runs and hash seeds
    depth                            depth.py          the deepest chain backward() survives
    nested                           nested.py         perturbation confusion (nested gradients)
    memory                           memory.py         graphs kept alive after they are dropped
    time                             timing.py         cost that grows with paths, not with nodes

``common.py`` holds what several probes share, ``regions.py`` the points the edge probes
derive from an op's region, ``subnormals.py`` how an engine that flushes subnormal numbers is
found once for every op.  :data:`PROBES` lists the probes an audit
runs, in this order; each is registered in the one registry of checks
(:mod:`autograd.testing.checks.registry`), after the checks.  A new probe is a module here
and one line in :data:`PROBES`.
"""

from __future__ import annotations

from collections.abc import Callable

from autograd.testing.checks.registry import probe
from autograd.testing.findings import CheckOutcome
from autograd.testing.probes.bad_inputs import probe_bad_inputs
from autograd.testing.probes.conventions import probe_conventions
from autograd.testing.probes.curvature import probe_edge_second_order
from autograd.testing.probes.depth import probe_depth
from autograd.testing.probes.determinism import probe_determinism
from autograd.testing.probes.edges import probe_edge_points, probe_out_of_domain
from autograd.testing.probes.memory import probe_memory
from autograd.testing.probes.nested import probe_nested
from autograd.testing.probes.support import probe_support
from autograd.testing.probes.timing import probe_time

__all__ = [
    "PROBES",
    "probe_bad_inputs",
    "probe_conventions",
    "probe_depth",
    "probe_determinism",
    "probe_edge_points",
    "probe_edge_second_order",
    "probe_memory",
    "probe_nested",
    "probe_out_of_domain",
    "probe_support",
    "probe_time",
]

#: The probes by name, in the order an audit runs them (cheap facts first, the slow ones last).
PROBES: dict[str, Callable[..., CheckOutcome]] = {
    "support": probe_support,
    "edge_points": probe_edge_points,
    "out_of_domain": probe_out_of_domain,
    "edge_second_order": probe_edge_second_order,
    "bad_inputs": probe_bad_inputs,
    "conventions": probe_conventions,
    "determinism": probe_determinism,
    "depth": probe_depth,
    "nested": probe_nested,
    "memory": probe_memory,
    "time": probe_time,
}
for _order, (_name, _probe) in enumerate(PROBES.items()):
    probe(_name, _probe, order=100 + _order)
