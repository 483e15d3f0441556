#!/usr/bin/python3
"""check_readme.py BUILD - the README is true (part of `make check`).

Runs every command of README.md's ```sh blocks that can run offline, in a
scratch directory that has the repository's build/, include/, impls/,
vectors/ and conformance/ beside it, and fails if one exits with another
status than the README says, or if a documented output drifted from what
the command prints:

  * the plugin of "Writing a plugin" is built with the README's own `cc`
    line, and the adapter of "Certify your engine" from the README's own C
    block (linked with a stand-in for the engine's kernel, below), so the
    code a porter copies compiles and certifies;
  * the derived-parameters sample is what `certify --profile llama-3.1-8b
    --print` prints (every line shown, in order), the verdict sample is the
    adapter's verdict line on config.json, and the model_type list is what
    `certify --list-model-types` prints;
  * the counts the README states (bundled profiles, mutants, honest
    variants) are the repository's.

A command this script does not know is an error: a new README command must
be given its expected status (or a reason it cannot run offline) here.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Commands that do not run here, and why.
NOT_RUN = {
    "make run": "the main job itself (make check runs this test: no recursion)",
    "make check": "the test job itself (it runs this test)",
    "make vectors": "needs checkouts of the official reference code (not offline)",
}

# Expected exit status of each command (a regex on the command), first
# match wins; what the README says each does.
EXPECTED = [
    (r"^cc ", 0),
    (r"^build/pecert list$", 0),
    (r"^build/pecert run --impl ref\b", 0),
    # impls/example (default RoPE, both pairings): the README shows its
    # failures without promising a status, so 0 or 1 (never 2 or 3).
    (r"^build/pecert run --impl \./libmyrope\.so", None),
    (r"^build/pecert report ", 0),
    (r"^build/pecert certify --config config\.json --impl \./my_adapter\.so$", 0),
    (r"^build/pecert certify --profile llama-3\.1-8b --impl \./my_adapter\.so$", 1),  # llama3 declined
    (r"^build/pecert certify --list-profiles$", 0),
    (r"^build/pecert certify --list-model-types$", 0),
    (r"^build/pecert certify --config config\.json --print$", 0),
    (r"^build/pecert certify --all-profiles --impl \./my_adapter\.so", 1),  # not every profile
    (r"^mkdir -p dump$", 0),
    (r"^build/pecert dump --impl build/impls/mutants/decode_off_by_one\.so ", 0),
    (r"^build/pecert diagnose --profile llama-3\.1-8b --before dump/", 1),  # the off-by-one, named
]

# The stand-in for "your engine's kernel" the README's adapter calls:
# split-half rotation in place, angles in double.
ENGINE_C = r"""
#include <math.h>
#include <stdint.h>
void my_engine_rope(float *x, int64_t tokens, int64_t heads, int64_t head_dim,
                    int64_t rotary_dim, const int64_t *pos, double theta)
{
    int64_t half = rotary_dim / 2;
    for (int64_t t = 0; t < tokens; t++) {
        for (int64_t h = 0; h < heads; h++) {
            float *v = x + (t * heads + h) * head_dim;
            for (int64_t i = 0; i < half; i++) {
                double a = (double)pos[t] * pow(theta, -2.0 * (double)i / (double)rotary_dim);
                double c = cos(a), s = sin(a), x0 = v[i], x1 = v[i + half];
                v[i] = (float)(x0 * c - x1 * s);
                v[i + half] = (float)(x1 * c + x0 * s);
            }
        }
    }
}
"""

# A default-RoPE Llama checkpoint (Llama 2 7B's config.json fields that
# name positions): what "Certify your engine" certifies the adapter for.
CONFIG_JSON = """{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
 "num_key_value_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000.0,
 "rope_scaling": null}
