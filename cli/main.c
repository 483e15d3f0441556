/*
 * main.c - the pecert command line: picks the command; each lives in its
 * own file (commands.h).
 * Exit status: 0 all passed, 1 a check failed, 2 bad usage or input,
 * 3 plugin failed to load.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "pecert/plugin.h"
#include "runner.h"

static const char usage_main[] =
    "usage: pecert <command> [options]\n"
    "\n"
    "Certify implementations of Transformer positional encodings against golden\n"
    "vectors from the official reference code.\n"
    "\n"
    "commands:\n"
    "  list    checks, vector files and built-in plugins\n"
    "  run     run the conformance checks on a plugin\n"
    "  bench   time a plugin against the machine's bandwidth and ref\n"
    "  mutation  prove the checks catch every mutant (real-bug plugin)\n"
    "  report  render or merge saved results: HTML, JUnit XML, JSON\n"
    "  certify certify a plugin for one checkpoint (config.json or profile)\n"
    "  diagnose  read a q/k dump before and after an engine's RoPE: positions,\n"
    "          pairing, channels and frequencies it used (no plugin needed)\n"
    "  dump    write a plugin's q before and after RoPE as .npy (for diagnose)\n"
    "  help    this text (also: pecert <command> --help)\n"
    "\n"
    "exit status: 0 all passed, 1 a check failed, 2 bad usage or input,\n"
    "             3 plugin failed to load\n";


int main(int argc, char **argv)
{
    /* A reader that goes away (`pecert run ... | head -1`) must not kill
     * pecert before it writes its --json/--html/--junit files. */
    signal(SIGPIPE, SIG_IGN);
    pecert_term_filter_install();
    if (argc < 2) {
        fputs(usage_main, stderr);
        return PECERT_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_main, stdout);
        return PECERT_EXIT_PASS;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pecert %s (plugin ABI %d.%d)\n", PECERT_VERSION, PECERT_ABI_MAJOR, PECERT_ABI_MINOR);
        return PECERT_EXIT_PASS;
    }
    if (strcmp(cmd, "run") == 0) {
        return pecert_cmd_run(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "mutation") == 0) {
        return pecert_cmd_mutation(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "list") == 0) {
        return pecert_cmd_list(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "bench") == 0) {
        return pecert_cmd_bench(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "report") == 0) {
        return pecert_cmd_report(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "certify") == 0) {
        return pecert_cmd_certify(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "diagnose") == 0) {
        return pecert_cmd_diagnose(argc - 1, argv + 1);
    }
    if (strcmp(cmd, "dump") == 0) {
        return pecert_cmd_dump(argc - 1, argv + 1);
    }
    fprintf(stderr, "pecert: unknown command '%s' (pecert help lists the commands)\n", cmd);
    return PECERT_EXIT_USAGE;
}
