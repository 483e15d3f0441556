#!/usr/bin/python3
"""Inventory transformers v4.57.6's model zoo for position encodings: every model_type,
what its config class says about positions, and what its modeling code does with them.

    /usr/bin/python3 vectors/gen/gen_inventory.py --ref /path/to/transformers \\
        --out conformance/inventory.json

For every model_type of transformers' CONFIG_MAPPING, the config class is instantiated
with its defaults (CONFIG_MAPPING[model_type]()), exactly as the library builds a config
no file overrides, and its to_dict() is read:

  fields    the position-encoding fields it has (rope_theta, rope_scaling,
            partial_rotary_factor, head_dim, qk_rope_head_dim, mrope_section,
            rope_local_base_freq, sliding_window, layer_types, no_rope_layers, alibi,
            position_embedding_type, relative_attention_num_buckets, ...), from the
            text model's config when the class nests one (text_config, ...);
  config    the config as a config.json would hold it (scalars, short lists, and the
            position-relevant nested objects), which tests/inventory/ feeds to
            `pecert certify --config ... --print`;
  probes    each encoding field with another value, and whether the config class keeps
            that value when given it (it may derive the field from others instead);
  source    what the model's modeling_*.py files do with positions, read from their
            text (never executed): the rotary classes they define and instantiate, the
            conditions that guard a call of an apply-rotary function (a layer that
            skips RoPE: `if self.use_rope:`), and the markers of ALiBi, T5 relative
            buckets, learned and sinusoidal absolute positions, relative bias tables and
            interleaved M-RoPE.

Nothing here decides what pecert supports: tests/inventory/check_inventory.py runs pecert
on each row's config (and on each kept probe) and writes conformance/profiles/INVENTORY.md
from its answers. A
model_type whose config class cannot be built without arguments (the encoder-decoder
wrappers) is listed with the error its constructor raised. Output is deterministic
(vecfile's spelling, one model_type per line). See vectors/gen/README.md.
"""

import argparse
import json
import math
import os
import re
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen_rope  # noqa: E402
import hfref  # noqa: E402
import vecfile  # noqa: E402

GENERATOR = "vectors/gen/gen_inventory.py"
SCHEMA = "pecert-inventory/1"

# The config keys that say something about positions (top level, or in the text config).
PE_KEYS = (
    "rope_theta", "rope_scaling", "rope_parameters", "partial_rotary_factor", "rotary_pct",
    "rotary_dim", "rotary_emb_base", "rotary_emb_fraction", "rope_pct", "rope_ratio",
    "rope_interleave", "rope_local_base_freq", "head_dim", "qk_rope_head_dim",
    "qk_nope_head_dim", "mrope_section", "mrope_interleaved", "sliding_window",
    "layer_types", "no_rope_layers", "no_rope_layer_interval", "nope_layer_interval",
    "attn_temperature_tuning", "use_rope", "use_alibi", "alibi", "position_embedding_type",
    "relative_attention_num_buckets", "relative_attention_max_distance",
    "max_position_embeddings", "n_positions", "max_relative_positions", "position_buckets",
)
# Where a composite config keeps its language model's, in the order looked for.
TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config", "thinker_config")
# Nested objects a config.json of the model keeps and pecert may read.
KEPT_OBJECTS = ("rope_scaling", "rope_parameters", "attn_config") + TEXT_CONFIG_KEYS
LIST_LIMIT = 512
# Fields whose value the position encoding depends on: tests/inventory/ changes each
# in turn and requires pecert's answer to change. Lengths and windows are left out:
# max_position_embeddings moves only the lengths certify tests, sliding_window masks
# attention, not positions.
ENCODING_FIELDS = (
    "rope_theta", "partial_rotary_factor", "rotary_pct", "rotary_dim", "rotary_emb_base",
    "rotary_emb_fraction", "rope_interleave", "rope_local_base_freq", "head_dim",
    "qk_rope_head_dim", "mrope_interleaved", "no_rope_layers", "use_alibi", "alibi",
    "position_embedding_type", "relative_attention_num_buckets",
    "relative_attention_max_distance",
)


