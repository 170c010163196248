"""A module whose import fails inside the harness's own code (not its own): discovery must let that
error through, not report "cannot import" as if it were the target's fact."""

from autograd.testing.engines.apis import read_member

read_member(object(), "no_such_member")  # AttributeError raised by autograd.testing code
