"""Reference checkouts other than transformers: verify them, import from them.

The golden vectors of the non-RoPE families come from the official code of
several repositories (fairseq, tensor2tensor, MAE, Swin, Transformer-XL, the
ALiBi authors' fairseq fork, llm-foundry).  Each generator takes the path of
a checkout with a flag; nothing of those repositories is copied into pecert.

A checkout is accepted when every file a generator reads has the git blob id
pinned below for the recorded commit (`git rev-parse <commit>:<path>`), so a
plain source tree (a tarball, `git archive`) is as good as a clone; when the
path is a git work tree its HEAD must also be the recorded commit.

Functions are called in one of two ways:

- imported as modules from the checkout (fairseq modules, Swin, MAE,
  Transformer-XL, transformers), with stand-ins only for packages the
  function under test does not use (listed where they are installed);
- or, when the module cannot be imported here (tensor2tensor needs
  TensorFlow, llm-foundry needs composer; the ALiBi authors' get_slopes is a
  closure inside TransformerDecoder.__init__), the one function's source
  text is cut out of the checkout file with `ast` and executed with the
  names it uses.  Decorators are dropped (they only name scopes); the text
  of the function body runs unchanged.
"""

import ast
import hashlib
import os
import subprocess
import sys
import textwrap
import types

# repo -> commit, a tag/describe string, and the blob id of every file used.
PINNED = {
    "ofirpress/attention_with_linear_biases": (
        "4b92f28a005ead2567abe2359f633e73e08f3833", "master (untagged)",
        {"fairseq/models/transformer.py": "0eb2ea5a633fcbfda055b5952933f6cd9c07dcf7"}),
    "facebookresearch/fairseq": (
        "3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99", "v0.9.0-1321-g3d262bb2 (main)",
        {"fairseq/modules/sinusoidal_positional_embedding.py":
             "dd93ddc397935027257515403dc316bd98d02bfa",
         "fairseq/modules/learned_positional_embedding.py":
             "378d0f707183dd344dbb9288dda394b11053acf0",
         "fairseq/utils.py": "4d4b35052305e7b60aa958d6d9b88a7ce0201045"}),
    "facebookresearch/dinov2": (
        "b8931f7bf91576930313be2c6d6af376033b35f0", "main (untagged)",
        {"dinov2/models/vision_transformer.py": "74df767eb3f3e45c8012e2637580d4927febd048"}),
    "facebookresearch/RAM": (
        "e6f051fbcfaef4cab69bf2ea1b25f500f94c0c64", "main (untagged)",
        {"projects/cope/src/cope/context_position.py": "ae76e0cc9872bcfb1361d539d84f1bf1039da159"}),
    "Meituan-AutoML/Twins": (
        "c1ff6714969ad8ef330e75cf97bd310f7488f529", "main (untagged)",
        {"gvt.py": "ae5c9275621e1ef5bfa5241fffa56bf32c958c02"}),
    "facebookresearch/segment-anything": (
        "dca509fe793f601edb92606367a655c15ac00fdf", "main (untagged)",
        {"segment_anything/modeling/image_encoder.py": "66351d9d7c589be693f4b3485901d3bdfed54d4a",
         "segment_anything/modeling/common.py": "2bf15236a3eb24d8526073bc4fa2b274cccb3f96"}),
    "facebookresearch/mae": (
        "efb2a8062c206524e35e47d04501ed4f544c0ae8", "main (untagged)",
        {"util/pos_embed.py": "6acf8bd3b3af48702648792cc84bdbc9472b94fd"}),
    "kimiyoung/transformer-xl": (
        "44781ed21dbaec88b280f74d9ae2877f52b492a5", "master (untagged)",
        {"pytorch/mem_transformer.py": "45147dfed951cfe90200e66580e176777e23a306"}),
    "microsoft/Swin-Transformer": (
        "f82860bfb5225915aca09c3227159ee9e1df874d", "main (untagged)",
        {"models/swin_transformer.py": "dde06bc5b4c4e56f5c09adf84679b01e5eeaf488"}),
    "tensorflow/tensor2tensor": (
        "bafdc1b67730430d38d6ab802cbd51f9d053ba2e", "v1.15.7-43-gbafdc1b6 (master)",
        {"tensor2tensor/layers/common_attention.py":
             "11ce57fcf526a2eb18a96cb462abce38de265891"}),
    "mosaicml/llm-foundry": (
        "8c8dd48f72168c5d51e2f7b151595892a8fba43d", "v0.7.0-542-g8c8dd48f7 (main)",
        {"llmfoundry/models/layers/attention.py":
             "190010650e349858dbbfd303ff32d704b08bdfdb"}),
}


