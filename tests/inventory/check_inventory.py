#!/usr/bin/python3
"""The inventory of transformers' model zoo, held against what pecert claims.

    /usr/bin/python3 tests/inventory/check_inventory.py BUILD [--write]

conformance/inventory.json (vectors/gen/gen_inventory.py: every model_type of
transformers v4.57.6, the position fields of its default config and what its modeling
code does with positions) is read, and for every model_type its config goes through
`BUILD/pecert certify --config config.json --print`. From the answers:

1. A mapping must not claim more than it covers. A mapped config without one of its
   position fields must get the answer the full default config gets (the config class
   fills in that very default), or a refusal. For every model_type pecert maps,
   each encoding field the config has is changed in turn (the row's probes that its
   config class keeps, gen_inventory.py ENCODING_FIELDS), and pecert's answer must
   change with it (other derived parameters, a warning, or a
   refusal): a field the modeling code reads that the mapping ignores is a silent
   wrong certificate. And where the modeling code rotates only some layers (an `if`
   around its apply-rotary call, a second rotary module, rope_local_base_freq),
   pecert must map those layers to layer types (`layer type` lines), say so in a
   warning, or not map the model at all.
2. conformance/profiles/INVENTORY.md is what this script writes from the answers
   (--write writes it); a stale one fails, so the table is generated, never typed.
3. Every bundled profile's model_type is in the inventory, and every RoPE, sinusoidal and
   ViT-family tower mapping (and every other with a vectors/mappings file: the learned
   tables') is held to the model's own outputs: a bundled profile's vectors, or else
   vectors/mappings/<model_type>.json, which ref must certify through the mapping.
4. The check can fail: a planted ignored field and a planted per-layer `if` on the
   llama row must each be reported (self_test). (That a real unknown encoding field is
   refused, not ignored, is what the probes of every mapped row show.)

Exit status 0 when all hold, 1 otherwise (each failure one line), 2 on bad input.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INVENTORY = os.path.join(ROOT, "conformance", "inventory.json")
TABLE = os.path.join(ROOT, "conformance", "profiles", "INVENTORY.md")
PROFILES = os.path.join(ROOT, "conformance", "profiles")
MAPPINGS = os.path.join(ROOT, "vectors", "mappings")
# A profile's model_type -> the mapping rule that reads it (certify_config.c: Llama 4's
# config.json is read from its text_config by the llama4_text rule, Mllama's by mllama_text_model).
RULE_OF = {"llama4": "llama4_text", "mllama": "mllama_text_model", "qwen3_omni_moe": "qwen3_omni_moe_thinker"}

# Words of an `if` around the apply-rotary call that make it a per-layer choice.
LAYER_WORDS = ("use_rope", "sliding", "is_sliding", "use_mem_rope", "layer_idx")


def pecert(build, scratch, config):
    """(exit status, stdout, stderr) of certify --print on config."""
    path = os.path.join(scratch, "config.json")
    with open(path, "w", encoding="ascii") as f:
        json.dump(config, f)
    p = subprocess.run([os.path.join(build, "pecert"), "certify", "--config", path, "--print"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout.replace(path, "config.json"), p.stderr.replace(path, "config.json")


DELETE = object()


def edited(config, text_key, key, value=DELETE):
    """A copy of config with key (in the text config when nested) set to value, or
    removed."""
    out = json.loads(json.dumps(config))
    inner = out[text_key] if text_key else out
    if value is DELETE:
        inner.pop(key, None)
    else:
        inner[key] = value
    return out


def ignored_fields(build, scratch, r, answer):
    """The encoding fields of r (its probes the config class keeps changed) whose
    change leaves pecert's answer as it was."""
    out = []
    for probe in r.get("probes", []):
        if not probe["kept"]:
            continue
        changed = edited(r["config"], r.get("text_config"), probe["field"], probe["other"])
        if pecert(build, scratch, changed) == answer:
            out.append("%s %s -> %s" % (probe["field"], json.dumps(probe["value"]), json.dumps(probe["other"])))
    return out


