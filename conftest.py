"""Hypothesis profiles shared by tests/, properties/ and regressions/.

Pick one with ``--hypothesis-profile=NAME`` or ``HYPOTHESIS_PROFILE=NAME``:

* ``dev``: quick, random; the default outside tox.
* ``ci``: deterministic (``derandomize``), no deadline; the default under tox.
* ``mutation``: small, deterministic, no example database; used by mutmut.
* ``thorough``: ten times ``ci``'s examples; ``tox -e thorough``.

A failure under a deterministic profile reproduces by running the same test
with the same profile; the falsifying example is printed as runnable code.
"""

import os

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
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
