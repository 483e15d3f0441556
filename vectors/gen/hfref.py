"""Import the official Hugging Face transformers code from a source checkout.

The golden vectors must come from the reference code itself, so this module never
re-implements anything: it puts the checkout on sys.path and imports it.  Two obstacles
stand between Debian 12's Python and transformers v4.57.6, and both are handled here,
at import time only:

1. Missing hub/serialization packages.  transformers imports huggingface_hub,
   safetensors and tokenizers at package import and checks their versions through
   importlib.metadata, but no function we call ever uses them.  We install an
   in-memory module finder that hands out empty stand-in modules (attribute access
   yields a dummy class, a few hub constants are given string/bool values) together with
   in-memory distribution metadata carrying the minimum version transformers asks for.
   Nothing is written to disk.

2. Old torch.  Debian ships torch 1.13, transformers 4.57 switches torch support off
   below 2.1.  The switch is the module global `_torch_available` in
   transformers/utils/import_utils.py, computed once when that module is executed; we
   wrap the loader of exactly that module and set the flag to True right after it runs,
   before any other transformers module reads it.  A handful of torch 2.x names that
   transformers touches while *importing* (decorators, dtype tables, a pytree hook)
   are given inert stand-ins, listed in TORCH_IMPORT_SHIMS below.  None of them lies on
   the path of the functions under test (rotary embedding modules, apply_rotary_pos_emb,
   ROPE_INIT_FUNCTIONS), which run unmodified on real torch tensors.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import os
import subprocess
import sys
import types

# The reference the vectors claim to come from.  gen_rope.py refuses any other version.
REF_REPO = "huggingface/transformers"
REF_TAG = "v4.57.6"
REF_COMMIT = "753d61104116eefc8ffc977327b441ee0c8d599f"
REF_VERSION = "4.57.6"

# Stand-in packages and the version their fake metadata reports: the lowest version
# transformers' dependency_versions_table.py accepts (checked at `import transformers`).
STUB_PACKAGES = {
    "huggingface_hub": "0.34.0",
    "safetensors": "0.4.3",
    "tokenizers": "0.22.0",
}

# Module-level constants of huggingface_hub that transformers evaluates at import time.
# Paths point nowhere on purpose: if anything tried to use the hub cache it would fail.
STUB_CONSTANTS = {
    "HF_HOME": "/nonexistent/pecert-stub/hf_home",
    "HF_HUB_CACHE": "/nonexistent/pecert-stub/hf_hub_cache",
    "HF_HUB_OFFLINE": True,
    "HF_HUB_DISABLE_TELEMETRY": True,
    "REGEX_COMMIT_HASH": "^[0-9a-f]{40}$",
    "_CACHED_NO_EXIST": object(),
}


def _stub_getattr(module_name):
    """Module __getattr__ for a stand-in: unknown CamelCase/lowercase names become dummy
    classes (usable as base classes, exception types, callables in annotations);
    unknown UPPER_CASE_WITH_UNDERSCORE constants are an error, so a new import-time use
    of a hub constant shows up loudly instead of silently getting a dummy."""

    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in STUB_CONSTANTS:
            return STUB_CONSTANTS[name]
        if name.isupper() and "_" in name:
            raise AttributeError(f"pecert stub {module_name} has no constant {name}")
        return type(name, (Exception,), {"__module__": module_name})

    return __getattr__


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []  # a package, so `import pkg.sub` works too
        module.__getattr__ = _stub_getattr(spec.name)
        module.__version__ = STUB_PACKAGES[spec.name.split(".")[0]]
        module.__pecert_stub__ = True
        return module

    def exec_module(self, module):
        pass


class _StubDistribution(importlib.metadata.Distribution):
    """In-memory metadata so importlib.metadata.version() answers for a stub."""

    def __init__(self, name, version):
        self._metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"

    def read_text(self, filename):
        return self._metadata if filename == "METADATA" else None

    def locate_file(self, path):
        return None


class _StubFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUB_PACKAGES:
            return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        wanted = context.name
        for pkg, version in STUB_PACKAGES.items():
            dist_name = pkg.replace("_", "-")
            if wanted is None or wanted.replace("_", "-").lower() == dist_name:
                yield _StubDistribution(dist_name, version)


class _TorchFlagLoader(importlib.abc.Loader):
    """Runs transformers/utils/import_utils.py unchanged, then turns torch support on."""

    def __init__(self, real_loader):
        self._real = real_loader

    def create_module(self, spec):
        return self._real.create_module(spec)

    def exec_module(self, module):
        self._real.exec_module(module)
        module._torch_available = True


class _TorchFlagFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "transformers.utils.import_utils":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None:
            return None
        spec.loader = _TorchFlagLoader(spec.loader)
        return spec


def _identity_decorator(fn=None, **_kwargs):
    """torch.compiler.disable / torch._dynamo.allow_in_graph stand-in: no compiler here."""
    if fn is None:
        return lambda f: f
    return fn


def _install_torch_import_shims(torch):
    """Give torch 1.13 the torch 2.x names transformers touches while importing.

    Each is only evaluated at import time (class decorators, a dtype lookup table, the
    ModelOutput pytree registration); none participates in a RoPE computation.
    Returns the list of shims actually installed (for the README / logs)."""
    import torch.utils._pytree as pytree

    installed = []
    if not hasattr(pytree, "register_pytree_node"):
        # torch 1.13 has the private spelling without serialized_type_name.
        def register_pytree_node(cls, flatten_fn, unflatten_fn, **_kwargs):
            pytree._register_pytree_node(cls, flatten_fn, unflatten_fn)

        pytree.register_pytree_node = register_pytree_node
        installed.append("torch.utils._pytree.register_pytree_node")
    if "torch.distributed.tensor" not in sys.modules:
        try:
            importlib.import_module("torch.distributed.tensor")
        except ImportError:
            sys.modules["torch.distributed.tensor"] = types.ModuleType("torch.distributed.tensor")
            installed.append("torch.distributed.tensor (empty module)")
    if not hasattr(torch, "compiler"):
        compiler = types.ModuleType("torch.compiler")
        compiler.disable = _identity_decorator
        compiler.is_compiling = lambda: False
        torch.compiler = compiler
        sys.modules["torch.compiler"] = compiler
        installed.append("torch.compiler.disable/is_compiling")
    if not hasattr(torch, "_dynamo"):
        dynamo = types.ModuleType("torch._dynamo")
        dynamo.allow_in_graph = _identity_decorator
        torch._dynamo = dynamo
        sys.modules["torch._dynamo"] = dynamo
        installed.append("torch._dynamo.allow_in_graph")
    try:
        torch.no_grad(lambda: None)
    except TypeError:
        # torch 2.x lets no_grad decorate bare (`@torch.no_grad`, Emu3Model.
        # decode_image_tokens, off every rotary path); 1.13 needs the call.
        # The same context either way: no_grad() around the function.
        grad_off = torch.no_grad

        def no_grad(func=None):
            return grad_off() if func is None else grad_off()(func)

        torch.no_grad = no_grad
        installed.append("torch.no_grad as a bare decorator")
    for name in ("float8_e4m3fn", "float8_e5m2"):
        if not hasattr(torch, name):
            # Only ever a value in a name->dtype table; never a tensor dtype here.
            setattr(torch, name, object())
            installed.append(f"torch.{name} (placeholder)")
    return installed


def find_source_root(ref_dir):
    """Accept the repository root (has src/transformers), src/, or the package itself."""
    ref_dir = os.path.abspath(ref_dir)
    for candidate in (os.path.join(ref_dir, "src"), ref_dir, os.path.dirname(ref_dir)):
        if os.path.isfile(os.path.join(candidate, "transformers", "modeling_rope_utils.py")):
            return candidate
    raise SystemExit(f"--ref {ref_dir}: no transformers/modeling_rope_utils.py under it")


def checkout_commit(src_root):
    """The git commit of the checkout holding src_root, or None when it is a plain source
    tree (or lies inside some unrelated repository)."""
    repo_root = os.path.dirname(src_root) if os.path.basename(src_root) == "src" else src_root
    try:
        out = subprocess.run(
            ["git", "-C", repo_root, "rev-parse", "--show-toplevel", "HEAD"],
            check=True, capture_output=True, text=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    lines = out.stdout.split()
    if len(lines) != 2 or os.path.realpath(lines[0]) != os.path.realpath(repo_root):
        return None
    return lines[1]


class Reference:
    """The imported reference modules the generator calls."""

    def __init__(self, ref_dir):
        src_root = find_source_root(ref_dir)
        commit = checkout_commit(src_root)
        if commit is not None and commit != REF_COMMIT:
            raise SystemExit(f"--ref is at commit {commit}, expected {REF_COMMIT} ({REF_TAG})")
        if any(m == "transformers" or m.startswith("transformers.") for m in sys.modules):
            raise SystemExit("transformers was imported before hfref.Reference")

        import torch

        self.torch = torch
        self.torch_shims = _install_torch_import_shims(torch)
        sys.meta_path.insert(0, _TorchFlagFinder())
        sys.meta_path.insert(0, _StubFinder())
        sys.path.insert(0, src_root)

        import transformers
        from transformers.utils import logging as hf_logging

        # Keep stderr readable: validation warnings about our deliberate edge configs
        # (e.g. yarn without original_max_position_embeddings) are expected.
        hf_logging.set_verbosity_error()
        loaded_from = os.path.dirname(os.path.abspath(transformers.__file__))
        if not loaded_from.startswith(src_root):
            raise SystemExit(f"transformers was imported from {loaded_from}, not from --ref")
        if transformers.__version__ != REF_VERSION:
            raise SystemExit(f"--ref has transformers {transformers.__version__}, need {REF_VERSION}")

        from transformers import modeling_rope_utils
        from transformers.models.deepseek_v2 import configuration_deepseek_v2, modeling_deepseek_v2
        from transformers.models.deepseek_v3 import configuration_deepseek_v3, modeling_deepseek_v3
        from transformers.models.gpt_neox import configuration_gpt_neox, modeling_gpt_neox
        from transformers.models.gptj import configuration_gptj, modeling_gptj
        from transformers.models.llama import configuration_llama, modeling_llama
        from transformers.models.phi3 import configuration_phi3, modeling_phi3

        self.transformers = transformers
        self.src_root = src_root
        self.commit_verified = commit is not None
        self.rope_utils = modeling_rope_utils
        self.llama = modeling_llama
        self.phi3 = modeling_phi3
        self.neox = modeling_gpt_neox
        self.gptj = modeling_gptj
        self.deepseek_v2 = modeling_deepseek_v2
        self.deepseek_v3 = modeling_deepseek_v3
        self.LlamaConfig = configuration_llama.LlamaConfig
        self.Phi3Config = configuration_phi3.Phi3Config
        self.GPTNeoXConfig = configuration_gpt_neox.GPTNeoXConfig
        self.GPTJConfig = configuration_gptj.GPTJConfig
        self.DeepseekV2Config = configuration_deepseek_v2.DeepseekV2Config
        self.DeepseekV3Config = configuration_deepseek_v3.DeepseekV3Config
