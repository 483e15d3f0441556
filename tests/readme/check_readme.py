#!/usr/bin/python3
"""check_readme.py BUILD - the README and the manuals under docs/ are true
(part of `make check`).

Reads README.md and every docs/*.md, and fails if any of them says what
the repository does not do:

  * commands: every command of a ```sh block runs, in a scratch directory
    that has the repository's build/, include/, impls/, vectors/ and
    conformance/ beside it, and exits with the status the page promises
    (EXPECTED below), or is named in NOT_RUN with the reason it cannot run
    offline. A command this script does not know is an error.
  * C blocks: each ```c block is built. The adapter of "Certify your
    engine" is compiled from the page's own text (linked with a stand-in
    for the engine's kernel, below) and certified; the .npy writer of
    "Debug a running engine" writes dumps that `pecert diagnose` must read
    as it reads pecert's own; any other block must compile. A C block this
    script does not know is an error.
  * Python blocks parse (they need torch and a model: not run here).
  * samples: every plain ``` block is either compared with what its command
    prints (SAMPLES) or named in ILLUSTRATIVE with the test that holds it.
  * counts the pages state (bundled profiles, mutants, honest variants,
    vectors, model types) are the repository's, wherever they are stated.
  * links: every relative link resolves to a file, and an anchor to a
    heading of the page it names.

A block in another language is an error: say here how it is held true.
"""
import ast
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Commands that do not run here, and why (a regex on the command).
NOT_RUN = [
    (r"^make run$", "the main job itself (make check runs this test: no recursion)"),
    (r"^make check$", "the test job itself (it runs this test)"),
    (r"^make vectors ", "needs checkouts of the official reference code (not offline)"),
    (r"^build/pecert diagnose .*--cache k_cache\.npy", "needs an engine's KV cache dump (tests/check_dumps.c "
                                                       "runs this command on caches it plants bugs in)"),
    (r"^build/pecert diagnose .*--trace trace/$", "needs an engine's decode trace (tests/check_dumps.c "
                                                  "runs traces it plants bugs in)"),
]

# Expected exit status of each command (a regex on the command), first
# match wins; what the pages say each does.
EXPECTED = [
    (r"^cc ", 0),
    (r"^build/pecert list$", 0),
    (r"^build/pecert run --impl ref\b", 0),
    # impls/example (default RoPE, both pairings): the pages show its
    # failures without promising a status, so 0 or 1 (never 2 or 3).
    (r"^build/pecert run --impl \./libmyrope\.so", None),
    # The README's Python engine (default RoPE, f32): every check it
    # implements passes.
    (r"^build/pecert run --impl python:my_rope\.py ", 0),
    # docs/python-engines.md: the shipped PyTorch engine is certified.
    (r"^build/pecert certify --profile llama-3\.1-8b --impl python:impls/python/torch_rope\.py$", 0),
    (r"^build/pecert report ", 0),
    (r"^build/pecert certify --profile llama-3\.1-8b --impl ref$", 0),
    (r"^build/pecert certify --config config\.json --impl \./my_adapter\.so$", 0),
    (r"^build/pecert certify --profile llama-3\.1-8b --impl \./my_adapter\.so$", 1),  # llama3 declined
    (r"^build/pecert certify --list-profiles$", 0),
    (r"^build/pecert certify --list-model-types$", 0),
    (r"^build/pecert certify --config config\.json --print$", 0),
    (r"^build/pecert certify --all-profiles( -j 2)? --impl \./my_adapter\.so", 1),  # not every profile
    (r"^mkdir -p dump$", 0),
    (r"^build/pecert dump --impl build/impls/mutants/decode_off_by_one\.so ", 0),
    (r"^build/pecert diagnose --profile llama-3\.1-8b --before dump/", 1),  # the off-by-one, named
]

# The command whose output the .npy writer's dumps must reproduce.
DIAGNOSE_DUMP = ("build/pecert diagnose --profile llama-3.1-8b --before dump/q_pre.npy --after dump/q_post.npy "
                 "--positions dump/positions.npy")

# The stand-in for "your engine's kernel" the adapter calls: split-half
# rotation in place, angles in double.
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

