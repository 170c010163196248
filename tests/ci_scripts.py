"""The scripts of .ci/ (no package), imported from their paths for the tests of what they write."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load(name: str) -> ModuleType:
    """``.ci/<name>.py`` as the module ``ci_<name>`` (registered: its dataclasses look it up)."""
    spec = importlib.util.spec_from_file_location(f"ci_{name}", ROOT / ".ci" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"ci_{name}"] = module
    spec.loader.exec_module(module)
    return module
