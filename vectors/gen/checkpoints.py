"""RoPE parameters of released checkpoints, as their config.json files state them.

Each preset is (config kind, keyword arguments of the transformers config class).  The
kinds map to transformers config classes in gen_rope.make_config.  Only the fields that
feed the rotary embedding are given; everything else keeps the class default (no weights
are ever created).  Values are copied as numbers from the checkpoints' public config.json
files; where a vector needs a configuration no checkpoint has (a branch of the reference
code), the preset says "synthetic".
"""

# LongRoPE rescale factors, 48 per list (head_dim 96 -> 48 frequencies).
#
# PHI35_*: microsoft/Phi-3.5-mini-instruct config.json (rope_scaling, "type": "longrope").
# PHI3V_*: microsoft/Phi-3-vision-128k-instruct config.json (rope_scaling, "type": "su",
#          the original Phi-3 128k factor set).
# Both were read from public repositories that quote the config.json verbatim (not from
# the hub itself); they are used as realistic data, the vectors do not depend on them
# being the exact shipped values.
PHI35_LONG_FACTOR = [
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601,
    1.5899999141693115, 1.600000023841858, 1.6200000047683716, 2.620000123977661,
    3.2300000190734863, 3.2300000190734863, 4.789999961853027, 7.400000095367432,
    7.700000286102295, 9.09000015258789, 12.199999809265137, 17.670000076293945,
    24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992,
    50.340003967285156, 50.45000457763672, 57.55000305175781, 57.93000411987305,
    58.21000289916992, 60.1400032043457, 62.61000442504883, 62.62000274658203,
    62.71000289916992, 63.1400032043457, 63.1400032043457, 63.77000427246094,
    63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938,
    64.4800033569336, 64.51000213623047, 64.52999877929688, 64.83999633789062,
]
PHI35_SHORT_FACTOR = [
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252,
    1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083,
    1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903,
    1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713,
    2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.8399994373321533,
]
PHI3V_LONG_FACTOR = [
    1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547,
    1.2299998998641968, 1.2299998998641968, 1.2999999523162842, 1.4499999284744263,
    1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
    3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164,
    9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
    15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
    30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828,
    39.95000457763672, 53.840003967285156, 56.20000457763672, 57.95000457763672,
    59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
    61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
    63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922,
    64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281,
]
PHI3V_SHORT_FACTOR = [
    1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002,
    1.4000000000000004, 1.4500000000000004, 1.5500000000000005, 1.8500000000000008,
    1.9000000000000008, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
    2.1000000000000005, 2.1000000000000005, 2.2, 2.3499999999999996,
    2.3499999999999996, 2.3499999999999996, 2.3499999999999996, 2.3999999999999995,
    2.3999999999999995, 2.6499999999999986, 2.6999999999999984, 2.8999999999999977,
    2.9499999999999975, 3.049999999999997, 3.049999999999997, 3.049999999999997,
]
assert len(PHI35_LONG_FACTOR) == len(PHI35_SHORT_FACTOR) == 48
assert len(PHI3V_LONG_FACTOR) == len(PHI3V_SHORT_FACTOR) == 48


def synthetic_factors(n, first, last):
    """A monotone factor ramp first..last over n frequencies (synthetic LongRoPE data for
    head sizes no published checkpoint uses).  Values are rounded to 1e-3 so the JSON
    numbers are short and exact to read back."""
    return [round(first + (last - first) * i / (n - 1), 3) for i in range(n)]


def llama3_scaling(factor):
    """Meta Llama 3.1 / 3.2 rope_scaling (config.json of Llama-3.1-8B, Llama-3.2-1B)."""
    return {"factor": factor, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192, "rope_type": "llama3"}


# --- presets: (kind, kwargs) -------------------------------------------------------

LLAMA2_7B = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                           max_position_embeddings=4096, rope_theta=10000.0))
TINYLLAMA = ("llama", dict(hidden_size=2048, num_attention_heads=32, head_dim=64,
                           max_position_embeddings=2048, rope_theta=10000.0))
QWEN2_7B = ("llama", dict(hidden_size=3584, num_attention_heads=28, head_dim=128,
                          max_position_embeddings=32768, rope_theta=1000000.0))
GEMMA_7B = ("llama", dict(hidden_size=3072, num_attention_heads=16, head_dim=256,
                          max_position_embeddings=8192, rope_theta=10000.0))
LLAMA31_8B = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                            max_position_embeddings=131072, rope_theta=500000.0,
                            rope_scaling=llama3_scaling(8.0)))
LLAMA32_1B = ("llama", dict(hidden_size=2048, num_attention_heads=32, head_dim=64,
                            max_position_embeddings=131072, rope_theta=500000.0,
                            rope_scaling=llama3_scaling(32.0)))
LLAMA32_3B = ("llama", dict(hidden_size=3072, num_attention_heads=24, head_dim=128,
                            max_position_embeddings=131072, rope_theta=500000.0,
                            rope_scaling=llama3_scaling(32.0)))
# Linear: lmsys/vicuna-7b-v1.5-16k (factor 4); factor 2 is the same model shape, synthetic.
VICUNA_16K = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                            max_position_embeddings=4096, rope_theta=10000.0,
                            rope_scaling={"factor": 4.0, "type": "linear"}))
LLAMA2_LINEAR2 = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                                max_position_embeddings=4096, rope_theta=10000.0,
                                rope_scaling={"factor": 2.0, "rope_type": "linear"}))