def config_of(r):
    """The (text) config the model's position fields live in."""
    return r["config"][r["text_config"]] if r.get("text_config") else r["config"]


def wrong_defaults(build, scratch, r, answer):
    """The position fields of r whose absence makes pecert answer otherwise than with
    the class's default value there (r's config is the class's defaults, so a config
    without the field means the same thing to transformers). A refusal is no wrong
    answer: pecert may require what the class would default.
    A nested text config's absent field takes what the class makes of the dict without
    it (the row's absent_defaults, recorded by running the class: the text model's
    own default, or the wrapper's where it puts its own under the given fields), which
    need not be the value the wrapper's default config shows (Mistral3Config's
    overrides apply only when text_config is None); null is the class's None."""
    out = []
    text_key = r.get("text_config")
    absent = r.get("absent_defaults", {})
    # The width and the heads too: pecert takes the class's defaults for them where a
    # config leaves them out (certify_llama.c, llama_like_sizes). A top-level config
    # only: what a wrapper makes of a text_config without them (the text class's
    # default, not the wrapper's default text_config) is not recorded.
    config = config_of(r)
    sizes = [k for k in ("hidden_size", "num_attention_heads")
             if not text_key and k in config and k not in r.get("fields", {})]
    for key in sorted(r.get("fields", {})) + sizes:
        status, stdout, _ = pecert(build, scratch, edited(r["config"], text_key, key))
        expected = answer
        if key in absent and absent[key] != r["config"][text_key].get(key):
            expected = pecert(build, scratch, edited(r["config"], text_key, key, absent[key]))
        if status == 0 and stdout != expected[1]:  # the derived parameters (a warning may name another key)
            out.append(key)
    return out


def layer_features(r):
    """What of the model rotates some layers and not others, or differently."""
    src = r["source"]
    out = ["rope only `%s`" % c for c in src["rope_conditions"] if any(w in c for w in LAYER_WORDS)]
    if len(src["rotary_modules"]) > 1:
        out.append("rotary modules %s" % ", ".join(src["rotary_modules"]))
    if "rope_local_base_freq" in r.get("fields", {}):
        out.append("rope_local_base_freq %s on local layers" % json.dumps(r["fields"]["rope_local_base_freq"]))
    if src["interleaved_mrope"] or r.get("fields", {}).get("mrope_interleaved"):
        out.append("interleaved M-RoPE")
    return out


# Model types whose modeling file shows positions that their own model class never
# computes (the file is shared with other model types), each with where that was read.
NO_POSITIONS = {
    # Blip2QFormerModel (modeling_blip_2.py) builds no embeddings module: its forward takes
    # query_embeds only, the learned query tokens carry no position; the learned text
    # table beside it (Blip2TextEmbeddings) is built only by blip-2's retrieval heads.
    "blip_2_qformer": "Blip2QFormerModel",
}


def families(r):
    """The position encodings the model's code and config show, in words."""
    src, fields = r["source"], r.get("fields", {})
    if r["model_type"] in NO_POSITIONS:
        return "none found"
    found = []
    if src["rotary_classes"] or src["apply_functions"] or src.get("rope_code") or "rope_theta" in fields:
        scaling = fields.get("rope_scaling") or {}
        found.append("M-RoPE" if "mrope_section" in scaling or any("multimodal" in f for f in src["apply_functions"])
                     else "RoPE")
    if src["alibi"] or fields.get("alibi") or fields.get("use_alibi"):
        found.append("ALiBi")
    if src["t5_buckets"] or "relative_attention_num_buckets" in fields:
        found.append("T5 buckets")
    if src["relative_bias_table"]:
        found.append("relative bias table")
    if src["learned_positions"]:
        found.append("learned")
    if src["sinusoidal"]:
        found.append("sinusoidal")
    return " + ".join(found) if found else "none found"


