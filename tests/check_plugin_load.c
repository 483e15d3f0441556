/* check_plugin_load.c - ABI load errors: version, entry symbol, struct size. */
#include <stdio.h>
#include <string.h>

#include "plugin_load.h"
#include "suites.h"

static int open_test_plugin(pecert_loaded_plugin *p, const char *rel, char *err, size_t len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/impls/%s", test_build_dir(), rel);
    return pecert_plugin_open(p, path, err, len);
}

static void assert_refused(const char *rel, const char *reason)
{
    pecert_loaded_plugin p;
    char err[1024] = "";
    ck_assert_int_eq(open_test_plugin(&p, rel, err, sizeof(err)), -1);
    ck_assert_msg(strstr(err, reason) != NULL, "error '%s' lacks '%s'", err, reason);
    ck_assert_msg(strstr(err, rel) != NULL, "error '%s' does not name the file", err);
    ck_assert_ptr_null(p.desc);
}

START_TEST(ref_loads_and_is_described)
{
    pecert_loaded_plugin p;
    char err[1024] = "";
    ck_assert_msg(open_test_plugin(&p, "ref.so", err, sizeof(err)) == 0, "%s", err);
    ck_assert_str_eq(p.desc->id, "org.pecert.ref");
    ck_assert(pecert_plugin_has_capability(p.desc, "pecert.rope/1"));
    ck_assert(pecert_plugin_has_capability(p.desc, "pecert.alibi/1"));
    ck_assert(!pecert_plugin_has_capability(p.desc, "pecert.alibi/2"));
    pecert_plugin_close(&p);
    pecert_plugin_close(&p); /* closing twice is harmless */
}
END_TEST

START_TEST(wrong_major_version_is_refused)
{
    assert_refused("testing/abi_v2.so", "plugin ABI 2.0");
}
END_TEST

START_TEST(missing_entry_symbol_is_refused)
{
    assert_refused("testing/no_entry.so", "no symbol pecert_plugin_entry");
}
END_TEST

START_TEST(too_small_descriptor_is_refused)
{
    assert_refused("testing/small_struct.so", "struct_size");
}
END_TEST

START_TEST(entry_returning_null_is_refused)
{
    assert_refused("testing/refuses.so", "refused host ABI");
}
END_TEST

START_TEST(missing_file_is_refused)
{
    assert_refused("does-not-exist.so", "cannot load");
}
END_TEST

START_TEST(names_resolve_to_the_impl_dir)
{
    char out[256];
    ck_assert_int_eq(pecert_plugin_resolve(out, sizeof(out), "ref", "/x/impls"), 0);
    ck_assert_str_eq(out, "/x/impls/ref.so");
    ck_assert_int_eq(pecert_plugin_resolve(out, sizeof(out), "./my.so", "/x/impls"), 0);
    ck_assert_str_eq(out, "./my.so");
    /* a bare file name is in the working directory, not on the library path */
    ck_assert_int_eq(pecert_plugin_resolve(out, sizeof(out), "lib.so", "/x/impls"), 0);
    ck_assert_str_eq(out, "./lib.so");
    ck_assert_int_eq(pecert_plugin_resolve(out, 8, "averylongname", "/x/impls"), -1);
}
END_TEST

START_TEST(status_names_are_distinct)
{
    ck_assert_str_eq(pecert_status_name(PECERT_OK), "ok");
    ck_assert_str_eq(pecert_status_name(PECERT_E_INVAL), "invalid argument");
    ck_assert_str_eq(pecert_status_name(-99), "unknown status");
}
END_TEST

Suite *make_plugin_load_suite(void)
{
    return test_suite_of("plugin_load",
                         TEST_TCASE("core", 0,
                                    ref_loads_and_is_described,
                                    names_resolve_to_the_impl_dir,
                                    status_names_are_distinct),
                         TEST_TCASE("errors", 0,
                                    wrong_major_version_is_refused,
                                    missing_entry_symbol_is_refused,
                                    too_small_descriptor_is_refused,
                                    entry_returning_null_is_refused,
                                    missing_file_is_refused),
                         NULL);
}
