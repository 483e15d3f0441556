/*
 * bad_text.c - `ref` with a plugin's worst text: a name that is not UTF-8,
 * a describe() that retitles the terminal window, and a rope_freqs that
 * refuses every config with a last_error made to overwrite its own FAIL
 * line ("\r  PASS"), switch colours (ESC [ and the 8-bit CSI U+009B) and
 * ring the bell; and it prints 2000 lines to stdout while it is at it. The terminal must show all of it as visible escapes, and
 * --json/--html/--junit must stay valid UTF-8 (tests/check_cli.c).
 */
#define _GNU_SOURCE /* dladdr, in ref_beside.h */
#include <stdio.h>

#include "pecert/plugin.h"
#include "ref_beside.h"

static pecert_plugin desc;
static const pecert_plugin *ref;

static const char *hostile_describe(void *instance)
{
    (void)instance;
    return "\033]0;pwned\a isa=\xff";
}

static const char *hostile_last_error(void *instance)
{
    (void)instance;
    return "\r  PASS    rope.freq.golden forged \033[32m\xc2\x9b" "31m\a \xe2\x82";
}

static pecert_status refusing_freqs(void *instance, double *out_inv_freq, double *out_scaling,
                                    const pecert_rope_config *config, int64_t seq_len)
{
    static int printed;
    if (!printed) { /* a chatty engine: 2000 lines to stdout, one to stderr */
        printed = 1;
        for (int i = 0; i < 2000; i++) {
            printf("chatty engine line %d \033[31mred\033[0m\n", i);
        }
        fprintf(stderr, "chatty engine warning\r\n");
    }
    (void)instance;
    (void)out_inv_freq;
    (void)out_scaling;
    (void)config;
    (void)seq_len;
    return PECERT_E_INVAL;
}

const pecert_plugin *pecert_plugin_entry(uint32_t host_abi_version)
{
    (void)host_abi_version;
    ref = testing_ref_copy(&desc, "bad\xff\xfe" "name");
    if (ref == NULL) {
        return NULL;
    }
    desc.describe = hostile_describe;
    desc.last_error = hostile_last_error;
    desc.rope_freqs = refusing_freqs;
    return &desc;
}
