/*
 * entry_is_data.c - a "plugin" whose pecert_plugin_entry is an array, not a
 * function: dlsym finds it, and calling it executes data (SIGSEGV on a
 * non-executable page). Loaded in pecert's own process this killed pecert
 * (139); loaded first in a child it is "cannot load", exit 3
 * (tests/check_cli.c).
 */
const unsigned char pecert_plugin_entry[64] = {0};
