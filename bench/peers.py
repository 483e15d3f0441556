#!/usr/bin/python3
"""bench/peers.py - `make bench-peers`: fast next to PyTorch on q[T, 32, 128].

Both sides run in this one process, on the same pre-faulted tensors, with
the same thread counts, their samples taken in turn, so their ratio is fair:

  torch HF     transformers' rotate_half formula (split-half pairing):
               q * cos + rotate_half(q) * sin, the final add into a
               preallocated output (rotate_half's cat and the products
               allocate, as in the model code); rotary_dim 64 slices the
               rotated part and concatenates the rest (torch.cat(out=)).
  torch meta   Meta's llama complex multiply (interleaved pairing):
               view_as_complex(q) * freqs_cis into a preallocated complex
               output, or in place (mul_); f32 only (CPU complex32 has no
               multiply).
  fast         build/impls/fast.so through ctypes (its plugin.h ABI),
               same pairing, placement and dtype as the torch case.

fast's calls pay ctypes' ~1-2 us here: `pecert bench` (C) is the number
to quote for small T. q and out live on their own page-aligned anonymous
mappings, pre-faulted, shared by both sides. torch allocates its
intermediates with glibc malloc; by default this script re-executes
itself with MALLOC_MMAP_MAX_=0 and a huge MALLOC_TRIM_THRESHOLD_ so freed
blocks are reused instead of unmapped (no page faults inside the timed
calls - the environment most favourable to torch; --malloc-default keeps
glibc's defaults).

Prints median times, GB/s (bytes read + written) and fast/torch (time
ratio, < 1 means fast is faster); writes JSON atomically with --json.
"""
import argparse
import ctypes
import json
import math
import mmap
import os
import sys
import tempfile
import time

HEADS = 32
HEAD_DIM = 128
THETA = 10000.0
MIN_SAMPLE_S = 2e-4

# ---- the plugin ABI (include/pecert/plugin.h) through ctypes ----------------

PECERT_ABI_MAJOR = 1
PECERT_DTYPE = {"f32": 1, "f16": 3, "bf16": 4}
PAIRING = {"split_half": 0, "interleaved": 1}


class Tensor(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("dtype", ctypes.c_int32),
                ("ndim", ctypes.c_uint32), ("reserved0", ctypes.c_uint32),
                ("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * 8),
                ("strides", ctypes.c_int64 * 8)]


class RopeConfig(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("rope_type", ctypes.c_int32),
                ("present", ctypes.c_uint32), ("head_dim", ctypes.c_int32),
                ("rotary_dim", ctypes.c_int32), ("truncate", ctypes.c_int32),
                ("rope_theta", ctypes.c_double), ("factor", ctypes.c_double),
                ("max_position_embeddings", ctypes.c_int64),
                ("original_max_position_embeddings", ctypes.c_int64),
                ("attention_factor", ctypes.c_double), ("beta_fast", ctypes.c_double),
                ("beta_slow", ctypes.c_double), ("mscale", ctypes.c_double),
                ("mscale_all_dim", ctypes.c_double), ("low_freq_factor", ctypes.c_double),
                ("high_freq_factor", ctypes.c_double), ("num_factors", ctypes.c_int32),
                ("reserved0", ctypes.c_int32), ("short_factor", ctypes.c_void_p),
                ("long_factor", ctypes.c_void_p), ("reserved", ctypes.c_uint64 * 8)]


class ApplyArgs(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("pairing", ctypes.c_int32),
                ("config", ctypes.POINTER(RopeConfig)), ("seq_len", ctypes.c_int64),
                ("positions", ctypes.c_void_p), ("x", ctypes.POINTER(Tensor)),
                ("out", ctypes.POINTER(Tensor)), ("reserved", ctypes.c_uint64 * 8)]


STATUS = ctypes.c_int32
CREATE = ctypes.CFUNCTYPE(STATUS, ctypes.POINTER(ctypes.c_void_p))
DESTROY = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
LAST_ERROR = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)
APPLY = ctypes.CFUNCTYPE(STATUS, ctypes.c_void_p, ctypes.POINTER(ApplyArgs))
THREADS = ctypes.CFUNCTYPE(STATUS, ctypes.c_void_p, ctypes.c_int32)
DESCRIBE = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_void_p)


