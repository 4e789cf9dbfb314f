/*
 * cmds.h - the subcommands of the quill program and their shared option
 * parser.
 */
#ifndef QUILL_CMDS_H
#define QUILL_CMDS_H

#include <stdio.h>

#include "quill.h"

/* ---- opts.c ------------------------------------------------------------ */

enum {
    Q_OPT_END = -1,     /* no more options */
    Q_OPT_ERROR = -2    /* a message has been printed */
};

typedef struct q_option {
    const char *long_name;  /* without the dashes; NULL if none */
    int short_name;         /* 0 if none */
    int has_arg;            /* 0: flag, 1: takes a value */
    int id;                 /* returned by q_opt_next */
    const char *argname;    /* for the help text, e.g. "N" */
    const char *help;
} q_option;

typedef struct q_optparser {
    int argc;
    char **argv;
    int index;              /* next argv element to look at */
    const char *cluster;    /* rest of a "-abc" group */
    const q_option *opts;
    size_t nopts;
    const char *cmd;
    const char *arg;        /* value of the option just returned */
    char **operands;        /* non-option arguments, in order */
    int noperands;
    int only_operands;      /* "--" was seen */
} q_optparser;

void q_opt_init(q_optparser *p, int argc, char **argv, const q_option *opts,
                size_t nopts, const char *cmd);
int q_opt_next(q_optparser *p);
void q_opt_free(q_optparser *p);

/* Value conversions that print a message naming the option on failure. */
int q_opt_long(const q_optparser *p, const char *what, long min, long max, long *out);
int q_opt_size(const q_optparser *p, const char *what, size_t *out);

void q_opt_usage(FILE *fp, const char *synopsis, const char *summary,
                 const q_option *opts, size_t nopts);

/* Opens an output file, or returns stdout for NULL or "-". */
FILE *q_open_output(const char *path);
int q_close_output(FILE *fp, const char *path);

/* ---- the commands ------------------------------------------------------ */

typedef int (*q_command_fn)(int argc, char **argv);

int cmd_count(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_sum(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_wrap(int argc, char **argv);

#endif /* QUILL_CMDS_H */
