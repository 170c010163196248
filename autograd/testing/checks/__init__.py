"""The checks of an audit, one module a family, all in one registry.

::

    check (name in the report)          module            judges
    ops                                 per_op.py         ops and number types the engine lacks (facts)
    exact, symbolic, forward            per_op.py         each op in random graphs: gradients and values
    linearity, build_order,             properties.py     exact properties of gradients (and the
      chain_sweep, mlp                                    properties as pure functions, check_*)
    stateful                            stateful.py       backward(), zeroing and create_graph in any
                                                          order, against a model (machine.py) under the
                                                          backward() convention (conventions.py)
    second_order                        second_order.py   Hessians against sympy's
    extra_ops, self_consistency         extra_ops.py      ops beyond the table

``registry.py`` is the registry that :func:`~autograd.testing.auditor.audit`,
:func:`~autograd.testing.auditor.run_checks` and :func:`~autograd.testing.verify.verify_engine`
iterate (the probes of :mod:`autograd.testing.probes` register there too); ``gradients.py`` judges
one graph (the trials the searches run) and ``common.py`` runs a graph on the engine and writes
where it failed.  A new check is a function decorated with ``@check(name, order=...)`` in the
module of its family (or a new module imported below).
"""

from autograd.testing.checks import extra_ops, per_op, second_order, stateful  # registers them
from autograd.testing.checks.conventions import (
    OUR_CONVENTION,
    BackwardConvention,
    backward_convention,
    convention_gradients,
    convention_reproducer,
    model_backward,
)
from autograd.testing.checks.machine import SEEN, EngineCrash, ModelMismatch
from autograd.testing.checks.properties import (
    PropertyViolated,
    chain_graph,
    check_backward_twice,
    check_build_order,
    check_chain_sweep,
    check_exact,
    check_fd,
    check_forward,
    check_linearity,
    check_mlp,
    check_symbolic,
    linear_combination_graphs,
    mlp_loss_graph,
)
from autograd.testing.checks.registry import REGISTRY, Check, Run, check
from autograd.testing.checks.stateful import RATIONAL_BINARY, RATIONAL_UNARY, run_stateful, stateful_machine

__all__ = [
    "OUR_CONVENTION", "RATIONAL_BINARY", "RATIONAL_UNARY", "REGISTRY", "SEEN", "BackwardConvention",
    "Check", "EngineCrash", "ModelMismatch", "PropertyViolated", "Run", "backward_convention",
    "chain_graph", "check", "check_backward_twice", "check_build_order", "check_chain_sweep", "check_exact",
    "check_fd", "check_forward", "check_linearity", "check_mlp", "check_symbolic", "convention_gradients",
    "convention_reproducer", "extra_ops", "linear_combination_graphs", "mlp_loss_graph", "model_backward",
    "per_op", "run_stateful", "second_order", "stateful", "stateful_machine",
]  # fmt: skip
