"""pecert in a Python test suite (pytest, or any runner that reads
AssertionError): certify an engine written in Python for a checkpoint and
fail the test with pecert's own diagnosis.

    from pecert.testing import assert_certified

    def test_rope_matches_llama_3_1():
        assert_certified("my_engine.py", profile="llama-3.1-8b")

With pytest, the fixture `pecert_certify` does the same (enable it with
`pytest_plugins = ["pecert.testing"]` in a conftest.py).

The pecert program is $PECERT, else `pecert` on PATH.
"""
import os
import shutil
import subprocess


class NotCertified(AssertionError):
    """pecert did not certify the engine: the message is what it said."""


def _pecert():
    found = os.environ.get("PECERT") or shutil.which("pecert")
    if not found:
        raise RuntimeError("pecert not found: set PECERT to the pecert program, or put it on PATH")
    return found


def certify(engine, profile=None, config=None, sandbox=True, extra=()):
    """Runs `pecert certify` on the engine (a file.py[:OBJECT] or
    MODULE[:OBJECT]) for a bundled profile or a config.json; returns
    (exit status, what pecert printed)."""
    if (profile is None) == (config is None):
        raise ValueError("give a profile or a config, not both")
    spec = engine if str(engine).startswith("python:") else "python:%s" % engine
    args = [_pecert(), "certify", "--impl", spec]
    args += ["--profile", profile] if profile else ["--config", str(config)]
    if not sandbox:
        args += ["--sandbox", "off"]
    done = subprocess.run(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def assert_certified(engine, profile=None, config=None, sandbox=True, extra=()):
    """Fails (NotCertified, an AssertionError) unless pecert certifies the
    engine; the message is pecert's verdict, coverage and diagnosis."""
    status, said = certify(engine, profile, config, sandbox, extra)
    if status != 0:
        what = profile or config
        raise NotCertified("%s is not certified for %s (pecert exit %d):\n%s" % (engine, what, status, said.rstrip()))
    return said


try:
    import pytest
except ImportError:  # the helper works without pytest
    pytest = None

if pytest is not None:
    @pytest.fixture
    def pecert_certify():
        """assert_certified, as a fixture."""
        return assert_certified