def profile_names():
    """model_type -> bundled profile names."""
    out = {}
    for name in sorted(os.listdir(PROFILES)):
        if name.endswith(".json"):
            with open(os.path.join(PROFILES, name), encoding="utf-8") as f:
                out.setdefault(json.load(f)["config"]["model_type"], []).append(name[:-5])
    return out


def derived(stdout):
    """pecert's derived parameters, one line: 'rope default, rotary_dim 128 of ...'."""
    keep = ("positional encoding", "rope_type", "rotary_dim", "pairing", "alibi max_bias",
            "relative_attention", "learned table", "learned positions", "sinusoidal table", "sinusoidal positions",
            "decoder table", "mrope_section", "layers", "layer type")
    parts = []
    for line in stdout.splitlines():
        text = line.strip()
        for key in keep:
            if text.startswith(key):
                parts.append(text[len(key):].strip() if key == "positional encoding" else
                             "%s %s" % (key, text[len(key):].strip()))
    return ", ".join(" ".join(p.split()) for p in parts)


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def judge(build, scratch, rows, profiles):
    """Table rows and failures."""
    table, failures = [], []
    counts = {"mapped": 0, "partial": 0, "refused": 0, "wrapper": 0}
    for r in rows:
        mt = r["model_type"]
        names = ", ".join(profiles.get(mt, []))
        if "error" in r:
            counts["wrapper"] += 1
            table.append((mt, r["config_class"], "(its config class needs sub-configs)", "-",
                          "not mapped: %s" % r["error"], names))
            continue
        answer = pecert(build, scratch, r["config"])
        status, stdout, stderr = answer
        layers = layer_features(r)
        warnings = [l.split("warning: ", 1)[1] for l in stderr.splitlines() if "warning: " in l]
        if status == 0:
            ignored = ignored_fields(build, scratch, r, answer)
            for what in ignored:
                failures.append("%s: pecert maps it but ignores %s (the same answer either way)" % (mt, what))
            for key in wrong_defaults(build, scratch, r, answer):
                failures.append("%s: without %s pecert certifies other parameters than %s's default %s"
                                % (mt, key, r["config_class"], json.dumps(r["fields"].get(key, config_of(r).get(key)))))
            layer_types = [l for l in stdout.splitlines() if l.strip().startswith("layer type ")]
            if layers and not layer_types and not any("layer" in w for w in warnings):
                failures.append("%s: pecert maps it with no warning naming its layers, but the model %s"
                                % (mt, "; ".join(layers)))
            kind = "partial" if warnings else "mapped"
            counts[kind] += 1
            verdict = ("certify: " if kind == "mapped" else "certify, partly: ") + derived(stdout)
            if warnings:
                verdict += " (warning: %s)" % "; ".join(warnings)
        else:
            counts["refused"] += 1
            why = stderr.strip().splitlines()[-1] if stderr.strip() else "exit %d" % status
            verdict = "not mapped: " + why.split("pecert: ", 1)[-1].replace("config.json: ", "")
        table.append((mt, r["config_class"], families(r), "; ".join(layers) or "-", verdict, names))
    for mt in profiles:
        if not any(r["model_type"] == mt for r in rows):
            failures.append("profile model_type %s: not in the inventory" % mt)
    return table, failures, counts


def not_mapped_summary(table):
    """The model types pecert does not map, grouped by what mapping them needs."""
    groups = {}
    for mt, _cls, enc, layers, verdict, _names in table:
        if not verdict.startswith("not mapped"):
            continue
        if enc == "(its config class needs sub-configs)":
            need = "wrappers of other models (mapped through the model they wrap)"
        elif "has no mapping in pecert" not in verdict and _names:
            need = ("mapped, but the config class's own defaults are refused (a field the model cannot run "
                    "without, or a default encoding pecert has no family for; its released checkpoints certify "
                    "through their profiles)")
        elif layers not in ("-", "interleaved M-RoPE"):
            need = ("layers that differ: rope on some layers only, or more than one rotary module "
                    "(per-layer encodings)")
        elif layers == "interleaved M-RoPE":
            need = "interleaved M-RoPE, no mapping yet"
        elif "M-RoPE" in enc:
            need = "M-RoPE, no mapping yet"
        elif "RoPE" in enc:
            need = "RoPE, no mapping yet"
        elif enc == "none found":
            need = "no position encoding found in config or modeling code (state-space, convolutional, or positions made elsewhere)"
        else:
            need = enc + ", no mapping yet"
        groups.setdefault(need, []).append(mt)
    out = ["", "## Not mapped, by what mapping them needs", ""]
    for need in sorted(groups, key=lambda k: (-len(groups[k]), k)):
        out.append("- **%s** (%d): %s" % (need, len(groups[need]), ", ".join("`%s`" % m for m in groups[need])))
    return out


