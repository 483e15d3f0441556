"""python_null: what `pecert bench` calls through the Python engine host
to measure the host's own cost per call (bench/engine_cost.c): a
rope_freqs of 64 frequencies in numpy, a few microseconds of work, so that
what is timed is the protocol, the frame's decoding and Python's call."""
import numpy as np

name = "python-null"


def rope_freqs(out_inv_freq, out_attention_scaling, config, seq_len):
    out_inv_freq[:] = config.rope_theta ** (-np.arange(len(out_inv_freq)) * 2.0 / config.rotary_dim)
    out_attention_scaling[0] = 1.0
