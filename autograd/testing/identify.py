"""Placeholder: the engine's extra ops (identified by behaviour) land here."""

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def registered_extras(eng: Any) -> Iterator[None]:
    yield