# What drives the .npy writer: raw float32 in, save_npy's file out.
SAVE_NPY_MAIN = r"""
#include <stdlib.h>
int main(int argc, char **argv)
{
    if (argc != 6) {
        return 2;
    }
    long tokens = atol(argv[3]), heads = atol(argv[4]), head_dim = atol(argv[5]);
    size_t n = (size_t)(tokens * heads * head_dim);
    float *q = malloc(n * sizeof(float));
    FILE *in = fopen(argv[1], "rb");
    if (q == NULL || in == NULL || fread(q, sizeof(float), n, in) != n) {
        return 1;
    }
    fclose(in);
    save_npy(argv[2], q, tokens, heads, head_dim);
    free(q);
    return 0;
}
"""

# A default-RoPE Llama checkpoint (Llama 2 7B's config.json fields that
# name positions): what "Certify your engine" certifies the adapter for.
CONFIG_JSON = """{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
 "num_key_value_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000.0,
 "rope_scaling": null}
"""

STRICT_CC = ["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-Iinclude"]


class Page:
    """One markdown page: its path from the root, its text, its fenced blocks."""

    def __init__(self, path):
        self.path = path
        self.name = str(path.relative_to(ROOT))
        self.text = path.read_text(encoding="utf-8")
        # (language, body); language "" for a plain block.
        self.blocks = re.findall(r"^```([A-Za-z0-9_+-]*)\n(.*?)^```\s*$", self.text, flags=re.S | re.M)


def pages():
    return [Page(ROOT / "README.md")] + [Page(p) for p in sorted((ROOT / "docs").glob("*.md"))]


def blocks(docs, lang):
    """(page, body) of every block in lang, in page order."""
    return [(p, body) for p in docs for (l, body) in p.blocks if l == lang]


def commands(block):
    """The commands of a sh block: continuation lines joined, comments cut."""
    out = []
    for line in block.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#.*$", "", line).strip()
        if line and not line.startswith("#"):
            out.append(re.sub(r"\s+", " ", line))
    return out


def first_match(rules, cmd):
    return next((rule for rule in rules if re.search(rule[0], cmd)), None)


def concrete(cmd):
    """The command with the pages' placeholder paths made real."""
    return cmd.replace("/path/to/checkpoint/config.json", "config.json")


def run(scratch, cmd):
    done = subprocess.run(cmd, shell=True, cwd=scratch, capture_output=True, text=True, timeout=1800)
    return done.returncode, done.stdout + done.stderr


def compile_c(scratch, args, what):
    done = subprocess.run(args, cwd=scratch, capture_output=True, text=True)
    return [] if done.returncode == 0 else ["%s does not compile:\n%s" % (what, done.stderr)]


# ---- C blocks: each known by a line only it has ---------------------------

def build_adapter(scratch, page, body):
    """The adapter, compiled from the page and linked with the stand-in kernel;
    the commands then certify it."""
    (scratch / "my_adapter.c").write_text(body)
    (scratch / "my_engine.c").write_text(ENGINE_C)
    return compile_c(scratch, STRICT_CC + ["-O2", "-fPIC", "-shared", "my_adapter.c", "my_engine.c", "-o",
                                           "my_adapter.so", "-lm"], "%s: the adapter" % page.name)


def check_declaration(scratch, page, body):
    (scratch / "declaration.c").write_text(body)
    return compile_c(scratch, STRICT_CC + ["-fsyntax-only", "declaration.c"], "%s: the entry declaration" % page.name)