def markdown(doc, table, counts):
    prov = doc["provenance"]
    lines = [
        "# The model zoo's position encodings, and what pecert certifies",
        "",
        "Generated by `tests/inventory/check_inventory.py --write` from `../inventory.json`",
        "(`vectors/gen/gen_inventory.py`: transformers %s, commit %s, every `model_type` of"
        % (prov["tag"], prov["commit"]),
        "`CONFIG_MAPPING` with its default config and its modeling code read as text) and from",
        "`pecert certify --config <that config> --print`. Do not edit: `make check` fails when",
        "this file is not what the script writes.",
        "",
        "%d model types: pecert maps %d (%d of them with a warning naming what it does not"
        % (len(table), counts["mapped"] + counts["partial"], counts["partial"]),
        "certify), refuses %d, and %d are wrappers whose config class cannot be built alone."
        % (counts["refused"], counts["wrapper"]),
        "A default config is the config class's own defaults, not a released checkpoint's",
        "(`profiles` names the bundled checkpoints of a model type). *Encoding* is what the",
        "modeling code and config show; *layers* is what makes layers differ (an `if` around",
        "the apply-rotary call, a second rotary module, a local base); a mapped model type",
        "with such layers must map them to layer types (certify checks each type on its own,",
        "`ID@type`) or carry a warning, and every encoding field of a mapped config must",
        "change pecert's answer when it changes (the script tries each).",
        "",
    ]
    lines += not_mapped_summary(table)
    lines += [
        "",
        "## Every model type",
        "",
        "| model_type | config class | encoding | layers | pecert | profiles |",
        "|---|---|---|---|---|---|",
    ]
    for entry in table:
        lines.append("| " + " | ".join(cell(c) for c in entry) + " |")
    return "\n".join(lines) + "\n"


def held_rules(build):
    """The model types pecert maps to RoPE, to a sinusoidal table or to a ViT-family
    tower's resized table (`certify --list-model-types`): a rule of theirs is a formula
    the model's own class must confirm."""
    p = subprocess.run([os.path.join(build, "pecert"), "certify", "--list-model-types"], capture_output=True,
                       text=True, timeout=60)
    rules = [line.split()[0] for line in p.stdout.splitlines()
             if line.startswith("  ") and ("RoPE" in line or " sinusoidal: " in line or "@vision pass" in line)]
    if p.returncode != 0 or not rules:
        raise SystemExit("inventory: `pecert certify --list-model-types` failed or listed no RoPE model type")
    return rules


