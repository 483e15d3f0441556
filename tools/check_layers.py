#!/usr/bin/python3
"""The floors of pecert's source tree, and every #include that points up.

    tools/check_layers.py [--objects BUILD]

pecert is layered: the plugin ABI at the bottom, the host library above it
(results, vectors, isolation, plugin loading), the checks above that, then
the runner, the outputs and the command line. Each folder is a floor:

    0  include/                      the ABI and the wire protocol
    0  engine/                       the engine host program: sees only include/
    1  harness/                      the host library: knows no check id
    2  conformance/                  everything that knows a check id
    3  run/                          the one runner
    4  reports/, bench/              outputs, benchmarks
    5  cli/                          the command line

A file may include headers of its own floor or below; an include that
resolves to a header of a higher floor points up and fails `make check`.
Given a build directory (--objects BUILD), the calls are checked too: every
symbol an object leaves undefined (nm) and another floor's object defines
must be defined on its own floor or below, so a prototype written by hand
cannot hide an upward call that no #include shows.
The plugins (impls/) and the tests are outside the floors: plugins see only
include/, tests see everything.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where `#include "x.h"` is looked for, after the including file's own
# folder: the Makefile's -I order.
SEARCH = ["include", "harness", "conformance", "conformance/certify", "conformance/dumps", "run", "reports"]
FLOORS = [("cli/", 5), ("include/", 0), ("engine/", 0), ("harness/", 1), ("conformance/", 2),
          ("run/", 3), ("reports/", 4), ("bench/", 4)]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def floor_of(path):
    for prefix, floor in FLOORS:
        if path.startswith(prefix):
            return floor
    return None


def resolve(including, name):
    """The repository path the compiler opens for `#include "name"` in including, or None."""
    for base in [os.path.dirname(including)] + SEARCH:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, candidate)):
            return candidate
    return None


def sources():
    for top in ("include", "engine", "harness", "conformance", "run", "reports", "bench", "cli"):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(folder, f), ROOT)


def upward_includes():
    found = []
    for path in sources():
        with open(os.path.join(ROOT, path), encoding="utf-8") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            target = resolve(path, name)
            if target is None or floor_of(target) is None:
                continue
            if floor_of(target) > floor_of(path):
                found.append(f"{path} -> {target}")
    return sorted(set(found))


def object_symbols(build):
    """{source: (defined, undefined)} from `nm -g` of each C source's object under BUILD/obj, and the
    sources without one."""
    table, missing = {}, []
    for path in sources():
        obj = os.path.join(build, "obj", path[:-2] + ".o")
        if not path.endswith(".c"):
            continue
        if not os.path.isfile(obj):
            missing.append(path)
            continue
        out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
        defined, undefined = set(), set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBRCVW":
                defined.add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
        table[path] = (defined, undefined)
    return table, missing


def upward_calls(build):
    """Edges "caller -> symbol in callee" from a lower floor's object to a higher one's, the objects read, and
    the sources not built."""
    table, missing = object_symbols(build)
    owner = {sym: path for path, (defined, _) in table.items() for sym in defined}
    found = []
    for path, (_, undefined) in table.items():
        for sym in undefined:
            callee = owner.get(sym)
            if callee is not None and floor_of(callee) > floor_of(path):
                found.append(f"{path} -> {sym} in {callee}")
    return sorted(found), len(table), missing


def main():
    found = upward_includes()
    for edge in found:
        print(f"layers: FAIL {edge}: includes a header of a higher floor (ARCHITECTURE.md)")
    n_files = sum(1 for _ in sources())
    summary = f"{n_files} files, {len(found)} upward includes"
    if len(sys.argv) == 3 and sys.argv[1] == "--objects":
        calls, n_objects, missing = upward_calls(sys.argv[2])
        for edge in calls:
            print(f"layers: FAIL {edge}: calls a function of a higher floor (ARCHITECTURE.md)")
        for path in missing:
            print(f"layers: FAIL {path}: no object under {sys.argv[2]}/obj (build first): its calls are unchecked")
        found = found + missing
        summary += f"; {n_objects} objects, {len(calls)} upward calls"
        found = found + calls
    print(f"layers: {'OK' if not found else 'FAILED'}; {summary}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