def npy_floats(path):
    """(shape, raw float32 bytes) of a version 1.0 .npy file pecert wrote."""
    data = path.read_bytes()
    header_len = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + header_len].decode("latin-1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        raise ValueError("%s: not C-order float32" % path)
    return header["shape"], data[10 + header_len:]


def check_npy_writer(scratch, page, body):
    """save_npy rewrites the dumps `pecert dump` made; diagnose must read the
    rewritten pair exactly as it read pecert's."""
    what = "%s: the .npy writer" % page.name
    (scratch / "save_npy.c").write_text(body + SAVE_NPY_MAIN)
    failures = compile_c(scratch, STRICT_CC + ["-O2", "save_npy.c", "-o", "save_npy"], what)
    if failures:
        return failures
    for stage in ("pre", "post"):
        shape, raw = npy_floats(scratch / "dump" / ("q_%s.npy" % stage))
        (scratch / "q.raw").write_bytes(raw)
        rc, out = run(scratch, "./save_npy q.raw c_%s.npy %d %d %d" % ((stage,) + tuple(shape)))
        if rc != 0:
            return ["%s exits %d: %s" % (what, rc, out)]
    want = run(scratch, DIAGNOSE_DUMP)
    got = run(scratch, DIAGNOSE_DUMP.replace("dump/q_pre.npy", "c_pre.npy").replace("dump/q_post.npy", "c_post.npy"))
    strip = lambda text: re.sub(r"\S*[qc]_p(re|ost)\.npy", "", text)
    if want[0] != got[0] or strip(want[1]) != strip(got[1]):
        return ["%s: diagnose reads its files otherwise than pecert dump's:\n%s" % (what, got[1][-1500:])]
    return []


C_BLOCKS = [
    ("my_engine_rope(", "the adapter of Certify your engine", build_adapter),
    ("PECERT_EXPORT const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version);", "the entry declaration",
     check_declaration),
    ("static void save_npy(", "the .npy writer of Debug a running engine", check_npy_writer),
]


def c_block_role(body):
    roles = [r for r in C_BLOCKS if r[0] in body]
    return roles[0] if len(roles) == 1 else None


# ---- samples: plain blocks --------------------------------------------------

def lines_in_order(want, printed):
    """The first line of want not printed in order after the one before, or None."""
    lines = [l.rstrip() for l in printed.splitlines()]
    at = 0
    for line in want:
        if line.strip() == "...":
            continue
        while at < len(lines) and lines[at] != line.rstrip():
            at += 1
        if at == len(lines):
            return line
        at += 1
    return None


def sample_print(scratch, outputs, body):
    _, printed = run(scratch, "build/pecert certify --profile llama-3.1-8b --print")
    missing = lines_in_order(body.splitlines(), printed)
    return [] if missing is None else ["line not printed (in order) by certify --print: %r" % missing]


def sample_verdict(scratch, outputs, body):
    pick = lambda text: [l for l in text.splitlines() if l.startswith(("verdict:", "coverage:"))]
    got = pick(outputs.get("build/pecert certify --config config.json --impl ./my_adapter.so", ""))
    return [] if pick(body) == got else ["the adapter's verdict is %r" % got]


def sample_model_types(scratch, outputs, body):
    _, printed = run(scratch, "build/pecert certify --list-model-types")
    return [] if body.splitlines() == printed.splitlines() else [
        "differs from `certify --list-model-types`:\n%s" % printed]


def sample_diagnosis(scratch, outputs, body):
    missing = lines_in_order(body.splitlines(), outputs.get(DIAGNOSE_DUMP, ""))
    return [] if missing is None else ["line not printed (in order) by the diagnosis of the dump: %r" % missing]


# (first line of the block, what it is, how it is compared)
SAMPLES = [
    (r"^derived positional-encoding parameters", "the derived parameters", sample_print),
    (r"^verdict: my-engine ", "the adapter's verdict", sample_verdict),
    (r"^  llama +split_half", "the model_type list", sample_model_types),
    (r"^  positions recovered ", "the end of a diagnosis", sample_diagnosis),
]

# Plain blocks held true elsewhere: (first line, the test that holds it).
ILLUSTRATIVE = [
    (r"^  slots +\d+ ok, ", "tests/check_dumps.c (cache_command_reports_slot_ranges) plants these bugs in a "
                            "cache and requires these findings"),
]


def check_plain_blocks(scratch, docs, outputs):
    failures = []
    found = {what: 0 for _, what, _ in SAMPLES}
    compared = 0
    for page, body in blocks(docs, ""):
        first = body.splitlines()[0] if body else ""
        sample = first_match(SAMPLES, first)
        if sample is not None:
            found[sample[1]] += 1
            compared += 1
            failures += ["%s: %s: %s" % (page.name, sample[1], f) for f in sample[2](scratch, outputs, body)]
        elif first_match(ILLUSTRATIVE, first) is None:
            failures.append("%s: a sample this test does not know, starting %r (compare it in SAMPLES or name "
                            "the test that holds it in ILLUSTRATIVE, tests/readme/check_readme.py)"
                            % (page.name, first))
    failures += ["no page shows %s any more (drop it from SAMPLES if that is meant)" % what
                 for what, n in found.items() if n == 0]
    return failures, compared


# ---- counts ----------------------------------------------------------------

def vector_counts(scratch):
    _, printed = run(scratch, "build/pecert list")
    found = re.search(r"\((\d+) families, (\d+) files, (\d+) vectors\)", printed)
    return tuple(int(n) for n in found.groups()) if found else None


def check_counts(scratch, docs, outputs):
    printed = outputs.get("build/pecert certify --list-profiles", "")
    profiles = len([l for l in printed.splitlines() if l.startswith("  ")])
    mutants = len(re.findall(r'"name":', (ROOT / "impls/mutants/catalogue.json").read_text()))
    honest = len(list((ROOT / "impls/honest").glob("*.c")))
    model_types = len(json.loads((ROOT / "conformance/inventory.json").read_text())["model_types"])
    vectors = vector_counts(scratch)
    claims = [
        (r"the (\d+) bundled ones", (profiles,), "bundled profiles"),
        (r"\*\*mutants\*\*: (\d+) bugs", (mutants,), "mutants"),
        (r"proves all (\d+) are caught", (2 * mutants,), "mutant runs (two bases)"),
        (r"\*\*honest variants\*\*: (\d+) float32", (honest,), "honest variants"),
        (r"(\d+) families, (\d+) files, (\d+) vectors", vectors, "vector families, files and vectors"),
        (r"transformers' (\d+) model types", (model_types,), "transformers model types"),
    ]
    failures = []
    for pattern, actual, what in claims:
        stated = [(p.name, tuple(int(n) for n in m.groups())) for p in docs for m in re.finditer(pattern, p.text)]
        if not stated:
            failures.append("no page states the number of %s any more (%s)" % (what, pattern))
        failures += ["%s says %s %s, the repository has %s" % (name, "/".join(map(str, said)), what,
                                                                "/".join(map(str, actual or ())))
                     for name, said in stated if said != actual]
    return failures, len(claims)


# ---- links -----------------------------------------------------------------

def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path):
    text = re.sub(r"^```.*?^```\s*$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    seen = {}
    out = set()
    for heading in re.findall(r"^#{1,6} +(.*?) *#*$", text, flags=re.M):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else "%s-%d" % (base, n))
    return out