"""


def code_blocks(text, lang):
    """The bodies of the ```lang blocks, in order."""
    return re.findall(r"^```%s\n(.*?)^```" % re.escape(lang), text, flags=re.S | re.M)


def commands(block):
    """The commands of a sh block: continuation lines joined, comments cut."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(re.sub(r"\s+", " ", line))
    return out


def expected_status(cmd):
    for pattern, status in EXPECTED:
        if re.search(pattern, cmd):
            return True, status
    return False, None


def setup(scratch, readme, build):
    for name in ("include", "impls", "vectors", "conformance"):
        os.symlink(ROOT / name, scratch / name)
    os.symlink(build.resolve(), scratch / "build")
    (scratch / "config.json").write_text(CONFIG_JSON)
    (scratch / "my-vectors").mkdir()
    for f in (ROOT / "vectors" / "rope").glob("freq.*"):
        shutil.copy(f, scratch / "my-vectors")
    adapters = [b for b in code_blocks(readme, "c") if "my_engine_rope" in b]
    if len(adapters) != 1:
        raise SystemExit("readme: expected one C block with the adapter (my_engine_rope), found %d" % len(adapters))
    (scratch / "my_adapter.c").write_text(adapters[0])
    (scratch / "my_engine.c").write_text(ENGINE_C)
    cc = ["cc", "-std=c17", "-O2", "-fPIC", "-shared", "-Iinclude", "my_adapter.c", "my_engine.c", "-o",
          "my_adapter.so", "-lm"]
    done = subprocess.run(cc, cwd=scratch, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit("readme: the README's adapter does not compile:\n" + done.stderr)
    # The README's plugin first: its commands use it before the block that builds it.
    cc_lines = [c for b in code_blocks(readme, "sh") for c in commands(b) if c.startswith("cc ")]
    for line in cc_lines:
        done = subprocess.run(line, shell=True, cwd=scratch, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit("readme: %r fails:\n%s" % (line, done.stderr))
    # `pecert report a.json b.json`: two shards of one run.
    for i in (1, 2):
        subprocess.run(["build/pecert", "run", "--impl", "ref", "--quiet", "--shard", "%d/2" % i, "--json",
                        "%s.json" % "ab"[i - 1]], cwd=scratch, capture_output=True)


def concrete(cmd):
    """The command with the README's placeholder paths made real."""
    return cmd.replace("/path/to/checkpoint/config.json", "config.json")


def run(scratch, cmd):
    done = subprocess.run(cmd, shell=True, cwd=scratch, capture_output=True, text=True, timeout=1800)
    return done.returncode, done.stdout + done.stderr


def sample_after(readme, marker):
    """The first plain ``` block after the line containing marker."""
    at = readme.index(marker)
    found = re.search(r"^```\n(.*?)^```", readme[at:], flags=re.S | re.M)
    return found.group(1).splitlines()


def check_samples(scratch, readme, outputs):
    failures = []
    _, printed = run(scratch, "build/pecert certify --profile llama-3.1-8b --print")
    lines = printed.splitlines()
    at = 0
    for want in sample_after(readme, "It first prints the derived parameters"):
        if want.strip() == "...":
            continue
        while at < len(lines) and lines[at].rstrip() != want.rstrip():
            at += 1
        if at == len(lines):
            failures.append("derived-parameters sample line not printed (in order): %r" % want)
            break
    verdict = [l for l in sample_after(readme, "The last two lines are the verdict")
               if l.startswith(("verdict:", "coverage:"))]
    got = [l for l in outputs.get("build/pecert certify --config config.json --impl ./my_adapter.so", "").splitlines()
           if l.startswith(("verdict:", "coverage:"))]
    if verdict != got:
        failures.append("verdict sample %r, the command prints %r" % (verdict, got))
    types = [l for l in sample_after(readme, "The model types certify reads")]
    _, printed = run(scratch, "build/pecert certify --list-model-types")
    if types != printed.splitlines():
        failures.append("model_type list differs from `certify --list-model-types`:\n%s" % printed)
    return failures


def check_counts(readme, outputs):
    failures = []
    printed = outputs.get("build/pecert certify --list-profiles", "")
    profiles = len([l for l in printed.splitlines() if l.startswith("  ")])
    mutants = len(re.findall(r'"name":', (ROOT / "impls/mutants/catalogue.json").read_text()))
    honest = len(list((ROOT / "impls/honest").glob("*.c")))
    claims = [
        (r"the (\d+) bundled ones", profiles, "bundled profiles"),
        (r"\*\*mutants\*\*: (\d+) bugs", mutants, "mutants"),
        (r"proves all (\d+) are caught", 2 * mutants, "mutant runs (two bases)"),
        (r"\*\*honest variants\*\*: (\d+) float32", honest, "honest variants"),
    ]
    for pattern, actual, what in claims:
        found = re.search(pattern, readme)
        if found is None:
            failures.append("the README no longer states the number of %s (%s)" % (what, pattern))
        elif int(found.group(1)) != actual:
            failures.append("the README says %s %s, the repository has %d" % (found.group(1), what, actual))
    return failures


def main():
    if len(sys.argv) != 2:
        print("usage: check_readme.py BUILD", file=sys.stderr)
        return 2
    build = pathlib.Path(sys.argv[1])
    readme = (ROOT / "README.md").read_text()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="pecert-readme-"))
    failures = []
    outputs = {}
    ran = skipped = 0
    try:
        setup(scratch, readme, build)
        for block in code_blocks(readme, "sh"):
            for cmd in map(concrete, commands(block)):
                why = next((w for k, w in NOT_RUN.items() if cmd.startswith(k)), None)
                if why is not None:
                    skipped += 1
                    continue
                known, status = expected_status(cmd)
                if not known:
                    failures.append("a README command this test does not know: %r (give it an expected status "
                                    "in tests/readme/check_readme.py)" % cmd)
                    continue
                rc, out = run(scratch, cmd)
                outputs[cmd] = out
                ran += 1
                if rc not in (0, 1) or (status is not None and rc != status):
                    failures.append("%r exits %d (expected %s):\n%s" % (cmd, rc, status if status is not None
                                                                           else "0 or 1", out[-1500:]))
        failures += check_samples(scratch, readme, outputs)
        failures += check_counts(readme, outputs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("readme: %s" % f, file=sys.stderr)
    print("readme: %s; %d commands run, %d not run offline (%s)" % (
        "FAILED" if failures else "OK", ran, skipped, "; ".join(sorted(set(NOT_RUN)))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