def git_blob_id(path):
    """The id git gives a file's bytes: sha1 of 'blob <len>\\0' + content."""
    with open(path, "rb") as fh:
        data = fh.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _git_head(root):
    try:
        out = subprocess.run(["git", "-C", root, "rev-parse", "--show-toplevel", "HEAD"],
                             check=True, capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    top, head = out.stdout.split()
    return head if os.path.realpath(top) == os.path.realpath(root) else None


class Checkout:
    """One verified checkout: root path, repo, commit, tag."""

    def __init__(self, repo, root):
        if repo not in PINNED:
            raise SystemExit(f"no pinned commit for {repo}")
        if not root:
            raise SystemExit(f"{repo}: no checkout given")
        self.repo = repo
        self.root = os.path.abspath(root)
        self.commit, self.tag, files = PINNED[repo]
        head = _git_head(self.root)
        if head is not None and head != self.commit:
            raise SystemExit(f"{self.root} is at {head}, expected {repo}@{self.commit}")
        for rel, blob in files.items():
            path = os.path.join(self.root, rel)
            if not os.path.isfile(path):
                raise SystemExit(f"{self.root}: no {rel}: not a checkout of {repo}")
            got = git_blob_id(path)
            if got != blob:
                raise SystemExit(f"{path}: blob {got}, expected {blob} ({repo}@{self.commit})")

    def path(self, rel):
        return os.path.join(self.root, rel)

    def provenance(self, packages):
        return {"repo": self.repo, "commit": self.commit, "tag": self.tag,
                "packages": dict(packages)}


def _find_def(tree, qualname):
    """The FunctionDef at a dotted path of classes / functions, e.g.
    'TransformerDecoder.__init__.get_slopes' (a closure) or 'gen_slopes'."""
    nodes = tree.body
    found = None
    for part in qualname.split("."):
        found = None
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == part:
                found = node
                break
            # A closure may sit inside an if/with block of its function.
            if isinstance(node, (ast.If, ast.With)):
                for inner in node.body:
                    if isinstance(inner, (ast.FunctionDef, ast.ClassDef)) and inner.name == part:
                        found = inner
        if found is None:
            raise SystemExit(f"no {qualname} in the checkout file")
        nodes = found.body
    if not isinstance(found, ast.FunctionDef):
        raise SystemExit(f"{qualname} is not a function")
    return found


def load_function(path, qualname, names):
    """Execute the source text of one function from a checkout file and return it.

    names: the globals the function reads (modules such as math or a numpy-backed
    stand-in for tf).  Decorators are not applied; the body is the file's text,
    dedented.  Returns (function, first_line)."""
    with open(path, "r", encoding="utf-8") as fh:
        source = fh.read()
    tree = ast.parse(source)
    node = _find_def(tree, qualname)
    lines = source.splitlines(keepends=True)
    start = node.lineno - 1  # the 'def' line; decorators sit above it
    text = textwrap.dedent("".join(lines[start:node.end_lineno]))
    namespace = dict(names)
    code = compile(text, f"{path}:{qualname}", "exec")
    exec(code, namespace)  # noqa: S102 - the official function, by design
    return namespace[node.name], node.lineno


def stub_package(name, path):
    """Register `name` as a package whose submodules load from path, without
    running its __init__.py (used for fairseq, whose __init__ pulls in hydra,
    omegaconf and every model; the modules we import need none of it)."""
    module = types.ModuleType(name)
    module.__path__ = [path]
    module.__pecert_stub__ = True
    sys.modules[name] = module
    return module


def packages(torch=None):
    """Versions recorded in every manifest."""
    import platform
    import zlib

    import numpy as np

    out = {"python": platform.python_version(), "numpy": np.__version__,
           "zlib": zlib.ZLIB_RUNTIME_VERSION}
    if torch is not None:
        out["torch"] = torch.__version__
    return out
