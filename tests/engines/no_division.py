"""Our engine without division (no ``/`` between Values or numbers): a missing op, not a defect.

Whatever does not divide (the nested probe's nests add, subtract and multiply) must be judged on
it as on our engine.
"""

from pathlib import Path

import autograd.engine

# a copy of the engine's source in this module (so reproducers import it from here)
exec(compile(Path(autograd.engine.__file__).read_text(encoding="utf-8"), autograd.engine.__file__, "exec"))

del Value.__truediv__, Value.__rtruediv__  # noqa: F821  (defined by the exec above)
