"""sound's Value, but an interpreter started by ``python -c`` under PYTHONHASHSEED=1 sleeps a minute
at import: the determinism probe must name that seed as timed out and judge the others.
"""

import os
import sys
import time

from tests.engines import sound

if sys.argv[0] == "-c" and os.environ.get("PYTHONHASHSEED") == "1":
    time.sleep(60)


class Value(sound.Value):
    pass
