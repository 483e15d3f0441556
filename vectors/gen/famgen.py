"""Shared plumbing of the family generators (gen_<family>.py).

Each generator builds VectorFile objects (vecfile.py) by calling official code,
then `finish` writes them, re-reads them with the independent checker
(check_vectors.py) and reports stale files.  Nothing here computes a golden
number.
"""

import argparse
import os
import sys
import zlib

import numpy as np

import check_vectors
import vecfile


def parse_args(doc, argv, family, checkouts):
    """The command line of a family generator: a required --NAME for each checkout it
    reads ({"--NAME": help}), and --out."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    for option, help_text in checkouts.items():
        parser.add_argument(option, required=True, help=help_text)
    parser.add_argument("--out", required=True, help=f"output directory, e.g. vectors/{family}")
    return parser.parse_args(argv)


def notes_table(text):
    """The flag catalogue {flag: (bugType, description)}, written as a table: a line
    "flag BUG_TYPE description" starts a flag, the indented lines below it go on with its
    description (joined with one space)."""
    notes = {}
    flag = None
    for line in text.splitlines():
        line = line.rstrip()
        if not line:
            continue
        if line[0].isspace():
            bug_type, description = notes[flag]
            notes[flag] = (bug_type, description + " " + line.strip())
            continue
        flag, bug_type, description = line.split(None, 2)
        if flag in notes:
            raise ValueError(f"notes_table: flag {flag} twice")
        notes[flag] = (bug_type, description)
    return notes


def notes_catalog(notes):
    return {k: {"bugType": b, "description": d} for k, (b, d) in notes.items()}


def seeded_normal(label, shape):
    """Standard-normal float32, seeded by the test's own label (as gen_rope.py)."""
    rng = np.random.default_rng(zlib.crc32(label.encode("utf-8")))
    return rng.standard_normal(shape, dtype=np.float32)


def source(file, function):
    return {"file": file, "function": function}


def finish(out_dir, files):
    """Write every VectorFile, check the directory, return the exit status."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for vf in files:
        comments = [t["comment"] for t in vf.tests]
        if len(set(comments)) != len(comments):
            raise AssertionError(f"{vf.name}: duplicate test comments (they seed the inputs)")
        written += list(vf.write(out_dir))
        ops = {}
        for test in vf.tests:
            ops[test["op"]] = ops.get(test["op"], 0) + 1
        print(f"{vf.name}: {len(vf.tests)} tests {ops}", file=sys.stderr)
    stale = sorted(set(os.path.join(out_dir, f) for f in os.listdir(out_dir)
                       if f.endswith((".json", ".bin.z"))) - set(written))
    for path in stale:
        print(f"warning: {path} was not written by this run", file=sys.stderr)
    problems = check_vectors.check_dir(out_dir)
    for p in problems:
        print(p, file=sys.stderr)
    print(f"check_vectors: {len(problems)} problems", file=sys.stderr)
    return 1 if problems else 0


def new_file(name, family, description, generator, provenance, notes):
    return vecfile.VectorFile(name, family, description, generator, provenance,
                              notes_catalog(notes))


def build_and_finish(out_dir, family, generator, notes, files):
    """One VectorFile per (name, description, provenance, build) of files, in order, each
    filled by build(vf) before the next is made; then `finish` on them all."""
    built = []
    for name, description, provenance, build in files:
        vf = new_file(name, family, description, generator, provenance, notes)
        build(vf)
        built.append(vf)
    return finish(out_dir, built)
