"""The pytest integration as a user's CI would use it (make check runs
this file with Debian's python3-pytest): the shipped engines are
certified, and a planted bug fails the test with pecert's diagnosis.
"""
import os

import pytest

from pecert.testing import NotCertified, assert_certified

pytest_plugins = ["pecert.testing"]

IMPLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "impls", "python")


def test_torch_rope_is_certified_for_llama_3_1(pecert_certify):
    said = pecert_certify(os.path.join(IMPLS, "torch_rope.py"), profile="llama-3.1-8b")
    assert "CERTIFIED for llama-3.1-8b" in said


def test_a_planted_bug_fails_with_the_diagnosis():
    with pytest.raises(NotCertified) as failed:
        assert_certified(os.path.join(IMPLS, "mutants", "pairing_swapped.py"), profile="llama-3.1-8b")
    said = " ".join(str(failed.value).split())  # pecert wraps its lines
    assert "NOT CERTIFIED for llama-3.1-8b" in said
    assert "diagnosis: pairing convention swapped" in said