def kept(value, depth=0):
    """value as config.json holds what pecert may read: scalars, short lists of
    scalars; None for anything else (dropped). A non-finite float (some configs
    default a bound to inf) is kept as the string "inf", "-inf" or "nan", as pecert's
    results files spell them: JSON has no such number."""
    if isinstance(value, float) and not math.isfinite(value):
        return ("nan" if math.isnan(value) else "inf" if value > 0 else "-inf"), True
    if value is None or isinstance(value, (bool, int, float, str)):
        return value, True
    if isinstance(value, (list, tuple)):
        if len(value) <= LIST_LIMIT and all(v is None or isinstance(v, (bool, int, float, str))
                                            for v in value):
            return [kept(v)[0] for v in value], True
        return None, False
    if isinstance(value, dict) and depth == 0:
        return {k: v for k, (v, ok) in ((k, kept(v, 1)) for k, v in value.items()) if ok}, True
    return None, False


def reduced_config(d, base):
    """The fields of to_dict() a config.json of this model would carry for pecert: not
    the generation and bookkeeping attributes every config inherits at their defaults
    (base: PretrainedConfig().to_dict()), nor nested configs other than KEPT_OBJECTS."""
    out = {}
    for key, value in d.items():
        if key != "model_type" and key in base and value == base[key]:
            continue
        if isinstance(value, dict) and key not in KEPT_OBJECTS:
            continue
        v, ok = kept(value) if not isinstance(value, dict) else (reduced_config(value, base), True)
        if ok:
            out[key] = v
    return out


def pe_fields(d):
    return {k: kept(d[k])[0] for k in PE_KEYS if k in d}


def text_config_key(d):
    for key in TEXT_CONFIG_KEYS:
        if isinstance(d.get(key), dict):
            return key
    return None


# ---- the modeling source, read as text --------------------------------------

# Rotary classes of a model's non-text towers (Qwen2-VL's VisionRotaryEmbedding, Llama 4's
# Llama4VisionRotaryEmbedding): a second rotary module there does not make the text
# model's layers differ.
TOWER_CLASS = re.compile(r"Vision|Visual|Audio|Image|Patch|Video")
APPLY_CALL = re.compile(r"\b(apply_\w*rotary\w*|apply_multimodal_rotary_pos_emb|apply_\w*rope\w*)\(")
MARKERS = {
    "alibi": re.compile(r"\balibi\b", re.I),
    # T5's function, and WavLM's _relative_positions_bucket (its gated relative bias).
    "t5_buckets": re.compile(r"_relative_positions?_bucket\b"),
    "learned_positions": re.compile(
        r"nn\.Embedding\(\s*(config\.)?(max_position_embeddings|n_positions|max_source_positions|"
        r"max_target_positions|num_positions|max_seq_len|block_size)"
        r"|class \w*Position\w*\((nn\.Embedding|\w*LearnedPositionalEmbedding)\)"
        r"|pos(ition)?_emb(ed)?\w* = nn\.(Embedding|Parameter)\("),
    # The fixed tables: the 1-D sinusoids, DETR's sine, the 2-D sin-cos of RT-DETR's
    # family (build_2d_sincos_position_embedding) and PatchTST's, NeZHA's relative one.
    "sinusoidal": re.compile(r"Sinusoidal\w*|sinusoid|SinePositionEmbedding|sincos|RelativePositionsEncoding", re.I),
    "relative_bias_table": re.compile(r"relative_position_bias_table"),
    "interleaved_mrope": re.compile(r"mrope_interleaved|apply_interleaved_mrope"),
    # A rotary attention named Rope, not Rotary (V-JEPA 2's 3-D rotation).
    "rope_code": re.compile(r"^class \w*Rope\w*\(|^def rotate_queries_or_keys\(", re.M),
}


def guard_of(lines, i):
    """The `if ...:` that guards the call on line i (within five lines above, less
    indented), or None."""
    indent = len(lines[i]) - len(lines[i].lstrip())
    for j in range(i - 1, max(i - 6, -1), -1):
        text = lines[j].strip()
        lead = len(lines[j]) - len(lines[j].lstrip())
        if text and lead < indent:
            return re.sub(r"\s*#.*$", "", text) if text.startswith("if ") else None
    return None


