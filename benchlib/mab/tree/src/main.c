/*
 * main.c - the quill command: dispatches to a subcommand.
 *
 *   quill count  [options] [file...]    lines, words, bytes; word frequencies
 *   quill sort   [options] [file...]    sort lines, with a choice of algorithms
 *   quill sum    [options] [file...]    checksums and digests
 *   quill calc   [options] [file...]    run qx programs
 *   quill match  [options] pattern [file...]   print lines matching a glob
 *   quill wrap   [options] [file...]    fill paragraphs
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "quill.h"

struct command {
    const char *name;
    q_command_fn run;
    const char *summary;
};

static const struct command commands[] = {
    { "count", cmd_count, "count lines, words and bytes; list frequent words" },
    { "sort",  cmd_sort,  "sort lines (several algorithms and orderings)" },
    { "sum",   cmd_sum,   "compute checksums: crc32, adler32, fnv, sum(1), sha1" },
    { "calc",  cmd_calc,  "run programs in the qx expression language" },
    { "match", cmd_match, "print lines that match a wildcard pattern" },
    { "wrap",  cmd_wrap,  "fill and justify paragraphs" }
};

static void usage(FILE *fp)
{
    size_t i;
    fprintf(fp, "usage: %s COMMAND [options] [file...]\n\ncommands:\n", q_progname());
    for (i = 0; i < Q_ARRAY_LEN(commands); i++)
        fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(fp, "\n'%s COMMAND --help' describes the options of a command.\n",
            q_progname());
}

static const struct command *lookup(const char *name)
{
    size_t i, len = strlen(name);
    const struct command *found = NULL;
    for (i = 0; i < Q_ARRAY_LEN(commands); i++) {
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
        if (len >= 2 && strncmp(commands[i].name, name, len) == 0) {
            if (found != NULL)
                return NULL;            /* ambiguous abbreviation */
            found = &commands[i];
        }
    }
    return found;
}

int main(int argc, char **argv)
{
    const struct command *cmd;
    int rc;

    q_set_progname(argc > 0 ? argv[0] : QUILL_NAME);
    if (argc < 2) {
        usage(stderr);
        return Q_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0
        || strcmp(argv[1], "help") == 0) {
        if (argc > 2 && (cmd = lookup(argv[2])) != NULL) {
            char *sub[3];
            sub[0] = (char *)cmd->name;
            sub[1] = "--help";
            sub[2] = NULL;
            return cmd->run(2, sub);
        }
        usage(stdout);
        return Q_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("%s %s\n", QUILL_NAME, QUILL_VERSION);
        return Q_EXIT_OK;
    }
    cmd = lookup(argv[1]);
    if (cmd == NULL) {
        q_warn("unknown command '%s'", argv[1]);
        usage(stderr);
        return Q_EXIT_USAGE;
    }
    rc = cmd->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 && rc == Q_EXIT_OK) {
        q_warn("error writing standard output");
        rc = Q_EXIT_IO;
    }
    return rc;
}
