#!/usr/bin/python3
"""The floors of pecert's source tree, and every #include that points up.

    tools/check_layers.py [--write]

pecert is layered: the plugin ABI at the bottom, the host library above it
(results, vectors, isolation, plugin loading), the checks above that, then
the runner, the outputs and the command line. Each folder is a floor:

    0  include/                      the ABI
    1  harness/                      the host library: knows no check id
    2  conformance/                  everything that knows a check id
    3  run/                          the one runner
    4  reports/, bench/              outputs, benchmarks
    5  cli/, harness/cli/            the command line

A file may include headers of its own floor or below; an include that
resolves to a header of a higher floor points up and is an error. The
plugins (impls/) and the tests are outside the floors: plugins see only
include/, tests see everything.

The tree does not keep this yet (issue 18 moves the files): the upward
includes there are today are listed in tools/upward_includes.txt, and only
those are tolerated. A new one fails, and so does a listed one that is gone
(the list is kept exact, so that it only shrinks); --write rewrites it.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "tools", "upward_includes.txt")
# Where `#include "x.h"` is looked for, after the including file's own
# folder: the Makefile's -I order.
SEARCH = ["include", "harness", "conformance", "reports"]
FLOORS = [("harness/cli/", 5), ("cli/", 5), ("include/", 0), ("harness/", 1), ("conformance/", 2),
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
    for top in ("include", "harness", "conformance", "run", "reports", "bench", "cli"):
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


def main():
    found = upward_includes()
    if "--write" in sys.argv[1:]:
        with open(BASELINE, "w", encoding="utf-8") as fh:
            fh.write("# Upward #includes tolerated until issue 18 moves their files (tools/check_layers.py).\n")
            fh.write("".join(line + "\n" for line in found))
        print(f"layers: {len(found)} upward includes written to {os.path.relpath(BASELINE, ROOT)}")
        return 0
    with open(BASELINE, encoding="utf-8") as fh:
        listed = [line.strip() for line in fh if line.strip() and not line.startswith("#")]
    new = sorted(set(found) - set(listed))
    gone = sorted(set(listed) - set(found))
    for edge in new:
        print(f"layers: FAIL {edge}: includes a header of a higher floor (tools/check_layers.py)")
    for edge in gone:
        print(f"layers: FAIL {edge}: listed in tools/upward_includes.txt but gone: drop the line")
    files = len({edge.split(" -> ")[0] for edge in found})
    verdict = "OK" if not new and not gone else f"FAILED ({len(new)} new, {len(gone)} listed but gone)"
    print(f"layers: {verdict}; {len(found)} upward includes from {files} files "
          f"(tools/upward_includes.txt, to empty)")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