def model_folder(ref, folder, model_type):
    """The folder of the class AutoModel builds for model_type (modeling_auto's
    MODEL_MAPPING_NAMES, read as text), where another folder defines it: Gemma 3n's vision
    tower is a TimmWrapperModel (MobileNet-V5), not the code beside its config class."""
    models = os.path.join(ref.src_root, "transformers", "models")
    with open(os.path.join(models, "auto", "modeling_auto.py"), encoding="utf-8") as f:
        names = re.search(r"MODEL_MAPPING_NAMES = OrderedDict\(\s*\[(.*?)\]\s*\)", f.read(), re.S).group(1)
    found = re.search(r'\("%s",\s*"(\w+)"\)' % re.escape(model_type), names)
    if found is None:
        return folder
    defines = re.compile(r"^class %s\(" % found.group(1), re.M)
    candidates = [folder] + sorted(os.path.join(d, "") for d, _, _ in os.walk(models))
    for candidate in candidates:
        for name in sorted(os.listdir(candidate)) if os.path.isdir(candidate) else []:
            if name.startswith("modeling_") and name.endswith(".py") and not name.startswith(("modeling_tf_",
                                                                                            "modeling_flax_")):
                with open(os.path.join(candidate, name), encoding="utf-8") as f:
                    if defines.search(f.read()):
                        return os.path.normpath(candidate)
    return folder


def source_facts(ref, cls, model_type):
    """What the modeling files of the model the config class builds do with positions,
    from their text: those beside the config class, or those of the folder defining the
    class AutoModel builds for it (model_folder)."""
    config_file = os.path.abspath(sys.modules[cls.__module__].__file__)
    folder = model_folder(ref, os.path.dirname(config_file), model_type)
    rel = os.path.relpath(folder, ref.src_root).replace(os.sep, "/")
    files = sorted(f for f in os.listdir(folder) if f.startswith("modeling_") and f.endswith(".py")
                   and not f.startswith(("modeling_tf_", "modeling_flax_")))
    # A folder of several models, each its configuration_X.py and modeling_X.py
    # (data2vec's audio, text and vision; maskformer and its Swin backbone; RT-DETR and
    # its ResNet): the class's own modeling file only, not its neighbours' positions.
    configs = [f for f in os.listdir(folder) if f.startswith("configuration_") and f.endswith(".py")]
    own = "modeling_" + os.path.basename(config_file)[len("configuration_"):]
    if len(configs) > 1 and own in files:
        files = [own]
    facts = {"files": ["src/%s/%s" % (rel, f) for f in files],
             "rotary_classes": set(), "rotary_modules": set(), "apply_functions": set(),
             "rope_conditions": set()}
    for marker in MARKERS:
        facts[marker] = False
    for name in files:
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        facts["rotary_classes"].update(re.findall(r"^class (\w*Rotary\w*)\(", text, re.M))
        for attr, rotary_class in re.findall(r"self\.(\w*rotary\w*) = (\w*Rotary\w*)\(", text):
            if not TOWER_CLASS.search(rotary_class):  # a vision/audio tower's own rotary is not a layer's
                facts["rotary_modules"].add(attr)
        facts["apply_functions"].update(re.findall(r"^def (apply_\w*(?:rotary|rope)\w*|apply_multimodal_rotary_pos_emb)\(",
                                                   text, re.M))
        for i, line in enumerate(lines):
            if APPLY_CALL.search(line) and not line.lstrip().startswith(("def ", "#")):
                guard = guard_of(lines, i)
                if guard is not None:
                    facts["rope_conditions"].add(guard)
        for marker, pattern in MARKERS.items():
            facts[marker] = facts[marker] or bool(pattern.search(text))
    for key in ("rotary_classes", "rotary_modules", "apply_functions", "rope_conditions"):
        facts[key] = sorted(facts[key])
    return facts


# ---- probes: does the config class keep a changed encoding field? ------------

