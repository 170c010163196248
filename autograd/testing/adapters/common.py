"""What the framework adapters share: importing the framework, or saying how to install it."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["require"]


def require(module: str, framework: str, extra: str) -> Any:
    """The module ``module`` of ``framework``; when it is not installed, the ImportError says
    which framework the adapter needs and the optional extra that installs it (the import's own
    error, reworded: its traceback still ends in the import system, not in the harness)."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        exc.msg = (
            f"the {framework} adapter needs {module}, which is not installed "
            f"(pip install 'verified-autograd[{extra}]')"
        )
        raise
