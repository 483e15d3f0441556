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
#include "did_you_mean.h"
#include "pecert/plugin.h"
#include "runner.h"

/* The commands, in the order `pecert help` lists them: a new command is
 * its file (commands.h) and a row here. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary; /* one line of at most 66 columns */
    const char *usage;   /* its --help, also `pecert help NAME` */
} command;

#define COMMAND(name, summary) {#name, pecert_cmd_##name, summary, pecert_usage_##name}
static const command commands[] = {
    COMMAND(list, "checks, vector files and built-in plugins"),
    COMMAND(run, "run the conformance checks on a plugin"),
    COMMAND(certify, "certify a plugin for one checkpoint (config.json or profile)"),
    COMMAND(report, "render or merge saved results: HTML, JUnit XML, JSON"),
    COMMAND(diagnose, "read a q/k dump before and after an engine's RoPE (no plugin)"),
    COMMAND(dump, "write a plugin's q before and after RoPE as .npy (for diagnose)"),
    COMMAND(mutation, "prove the checks catch every mutant (real-bug plugin)"),
    COMMAND(bench, "time a plugin against the machine's bandwidth and ref"),
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *out)
{
    fputs("usage: pecert <command> [options]\n"
          "       pecert --version\n"
          "\n"
          "Certify implementations of Transformer positional encodings against golden\n"
          "vectors from the official reference code.\n"
          "\n"
          "commands:\n",
          out);
    for (size_t i = 0; i < N_COMMANDS; i++) {
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    }
    fputs("  help       this text; pecert help <command> (or pecert <command>\n"
          "             --help): its options and exit statuses\n"
          "\n"
          "options:\n"
          "  --version  pecert's version and the plugin ABI it speaks\n"
          "\n"
          "exit status: 0 all passed, 1 a check failed, 2 bad usage or input,\n"
          "             3 plugin failed to load\n",
          out);
}

/* The command named name, or NULL after saying which one was meant. */
static const command *find_command(const char *name)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(name, commands[i].name) == 0) {
            return &commands[i];
        }
        names[i] = commands[i].name;
    }
    char hint[128];
    pecert_did_you_mean(hint, sizeof(hint), name, names, N_COMMANDS);
    fprintf(stderr, "pecert: unknown command '%s'%s (pecert help lists the commands)\n", name, hint);
    return NULL;
}

/* pecert help NAME: the command's own --help. */
static int help_command(const char *name)
{
    const command *c = find_command(name);
    if (c == NULL) {
        return PECERT_EXIT_USAGE;
    }
    fputs(c->usage, stdout);
    return PECERT_EXIT_PASS;
}

int main(int argc, char **argv)
{
    /* A reader that goes away (`pecert run ... | head -1`) must not kill
     * pecert before it writes its --json/--html/--junit files. */
    signal(SIGPIPE, SIG_IGN);
    pecert_term_filter_install();
    if (argc < 2) {
        print_usage(stderr);
        return PECERT_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 && argc > 2) {
        return help_command(argv[2]);
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        print_usage(stdout);
        return PECERT_EXIT_PASS;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("pecert %s (plugin ABI %d.%d)\n", PECERT_VERSION, PECERT_ABI_MAJOR, PECERT_ABI_MINOR);
        return PECERT_EXIT_PASS;
    }
    const command *c = find_command(cmd);
    if (c == NULL) {
        return PECERT_EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}
