"""The pytest integration as a user's CI would use it (make check runs
this file with Debian's python3-pytest): the shipped engines are
certified, a planted bug fails the test with pecert's diagnosis, and
every operation crosses the Python host whole.
"""
import json
import os
import re
import subprocess

import pytest

from pecert.testing import NotCertified, assert_certified

pytest_plugins = ["pecert.testing"]

TESTS = os.path.dirname(os.path.abspath(__file__))
IMPLS = os.path.join(os.path.dirname(os.path.dirname(TESTS)), "impls", "python")


def test_torch_rope_is_certified_for_llama_3_1(pecert_certify):
    said = pecert_certify(os.path.join(IMPLS, "torch_rope.py"), profile="llama-3.1-8b")
    assert "CERTIFIED for llama-3.1-8b" in said


def test_a_planted_bug_fails_with_the_diagnosis():
    with pytest.raises(NotCertified) as failed:
        assert_certified(os.path.join(IMPLS, "mutants", "pairing_swapped.py"), profile="llama-3.1-8b")
    said = " ".join(str(failed.value).split())  # pecert wraps its lines
    assert "NOT CERTIFIED for llama-3.1-8b" in said
    assert "diagnosis: pairing convention swapped" in said


def _run_json(pecert, impl, out, env=None):
    """pecert run's JSON (no timings) of impl, every check."""
    subprocess.run([pecert, "run", "--impl", impl, "--no-timings", "--jobs", "2", "--quiet", "--json", out],
                   env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)


def _as_c_says_it(text):
    """A decline's line as the C plugin said it: the Python fixture raises
    NotImplementedError with the plugin's last_error, which the host
    prefixes with its type and follows with the fixture's line (which a
    shortened diagnosis may have cut)."""
    text = re.sub(r" \(c_plugin_engine\.py:\d+\)", "", text)
    return text.replace("NotImplementedError: ", "")


def test_every_operation_is_carried_whole(tmp_path):
    """ref through the Python host (tests/python/c_plugin_engine.py hands
    every keyword argument back to ref's C functions) gives ref's results
    through the C host, for every check of every family: each operation's
    arguments, arrays, strides and statuses cross the Python host whole."""
    pecert = os.environ.get("PECERT", "pecert")
    ref = os.path.join(os.path.dirname(os.path.abspath(pecert)), "impls", "ref.so")
    via_c = _run_json(pecert, ref, str(tmp_path / "c.json"))
    fixture = "python:" + os.path.join(TESTS, "c_plugin_engine.py") + ":Engine"
    via_python = _run_json(pecert, fixture, str(tmp_path / "python.json"), dict(os.environ, PECERT_C_PLUGIN=ref))
    assert via_python["summary"] == via_c["summary"]
    assert via_python["summary"]["fail"] == 0 and via_python["summary"]["pass"] >= 50
    for theirs, ours in zip(via_c["checks"], via_python["checks"]):
        ours = json.loads(_as_c_says_it(json.dumps(ours)))
        assert ours == theirs, ours["check"]
    assert len(via_c["checks"]) == len(via_python["checks"])
    del via_c["plugin"]["path"], via_python["plugin"]["path"]
    assert via_python["plugin"] == via_c["plugin"]


SCOPED_ENGINE = '''
import pecert

scope = {"max_position": 2**31 - 1, "flags": pecert.SCOPE_WHOLE_HEAD_ONLY,
         "rope_apply_dtypes": 1 << pecert.DTYPE_F32}


def rope_apply(pairing, config, seq_len, positions, x, out):
    raise RuntimeError("called beyond the declared scope: dtype %s" % x.dtype)
'''


def test_a_declared_scope_is_never_called_beyond(tmp_path):
    """An engine's `scope` is the C descriptor's pecert_scope: pecert shows
    it and never calls the engine outside it (this one fails any call)."""
    engine = tmp_path / "scoped.py"
    engine.write_text(SCOPED_ENGINE)
    pecert = os.environ.get("PECERT", "pecert")
    out = str(tmp_path / "scoped.json")
    subprocess.run([pecert, "run", "--impl", "python:%s" % engine, "--filter", "rope.half_precision", "--json", out],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        said = json.load(f)
    assert said["plugin"]["scope"] == "positions <= 2147483647, whole heads only, rope_apply on f32"
    check = said["checks"][0]
    assert check["verdict"] == "unsupported" and "beyond" in check["diagnosis"], check
