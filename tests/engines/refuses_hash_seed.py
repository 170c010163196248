"""sound's Value, but an interpreter started by ``python -c`` under PYTHONHASHSEED=2 exits at import
with a message, and one under PYTHONHASHSEED=3 exits silently: the determinism probe's fresh
interpreters fail there, and the probe must say so seed by seed (this process is never affected).
"""

import os
import sys

from tests.engines import sound

if sys.argv[0] == "-c" and os.environ.get("PYTHONHASHSEED") == "2":
    sys.exit("refuses_hash_seed: will not run under hash seed 2")
if sys.argv[0] == "-c" and os.environ.get("PYTHONHASHSEED") == "3":
    os._exit(3)


class Value(sound.Value):
    pass