# Dynamic NTK on LLaMA-1 (2048 context, factor 2) and Llama-2 (4096, factor 4).
LLAMA1_DYN2 = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                             max_position_embeddings=2048, rope_theta=10000.0,
                             rope_scaling={"factor": 2.0, "rope_type": "dynamic"}))
LLAMA2_DYN4 = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                             max_position_embeddings=4096, rope_theta=10000.0,
                             rope_scaling={"factor": 4.0, "rope_type": "dynamic"}))
# YaRN.
QWEN25_YARN = ("llama", dict(hidden_size=3584, num_attention_heads=28, head_dim=128,
                             max_position_embeddings=32768, rope_theta=1000000.0,
                             rope_scaling={"factor": 4.0, "original_max_position_embeddings": 32768,
                                           "type": "yarn"}))
YARN_LLAMA2_64K = ("llama", dict(hidden_size=4096, num_attention_heads=32, head_dim=128,
                                 max_position_embeddings=65536, rope_theta=10000.0,
                                 rope_scaling={"factor": 16.0,
                                               "original_max_position_embeddings": 4096,
                                               "type": "yarn"}))
DEEPSEEK_V2 = ("deepseek_v2", dict(qk_rope_head_dim=64, max_position_embeddings=163840,
                                   rope_theta=10000,
                                   rope_scaling={"beta_fast": 32, "beta_slow": 1, "factor": 40,
                                                 "mscale": 0.707, "mscale_all_dim": 0.707,
                                                 "original_max_position_embeddings": 4096,
                                                 "type": "yarn"}))
DEEPSEEK_V3 = ("deepseek_v3", dict(qk_rope_head_dim=64, max_position_embeddings=163840,
                                   rope_theta=10000,
                                   rope_scaling={"beta_fast": 32, "beta_slow": 1, "factor": 40,
                                                 "mscale": 1.0, "mscale_all_dim": 1.0,
                                                 "original_max_position_embeddings": 4096,
                                                 "type": "yarn"}))
GPT_OSS_20B = ("llama", dict(hidden_size=2880, num_attention_heads=64, head_dim=64,
                             max_position_embeddings=131072, rope_theta=150000,
                             rope_scaling={"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0,
                                           "original_max_position_embeddings": 4096,
                                           "rope_type": "yarn", "truncate": False}))
# LongRoPE (Phi-3 family reads original_max_position_embeddings at the config top level).
PHI3_MINI_128K = ("phi3", dict(hidden_size=3072, num_attention_heads=32,
                               max_position_embeddings=131072,
                               original_max_position_embeddings=4096, rope_theta=10000.0,
                               rope_scaling={"long_factor": PHI3V_LONG_FACTOR,
                                             "short_factor": PHI3V_SHORT_FACTOR, "type": "su"}))
PHI35_MINI = ("phi3", dict(hidden_size=3072, num_attention_heads=32,
                           max_position_embeddings=131072,
                           original_max_position_embeddings=4096, rope_theta=10000.0,
                           rope_scaling={"long_factor": PHI35_LONG_FACTOR,
                                         "short_factor": PHI35_SHORT_FACTOR,
                                         "type": "longrope"}))
# Phi-4-mini shape (head 128, partial_rotary_factor 0.75 -> 96 rotated, 48 factors);
# the factor lists are Phi-3.5's, not Phi-4-mini's own.
PHI4_MINI_LIKE = ("phi3", dict(hidden_size=3072, num_attention_heads=24,
                               partial_rotary_factor=0.75, max_position_embeddings=131072,
                               original_max_position_embeddings=4096, rope_theta=10000.0,
                               rope_scaling={"long_factor": PHI35_LONG_FACTOR,
                                             "short_factor": PHI35_SHORT_FACTOR,
                                             "type": "longrope"}))
# Partial rotary, GPT-NeoX family: (head_dim, rotary_pct) of GPT-NeoX-20B (96, 0.25),
# Pythia (64, 0.25), Phi-2 (80, 0.4), StableLM-3B-4E1T (80, 0.25).
NEOX_20B = ("neox", dict(hidden_size=6144, num_attention_heads=64, rotary_pct=0.25,
                         rotary_emb_base=10000, max_position_embeddings=2048))
PYTHIA = ("neox", dict(hidden_size=512, num_attention_heads=8, rotary_pct=0.25,
                       rotary_emb_base=10000, max_position_embeddings=2048))
PHI2_LIKE = ("neox", dict(hidden_size=2560, num_attention_heads=32, rotary_pct=0.4,
                          rotary_emb_base=10000, max_position_embeddings=2048))
STABLELM_3B = ("neox", dict(hidden_size=2560, num_attention_heads=32, rotary_pct=0.25,
                            rotary_emb_base=10000, max_position_embeddings=4096))
# GPT-J: (n_embd, n_head, rotary_dim, n_positions); GPT-J-6B is (4096, 16, 64, 2048).
GPTJ_6B = ("gptj", dict(n_embd=4096, n_head=16, rotary_dim=64, n_positions=2048))
GPTJ_SMALL = ("gptj", dict(n_embd=256, n_head=4, rotary_dim=32, n_positions=2048))


def with_changes(preset, **changes):
    """A copy of a preset with some config fields replaced (for synthetic variants)."""
    kind, kwargs = preset
    merged = dict(kwargs)
    merged.update(changes)
    return kind, merged