def perturbed(value):
    """A different value of the same kind, or None when there is none to try."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value * 2 if value > 0 else value + 1
    if isinstance(value, float):
        return value * 2.0 if value != 0 else 0.5
    if isinstance(value, str):
        return {"absolute": "relative_key", "rope": "absolute"}.get(value, "absolute")
    if isinstance(value, list) and value and all(isinstance(v, (bool, int)) for v in value):
        flipped = list(value)
        flipped[0] = (not flipped[0]) if isinstance(flipped[0], bool) else (0 if flipped[0] else 1)
        return flipped
    return None


def probes(cls, d, text_key):
    """For each encoding field the config has: its value, another one, and whether the
    config class keeps the other when given it (DeepseekV3Config sets head_dim to
    qk_rope_head_dim whatever it is told: a mapping may ignore what the class does)."""
    inner = d[text_key] if text_key else d
    out = []
    for key in ENCODING_FIELDS:
        other = perturbed(inner.get(key)) if key in inner else None
        if other is None:
            continue
        kwargs = {text_key: dict(inner, **{key: other})} if text_key else {key: other}
        try:
            got = cls(**kwargs).to_dict()
            kept_value = (got[text_key] if text_key else got).get(key)
            kept_it = kept(kept_value)[0] == kept(other)[0]
        except Exception:  # noqa: BLE001 - a class that refuses the value keeps nothing
            kept_it = False
        out.append({"field": key, "value": kept(inner[key])[0], "other": kept(other)[0], "kept": kept_it})
    return out


def absent_defaults(cls, d, text_key):
    """For a nested text config: what the config class ends with for each position
    field when the given text_config dict lacks it. The text model's own class
    default (CONFIG_MAPPING[...](**text_config)), or the wrapper's defaults where it
    puts them under the given fields (VoxtralConfig): not always the value the
    wrapper's own default config shows (Mistral3Config's overrides apply only when
    text_config is None). A key the class leaves absent is null."""
    inner = d[text_key]
    out = {}
    for key in PE_KEYS:
        if key not in inner:
            continue
        given = {k: v for k, v in inner.items() if k != key}
        try:
            got = cls(**{text_key: given}).to_dict()[text_key]
        except Exception:  # noqa: BLE001 - a class that needs the key: no default to record
            continue
        out[key] = kept(got[key])[0] if key in got else None
    return out


# ---- the rows -----------------------------------------------------------------

def row(ref, configuration_auto, base, model_type):
    module_name = configuration_auto.model_type_to_module_name(model_type)
    cls = configuration_auto.CONFIG_MAPPING[model_type]
    out = {"model_type": model_type, "config_class": cls.__name__, "module": module_name,
           "source": source_facts(ref, cls, model_type)}
    try:
        d = cls().to_dict()
    except Exception as e:  # noqa: BLE001 - the constructor's own refusal is the fact
        out["error"] = "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:200])
        return out
    text_key = text_config_key(d)
    out["text_config"] = text_key
    out["fields"] = pe_fields(d[text_key] if text_key else d)
    out["config"] = reduced_config(d, base)
    out["probes"] = probes(cls, d, text_key)
    if text_key:
        out["absent_defaults"] = absent_defaults(cls, d, text_key)
    return out


def dumps(doc):
    """vecfile's JSON spelling, but one line per model_type: a diff of two inventories
    shows which model types changed."""
    rows = doc["model_types"]
    head = vecfile.dumps(dict(doc, model_types=[])).rstrip("\n")
    assert head.endswith('"model_types": []\n}') or '"model_types": []' in head
    lines = [json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
             for r in rows]
    return head.replace('"model_types": []', '"model_types": [\n' + ",\n".join(lines) + "\n]") + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref", default=os.environ.get("PECERT_TRANSFORMERS_REF"))
    parser.add_argument("--out", required=True, help="conformance/inventory.json")
    args = parser.parse_args(argv)
    if not args.ref:
        parser.error("--ref (or PECERT_TRANSFORMERS_REF) is required")
    ref = hfref.Reference(args.ref)
    from transformers import PretrainedConfig
    from transformers.models.auto import configuration_auto

    base = PretrainedConfig().to_dict()
    rows = [row(ref, configuration_auto, base, mt) for mt in sorted(configuration_auto.CONFIG_MAPPING_NAMES)]
    doc = {
        "schema": SCHEMA,
        "generator": GENERATOR,
        "provenance": dict(gen_rope.provenance(ref),
                           function="transformers.models.auto.configuration_auto.CONFIG_MAPPING"
                                    "[model_type]().to_dict(); modeling_*.py read as text"),
        "model_types": rows,
    }
    with open(args.out, "w", encoding="ascii") as f:
        f.write(dumps(doc))
    print("%s: %d model types (%d whose config class needs arguments)"
          % (args.out, len(rows), sum("error" in r for r in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
