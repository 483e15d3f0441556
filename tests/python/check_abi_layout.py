"""The Python host's mirror of the C ABI and wire (python/pecert/abi.py,
wire.py) against the C compiler's view of plugin.h and wire.h: every
ctypes field's offset and every struct's size, the wire's message sizes,
constants and operation numbers. A C program is generated from the
mirrors, compiled with the project's headers and run; any difference is
named and fails `make check`.

    /usr/bin/python3 tests/python/check_abi_layout.py [CC]
"""
import ctypes
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from pecert import abi, wire  # noqa: E402


def expectations():
    """(what, C expression, the Python value)."""
    rows = []
    for cname, cls in abi.MIRRORS:
        rows.append(("sizeof(%s)" % cname, "sizeof(%s)" % cname, ctypes.sizeof(cls)))
        for field, _ in cls._fields_:
            rows.append(("%s.%s" % (cname, field), "offsetof(%s, %s)" % (cname, field), getattr(cls, field).offset))
    rows.append(("ABI version", "PECERT_ABI_VERSION", abi.ABI_VERSION))
    messages = [("pecert_wire_header", wire.HEADER.size),
                ("pecert_wire_hello", wire.HELLO_FIXED.size + wire.SCOPE_BYTES),
                ("pecert_wire_arena", wire.ARENA_MSG.size), ("pecert_wire_call", wire.CALL_FIXED.size),
                ("pecert_wire_reloc", wire.RELOC.size), ("pecert_wire_reply", wire.REPLY_FIXED.size),
                ("pecert_scope", wire.SCOPE_BYTES)]
    rows += [("sizeof(%s)" % n, "sizeof(%s)" % n, v) for n, v in messages]
    rows.append(("hello.scope", "offsetof(pecert_wire_hello, scope)", wire.HELLO_FIXED.size))
    for name, value in [("MAGIC", wire.MAGIC), ("VERSION", wire.VERSION), ("MAX_MESSAGE", wire.MAX_MESSAGE),
                        ("CHANNEL_FD", wire.CHANNEL_FD), ("MAX_TEXT", wire.MAX_TEXT), ("MAX_CAPS", wire.MAX_CAPS),
                        ("MAX_CAP_LEN", wire.MAX_CAP_LEN), ("MAX_RELOCS", wire.MAX_RELOCS),
                        ("MAX_FRAME", wire.MAX_FRAME), ("MAX_SESSIONS", wire.MAX_SESSIONS),
                        ("SANDBOXED", wire.SANDBOXED), ("HAS_VENDOR", wire.HAS_VENDOR),
                        ("REPLY_TEXT_NULL", wire.REPLY_TEXT_NULL), ("SPACE_ARENA", wire.SPACE_ARENA)]:
        rows.append(("PECERT_WIRE_" + name, "PECERT_WIRE_" + name, value))
    rows.append(("PECERT_WIRE_OP_COUNT", "PECERT_WIRE_OP_COUNT", len(wire.OPS)))
    for i, op in enumerate(wire.OPS):
        rows.append(("PECERT_WIRE_OP_" + op.upper(), "PECERT_WIRE_OP_" + op.upper(), i))
    # Every constant abi.py names, under its C name.
    for name in sorted(n for n, v in vars(abi).items() if n.isupper() and isinstance(v, int)
                       and n not in ("PLUGIN_STRUCT_SIZE", "ABI_VERSION")):
        rows.append(("PECERT_" + name, "PECERT_" + name, getattr(abi, name)))
    return rows


def main():
    cc = sys.argv[1] if len(sys.argv) > 1 else "gcc"
    rows = expectations()
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "pecert/wire.h"', "int main(void) {"]
    lines += ['    printf("%%lld\\n", (long long)(%s));' % expr for _, expr, _ in rows]
    lines += ["    return 0;", "}"]
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([cc, "-std=c17", "-I", os.path.join(ROOT, "include"), src, "-o", exe], check=True)
        got = subprocess.run([exe], check=True, capture_output=True, text=True).stdout.split()
    wrong = [(what, int(c), py) for (what, _, py), c in zip(rows, got) if int(c) != py]
    for what, c, py in wrong:
        print("python/pecert mirror: %s is %d in C, %d in Python" % (what, c, py), file=sys.stderr)
    if wrong or len(got) != len(rows):
        return 1
    print("python-abi: OK; %d offsets, sizes and constants equal C's" % len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