def check_links(docs):
    failures = []
    checked = 0
    for page in docs:
        prose = re.sub(r"^```.*?^```\s*$", "", page.text, flags=re.S | re.M)
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"^[a-z]+:", target):
                continue  # http(s), mailto: not checked offline
            checked += 1
            file, _, anchor = target.partition("#")
            path = (page.path.parent / file).resolve() if file else page.path
            if not path.exists():
                failures.append("%s: dead link %s (no %s)" % (page.name, target, os.path.relpath(path, ROOT)))
            elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                failures.append("%s: dead link %s (no heading #%s in %s)" % (page.name, target, anchor,
                                                                            os.path.relpath(path, ROOT)))
    return failures, checked


# ---- commands and code blocks -----------------------------------------------

def setup(scratch, build):
    for name in ("include", "impls", "vectors", "conformance"):
        os.symlink(ROOT / name, scratch / name)
    os.symlink(build.resolve(), scratch / "build")
    (scratch / "config.json").write_text(CONFIG_JSON)
    (scratch / "my-vectors").mkdir()
    for f in (ROOT / "vectors" / "rope").glob("freq.*"):
        shutil.copy(f, scratch / "my-vectors")
    # `pecert report a.json b.json`: two shards of one run.
    for i in (1, 2):
        subprocess.run(["build/pecert", "run", "--impl", "ref", "--quiet", "--shard", "%d/2" % i, "--json",
                        "%s.json" % "ab"[i - 1]], cwd=scratch, capture_output=True)


