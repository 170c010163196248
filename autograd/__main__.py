"""``python -m autograd``: see :mod:`autograd.cli`."""

import sys

from autograd.cli import main

sys.exit(main())
