"""Fixtures shared by the tests of autograd.testing."""

import pytest

import autograd.testing.identify as identify_module


@pytest.fixture
def discovery_afresh():
    """Each test discovers its engines' extra ops itself (identify caches them per engine).

    A mutation run (mutmut) runs a mutant only against the tests that called its function in a
    clean run; with the cache shared between tests, only the first test to discover an engine ran
    the discovery code, and the others' assertions about what it found never met its mutants.
    """
    identify_module._discover.cache_clear()