def check_c_blocks(scratch, docs, stage):
    """Builds the C blocks whose role is stage's: the adapter before the
    commands (they certify it), the others after (the writer needs dumps)."""
    failures = []
    built = 0
    for page, body in blocks(docs, "c"):
        role = c_block_role(body)
        if role is None:
            if stage == "before":
                failures.append("%s: a C block this test does not know (give it a role in C_BLOCKS, "
                                "tests/readme/check_readme.py):\n%s" % (page.name, body[:300]))
        elif (role[2] is build_adapter) == (stage == "before"):
            failures += role[2](scratch, page, body)
            built += 1
    return failures, built


def write_python_files(scratch, docs):
    """A Python block whose first line is a comment naming a file
    ("# my_rope.py: ...") is that file: written before the commands run."""
    written = 0
    for _, body in blocks(docs, "python"):
        named = re.match(r"#\s*([A-Za-z0-9_]+\.py)\b", body)
        if named:
            (scratch / named.group(1)).write_text(body)
            written += 1
    return written


def check_python_blocks(docs):
    failures = []
    for page, body in blocks(docs, "python"):
        try:
            ast.parse(body)
        except SyntaxError as e:
            failures.append("%s: a Python block does not parse: %s" % (page.name, e))
    return failures, len(blocks(docs, "python"))


def check_languages(docs):
    known = {"", "sh", "c", "python"}
    return ["%s: a ```%s block, which this test does not know how to hold true" % (p.name, lang)
            for p in docs for lang, _ in p.blocks if lang not in known]


def run_commands(scratch, docs, outputs):
    """Runs every sh command once, in page order (cc lines first: the
    pages use the plugin they build before the block that builds it)."""
    failures = []
    occurrences = skipped = 0
    cmds = [(p, concrete(c)) for p, body in blocks(docs, "sh") for c in commands(body)]
    for page, cmd in sorted(cmds, key=lambda pc: not pc[1].startswith("cc ")):
        occurrences += 1
        if first_match(NOT_RUN, cmd) is not None:
            skipped += 1
            continue
        expected = first_match(EXPECTED, cmd)
        if expected is None:
            failures.append("%s: a command this test does not know: %r (give it an expected status in "
                            "tests/readme/check_readme.py)" % (page.name, cmd))
            continue
        if cmd not in outputs:
            rc, outputs[cmd] = run(scratch, cmd)
            status = expected[1]
            if rc not in (0, 1) or (status is not None and rc != status):
                failures.append("%s: %r exits %d (expected %s):\n%s" % (
                    page.name, cmd, rc, status if status is not None else "0 or 1", outputs[cmd][-1500:]))
    return failures, occurrences, skipped


def main():
    if len(sys.argv) != 2:
        print("usage: check_readme.py BUILD", file=sys.stderr)
        return 2
    build = pathlib.Path(sys.argv[1])
    docs = pages()
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="pecert-readme-"))
    failures = check_languages(docs)
    outputs = {}
    try:
        setup(scratch, build)
        f_before, built_before = check_c_blocks(scratch, docs, "before")
        write_python_files(scratch, docs)
        f_cmds, occurrences, skipped = run_commands(scratch, docs, outputs)
        f_after, built_after = check_c_blocks(scratch, docs, "after")
        f_py, parsed = check_python_blocks(docs)
        f_samples, compared = check_plain_blocks(scratch, docs, outputs)
        f_counts, counts = check_counts(scratch, docs, outputs)
        f_links, links = check_links(docs)
        failures += f_before + f_cmds + f_after + f_py + f_samples + f_counts + f_links
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for f in failures:
        print("readme: %s" % f, file=sys.stderr)
    print("readme: %s; %d pages: %d commands (%d distinct run, %d not run offline), %d C blocks built, "
          "%d Python blocks parsed, %d samples compared, %d counts, %d links" % (
              "FAILED" if failures else "OK", len(docs), occurrences, len(outputs), skipped,
              built_before + built_after, parsed, compared, counts, links))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