class Descriptor(ctypes.Structure):
    """The ABI 1.1 prefix of pecert_plugin (later minors only append)."""
    _fields_ = [("abi_version", ctypes.c_uint32), ("struct_size", ctypes.c_uint32),
                ("id", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("version", ctypes.c_char_p), ("vendor", ctypes.c_char_p),
                ("capabilities", ctypes.c_void_p), ("create", CREATE),
                ("destroy", DESTROY), ("last_error", LAST_ERROR),
                ("rope_freqs", ctypes.c_void_p), ("rope_cos_sin", ctypes.c_void_p),
                ("rope_apply", APPLY), ("set_num_threads", THREADS),
                ("describe", DESCRIBE)]


class Fast:
    """One instance of the plugin, called on torch tensors' memory."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        entry = self.lib.pecert_plugin_entry
        entry.restype = ctypes.POINTER(Descriptor)
        entry.argtypes = [ctypes.c_uint32]
        desc = entry(PECERT_ABI_MAJOR << 16 | 1)
        if not desc or desc.contents.struct_size < ctypes.sizeof(Descriptor):
            raise SystemExit(f"{path}: not a pecert ABI 1.1 plugin")
        self.d = desc.contents
        self.instance = ctypes.c_void_p()
        status = self.d.create(ctypes.byref(self.instance))
        if status != 0:
            raise SystemExit(f"{path}: create() returned {status}: "
                             f"{self.d.last_error(None).decode()}")

    def describe(self):
        return self.d.describe(self.instance).decode()

    def set_threads(self, n):
        if self.d.set_num_threads(self.instance, n) != 0:
            raise SystemExit(f"set_num_threads({n}): {self.d.last_error(self.instance).decode()}")

    def bind(self, q, out, positions, pairing, rotary_dim, dtype):
        """A zero-argument callable running rope_apply on these tensors."""
        config = RopeConfig(struct_size=ctypes.sizeof(RopeConfig), head_dim=HEAD_DIM,
                            rotary_dim=rotary_dim, rope_theta=THETA,
                            max_position_embeddings=4096)
        tensors = [self._tensor(t, dtype) for t in (q, out)]
        args = ApplyArgs(struct_size=ctypes.sizeof(ApplyArgs), pairing=PAIRING[pairing],
                         config=ctypes.pointer(config), positions=positions.data_ptr(),
                         x=ctypes.pointer(tensors[0]), out=ctypes.pointer(tensors[1]))
        keep = (config, tensors, args)
        apply, instance, d = self.d.rope_apply, self.instance, self.d

        def call():
            if apply(instance, ctypes.byref(keep[2])) != 0:
                raise SystemExit(f"rope_apply: {d.last_error(instance).decode()}")
        return call

    @staticmethod
    def _tensor(t, dtype):
        view = Tensor(struct_size=ctypes.sizeof(Tensor), dtype=PECERT_DTYPE[dtype], ndim=3,
                      data=t.data_ptr())
        for k in range(3):
            view.shape[k] = t.shape[k]
            view.strides[k] = t.stride(k)
        return view


# ---- torch formulas ------------------------------------------------------------

def rotate_half(x):
    """transformers models/llama/modeling_llama.py rotate_half."""
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_tables(tokens, rotary_dim, dtype):
    """LlamaRotaryEmbedding: emb = cat(freqs, freqs), cos/sin [T, 1, rot]."""
    inv_freq = 1.0 / (THETA ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32) / rotary_dim))
    freqs = torch.outer(torch.arange(tokens, dtype=torch.float32), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[:, None, :].to(dtype), emb.sin()[:, None, :].to(dtype)


def hf_call(q, out, cos, sin, rotary_dim):
    if rotary_dim == HEAD_DIM:
        return lambda: torch.add(q * cos, rotate_half(q) * sin, out=out)
    q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
    return lambda: torch.cat((q_rot * cos + rotate_half(q_rot) * sin, q_pass), dim=-1, out=out)


def meta_tables(tokens, rotary_dim):
    """llama/model.py precompute_freqs_cis: polar(1, t * freqs), [T, 1, rot/2]."""
    freqs = 1.0 / (THETA ** (torch.arange(0, rotary_dim, 2)[: rotary_dim // 2].float() / rotary_dim))
    t = torch.arange(tokens, dtype=torch.float32)
    return torch.polar(torch.ones(tokens, rotary_dim // 2), torch.outer(t, freqs))[:, None, :]


def meta_call(q, out, freqs_cis, in_place):
    """llama/model.py apply_rotary_emb: complex view of the channel pairs."""
    q_c = torch.view_as_complex(q.view(q.shape[0], HEADS, HEAD_DIM // 2, 2))
    if in_place:
        return lambda: q_c.mul_(freqs_cis)
    out_c = torch.view_as_complex(out.view(out.shape[0], HEADS, HEAD_DIM // 2, 2))
    return lambda: torch.mul(q_c, freqs_cis, out=out_c)


# ---- measurement -----------------------------------------------------------------

def batch_size(fn):
    """Calls per sample so that a sample lasts MIN_SAMPLE_S (one warm-up call)."""
    start = time.perf_counter()
    fn()
    warm = time.perf_counter() - start
    return 1 if warm >= MIN_SAMPLE_S else min(100000, int(MIN_SAMPLE_S / max(warm, 1e-9)) + 1)


def measure_group(fns, reps):
    """min/median/max of reps samples per function, each the mean of a
    batch of calls; the functions' samples are taken in turn (A B A B ...),
    as `pecert bench` does, so a slow phase of the shared host falls on
    both sides alike."""
    inner = [batch_size(fn) for fn in fns]
    times = [[] for _ in fns]
    for _ in range(reps):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            for _ in range(inner[i]):
                fn()
            times[i].append((time.perf_counter() - start) / inner[i])
    stats = []
    for i, t in enumerate(times):
        t.sort()
        stats.append({"min_s": t[0], "median_s": t[len(t) // 2], "max_s": t[-1],
                      "samples": reps, "calls_per_sample": inner[i]})
    return stats


def gbps(nbytes, seconds):
    return 2.0 * nbytes / seconds * 1e-9


TORCH_DTYPE = None  # filled once torch is imported


def cases(tokens_list, threads_list):
    """(T, threads, formula, placement, rotary_dim, dtype) in run order."""
    for tokens in tokens_list:
        for threads in threads_list:
            for rot in (128, 64):
                for dtype in ("f32", "f16", "bf16"):
                    yield tokens, threads, "hf", "out_of_place", rot, dtype
            for placement in ("out_of_place", "in_place"):
                yield tokens, threads, "meta", placement, 128, "f32"


def run_case(fast, buffers, case, reps):
    tokens, threads, formula, placement, rot, dtype = case
    q_full, out_full, positions = buffers[dtype]
    q, out = q_full[:tokens], out_full[:tokens]
    torch.set_num_threads(threads)
    fast.set_threads(threads)
    if formula == "hf":
        cos, sin = hf_tables(tokens, rot, TORCH_DTYPE[dtype])
        torch_fn = hf_call(q, out, cos, sin, rot)
        pairing = "split_half"
    else:
        torch_fn = meta_call(q, out, meta_tables(tokens, rot), placement == "in_place")
        pairing = "interleaved"
    fast_out = q if placement == "in_place" else out
    fast_fn = fast.bind(q, fast_out, positions, pairing, rot, dtype)
    result = {"tokens": tokens, "threads": threads, "formula": formula, "pairing": pairing,
              "placement": placement, "rotary_dim": rot, "dtype": dtype,
              "bytes": q.numel() * q.element_size()}
    # Each side once to settle caches, allocator and thread pools after
    # the previous case, then their samples in turn.
    measure_group([torch_fn, fast_fn], 1)
    result["torch"], result["fast"] = measure_group([torch_fn, fast_fn], reps)
    result["fast_over_torch"] = result["fast"]["median_s"] / result["torch"]["median_s"]
    return result


def print_row(r):
    t, f = r["torch"]["median_s"], r["fast"]["median_s"]
    name = "HF rotate_half" if r["formula"] == "hf" else "meta complex"
    print(f"  {r['tokens']:6d} {r['threads']:3d} {name:15s} {r['placement']:12s} {r['rotary_dim']:3d} "
          f"{r['dtype']:5s} {t * 1e3:10.3f} {gbps(r['bytes'], t):7.1f} {f * 1e3:10.3f} "
          f"{gbps(r['bytes'], f):7.1f} {f / t:9.3f}", flush=True)


def summarize(results):
    """Per (T, threads): fast's best f32 out-of-place time against torch's
    best formula's (the issue's 'faster than PyTorch's best formula')."""
    print("\nfast vs torch's best formula (f32, out of place, rotary_dim 128):")
    summary = []
    keys = sorted({(r["tokens"], r["threads"]) for r in results})
    for tokens, threads in keys:
        rows = [r for r in results if r["tokens"] == tokens and r["threads"] == threads and
                r["dtype"] == "f32" and r["placement"] == "out_of_place" and r["rotary_dim"] == 128]
        if not rows:
            continue
        best_torch = min(rows, key=lambda r: r["torch"]["median_s"])
        best_fast = min(r["fast"]["median_s"] for r in rows)
        ratio = best_fast / best_torch["torch"]["median_s"]
        print(f"  T={tokens:6d} thr={threads}: torch best {best_torch['formula']:4s} "
              f"{best_torch['torch']['median_s'] * 1e3:9.3f} ms, fast {best_fast * 1e3:9.3f} ms, "
              f"fast/torch {ratio:.3f}")
        summary.append({"tokens": tokens, "threads": threads,
                        "torch_best_formula": best_torch["formula"],
                        "torch_best_median_s": best_torch["torch"]["median_s"],
                        "fast_best_median_s": best_fast, "fast_over_torch": ratio})
    return summary


MAPPINGS = []  # keeps the anonymous mappings behind the tensors alive


def mapped_tensor(shape, dtype):
    """A tensor on its own page-aligned anonymous mapping, as `pecert bench`
    allocates (the malloc settings above then only govern torch's
    intermediates, and both sides see the same placement)."""
    count = math.prod(shape)
    region = mmap.mmap(-1, count * torch.tensor([], dtype=dtype).element_size())
    MAPPINGS.append(region)
    return torch.frombuffer(region, dtype=dtype, count=count).view(shape)


def make_buffers(max_tokens):
    """q and out per dtype, random in [-1, 1), touched before any timing."""
    gen = torch.Generator().manual_seed(0)
    buffers = {}
    shape = (max_tokens, HEADS, HEAD_DIM)
    for name, dt in TORCH_DTYPE.items():
        q = mapped_tensor(shape, dt)
        out = mapped_tensor(shape, dt)
        q.copy_(torch.rand(*shape, generator=gen) * 2 - 1)
        out.zero_()
        buffers[name] = (q, out, torch.arange(max_tokens, dtype=torch.int64))
    return buffers


def write_json(path, document):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".bench-peers.")
    # mkstemp creates the file 0600; give it the mode a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)
    with os.fdopen(fd, "w") as f:
        json.dump(document, f, indent=1)
    os.replace(tmp, path)