def unproven_mappings(build, scratch, rows, profiles):
    """Every RoPE, sinusoidal and ViT-family tower mapping must be held to the model's own outputs: by a bundled profile's
    vectors, or else by vectors/mappings/<model_type>.json (gen_profiles.py --inventory:
    the default config's outputs), which ref must certify through the mapping. Returns
    (failures, number held by mapping vectors)."""
    covered = set(profiles) | {RULE_OF.get(mt, mt) for mt in profiles}  # the checkpoint's rule and its text model's
    by_type = {r["model_type"]: r for r in rows}
    # A config class whose model_type is not its registry key (MLCDVisionConfig's
    # mlcd_vision_model, registered as mlcd): the rule is the config's model_type.
    for r in rows:
        by_type.setdefault((r.get("config") or {}).get("model_type"), r)
    # A text model type that is no model type of its own (Emu3TextConfig's
    # emu3_text_model): its wrapper's default text_config, alone.
    for r in rows:
        inner = r.get("text_config") and r["config"][r["text_config"]].get("model_type")
        if inner and inner not in by_type:
            by_type[inner] = dict(r, model_type=inner, config=r["config"][r["text_config"]])
    failures, held = [], 0
    # Any other mapping with recorded outputs (the learned tables' rules) is held too.
    recorded = sorted(f[:-5] for f in os.listdir(MAPPINGS) if f.endswith(".json"))
    required = held_rules(build)
    for rule in required + [mt for mt in recorded if mt not in required]:
        if rule in covered:
            continue
        path = os.path.join(MAPPINGS, rule + ".json")
        if not os.path.exists(path) or rule not in by_type:
            failures.append("%s: mapped, but neither a profile nor vectors/mappings/%s.json holds the mapping to "
                            "the official outputs" % (rule, rule))
            continue
        config = os.path.join(scratch, "mapping.json")
        with open(config, "w", encoding="ascii") as f:
            json.dump(by_type[rule]["config"], f)
        p = subprocess.run([os.path.join(build, "pecert"), "certify", "--config", config, "--vectors", path,
                            "--impl", "ref", "--quiet"], capture_output=True, text=True, timeout=600)
        verdict = [l for l in p.stdout.splitlines() if l.startswith("verdict:")]
        if p.returncode != 0:
            failures.append("%s: ref is not certified against vectors/mappings/%s.json: %s"
                            % (rule, rule, verdict[0] if verdict else "exit %d" % p.returncode))
        else:
            held += 1
    return failures, held


def self_test(build, scratch, rows):
    """The check must be able to fail: llama's row with a planted probe of a field the
    mapping rightly ignores (attention_dropout, planted as if it were an encoding field:
    pecert refuses the encoding keys it does not know, so no real one is left to plant),
    and with a planted `if self.use_rope:` and no warning, must give one failure each.
    Returns what went wrong, or []."""
    llama = next(r for r in rows if r["model_type"] == "llama")
    planted = json.loads(json.dumps(llama))
    planted["probes"] = [{"field": "attention_dropout", "value": 0.0, "other": 0.5, "kept": True}]
    planted["source"]["rope_conditions"] = ["if self.use_rope:"]
    _table, failures, _counts = judge(build, scratch, [planted], {})
    want = ("ignores attention_dropout", "rope only `if self.use_rope:`")
    return ["self-test: no failure naming %s (got %s)" % (w, failures) for w in want
            if not any(w in f for f in failures)]


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    build, write = argv[1], "--write" in argv[2:]
    try:
        with open(INVENTORY, encoding="ascii") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("inventory: %s: %s" % (INVENTORY, e), file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pecert-inventory-") as scratch:
        profiles = profile_names()
        table, failures, counts = judge(build, scratch, doc["model_types"], profiles)
        failures += self_test(build, scratch, doc["model_types"])
        unproven, held = unproven_mappings(build, scratch, doc["model_types"], profiles)
        failures += unproven
    text = markdown(doc, table, counts)
    if write:
        with open(TABLE, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        try:
            with open(TABLE, encoding="utf-8") as f:
                if f.read() != text:
                    failures.append("%s is stale: run `%s %s --write`" % (os.path.relpath(TABLE, ROOT),
                                                                         os.path.relpath(argv[0], ROOT), build))
        except OSError:
            failures.append("%s: missing: run `%s %s --write`" % (os.path.relpath(TABLE, ROOT),
                                                                 os.path.relpath(argv[0], ROOT), build))
    for line in failures:
        print("inventory: FAIL %s" % line)
    print("inventory: %s; %d model types, %d mapped (%d partly), %d refused, %d wrappers; %d mappings "
          "without a profile held to vectors/mappings"
          % ("OK" if not failures else "%d failures" % len(failures), len(table),
             counts["mapped"] + counts["partial"], counts["partial"], counts["refused"], counts["wrapper"], held))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
