"""Regression tests, one module per known bug, and the bug zoo that proves they catch it.

Every check here takes the engine (``engine=``) and/or the network module
(``nn=``) as a keyword argument defaulting to the real ones, so that
``test_bug_zoo.py`` can run the very same checks against deliberately broken
copies (``bug_zoo.py``) and show that each known bug makes some check fail.
"""