def main():
    global torch, TORCH_DTYPE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plugin", default="build/impls/fast.so")
    parser.add_argument("--tokens", default="1,16,128,512,4096,32768")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--json")
    parser.add_argument("--malloc-default", action="store_true",
                        help="keep glibc's malloc defaults (torch then page-faults per call)")
    args = parser.parse_args()
    if not args.malloc_default and os.environ.get("PECERT_PEERS_CHILD") != "1":
        env = dict(os.environ, PECERT_PEERS_CHILD="1", MALLOC_MMAP_MAX_="0",
                   MALLOC_TRIM_THRESHOLD_=str(1 << 62))
        os.execve(sys.executable, [sys.executable] + sys.argv, env)
    try:
        import torch as torch_module
    except ImportError:
        raise SystemExit("bench-peers: PyTorch is missing (Debian python3-torch: make gen-deps)")
    torch = torch_module
    TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
    tokens = [int(t) for t in args.tokens.split(",")]
    threads = [int(t) for t in args.threads.split(",")]
    fast = Fast(args.plugin)
    buffers = make_buffers(max(tokens))
    print(f"bench-peers: torch {torch.__version__} vs fast ({fast.describe()}), q[T, {HEADS}, {HEAD_DIM}], "
          f"{args.reps} samples, malloc {'default' if args.malloc_default else 'no-unmap (no faults)'}")
    print(f"  {'T':>6s} {'thr':>3s} {'torch formula':15s} {'placement':12s} {'rot':>3s} {'dtype':5s} "
          f"{'torch ms':>10s} {'GB/s':>7s} {'fast ms':>10s} {'GB/s':>7s} {'fast/torch':>9s}")
    results = []
    for case in cases(tokens, threads):
        results.append(run_case(fast, buffers, case, args.reps))
        print_row(results[-1])
    summary = summarize(results)
    if args.json:
        write_json(args.json, {"schema": "pecert-bench-peers/1", "torch": torch.__version__,
                               "fast": fast.describe(), "malloc_default": args.malloc_default,
                               "note": "fast called through ctypes (~1-2 us per call); "
                                       "quote `pecert bench` for small T",
                               "cases": results, "summary": summary})
        print(f"\nresults: {args.json}")


if __name__ == "__main__":
    main()
