"""The Python engine host's sandbox: the C host's (engine/sandbox.c), the
same two seccomp filters, installed from the BPF programs pecert's build
exported (engine/filters/export.c --binary, found by the judge and passed
as --filters=FILE). Linux x86-64 and glibc, through ctypes.

enter(LOADING, file) drops every capability, sets no_new_privs and installs
the loading filter (before the engine's module is imported); enter(SERVING,
file) narrows it (before the hello). Each returns None, or why it failed.
"""
import ctypes
import os
import struct

LOADING, SERVING = 0, 1

_SYS_CAPSET = 126
_SYS_SECCOMP = 317
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_CAP_VERSION_3 = 0x20080522
_BPF_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K

_libc = ctypes.CDLL(None, use_errno=True)


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _programs(path):
    """The two programs of the file, and its placeholder pid."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"PCBF":
        raise ValueError("%s is not pecert's filter file" % path)
    placeholder, = struct.unpack_from("<I", data, 4)
    at, programs = 8, []
    for _ in range(2):
        n, = struct.unpack_from("<I", data, at)
        at += 4
        programs.append([struct.unpack_from("<HBBI", data, at + 8 * i) for i in range(n)])
        at += 8 * n
    return programs, placeholder


def _errno_text(what):
    return "%s: %s" % (what, os.strerror(ctypes.get_errno()))


def _drop_privileges():
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    none = (ctypes.c_uint32 * 6)()
    if _libc.syscall(_SYS_CAPSET, header, none) != 0:
        return _errno_text("capset")
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return _errno_text("PR_SET_NO_NEW_PRIVS")
    return None


def _install(program, placeholder):
    """The program with this process's pid over the placeholder, on every
    thread of the process."""
    pid = os.getpid()
    cells = (_SockFilter * len(program))()
    for i, (code, jt, jf, k) in enumerate(program):
        if code == _BPF_JEQ_K and k == placeholder:
            k = pid
        cells[i] = _SockFilter(code, jt, jf, k)
    prog = _SockFprog(len(program), cells)
    rc = _libc.syscall(_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_TSYNC, ctypes.byref(prog))
    if rc > 0:
        return "thread %d could not take the filter" % rc
    return _errno_text("seccomp") if rc != 0 else None


_loaded = {}


def enter(stage, path):
    if path is None:
        return "no filter file (--filters=FILE)"
    try:
        if not _loaded:
            _loaded["programs"], _loaded["placeholder"] = _programs(path)
    except (OSError, ValueError, struct.error) as exc:
        return "%s: %s" % (path, exc)
    if stage == LOADING:
        why = _drop_privileges()
        if why:
            return why
    why = _install(_loaded["programs"][stage], _loaded["placeholder"])
    return None if why is None else "seccomp filter (%s stage): %s" % ("loading" if stage == LOADING else "serving",
                                                                        why)
