/*
 * dump_model.h - the checkpoint a dump is read against: a RoPE model from
 * a config.json or a bundled profile (mapped as certify maps it), at one
 * of its layer types. `pecert diagnose` and `pecert dump` share it.
 */
#ifndef PECERT_CONFORMANCE_DUMP_MODEL_H
#define PECERT_CONFORMANCE_DUMP_MODEL_H

#include <stddef.h>

#include "certify_config.h"

/* pecert_dump_model_load: a RoPE checkpoint from config (a config.json) or
 * profile (NAME in profiles), its rope set to layer type `layer` when
 * given (NULL: the first rotary type, said on stderr when layers differ).
 * 0, or -1 with the reason in err: a model of another encoding, or no
 * such layer type (the model's are listed). */
int pecert_dump_model_load(pecert_certify_model *m, const char *config, const char *profile, const char *profiles,
                           const char *layer, char *err, size_t len);

#endif /* PECERT_CONFORMANCE_DUMP_MODEL_H */
