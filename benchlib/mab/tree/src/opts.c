/*
 * opts.c - command-line option parsing.
 *
 * getopt() is POSIX, not ISO C, so quill carries its own parser.  It
 * accepts the usual forms:
 *
 *   -v  -abc  -w72  -w 72  --width=72  --width 72  --wid=72 (unique prefix)
 *
 * Arguments that are not options are collected as operands wherever they
 * appear, so "quill sort file -r" works; "--" ends option processing and
 * a lone "-" is an operand (standard input).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

void q_opt_init(q_optparser *p, int argc, char **argv, const q_option *opts,
                size_t nopts, const char *cmd)
{
    p->argc = argc;
    p->argv = argv;
    p->index = 1;
    p->cluster = NULL;
    p->opts = opts;
    p->nopts = nopts;
    p->cmd = cmd;
    p->arg = NULL;
    p->operands = q_malloc((size_t)(argc > 0 ? argc : 1) * sizeof *p->operands);
    p->noperands = 0;
    p->only_operands = 0;
}

void q_opt_free(q_optparser *p)
{
    free(p->operands);
    p->operands = NULL;
    p->noperands = 0;
}

static const q_option *find_short(const q_optparser *p, int c)
{
    size_t i;
    for (i = 0; i < p->nopts; i++) {
        if (p->opts[i].short_name == c)
            return &p->opts[i];
    }
    return NULL;
}

/* Finds a long option by exact name or unique prefix.  Sets *ambiguous
 * when a prefix matches several options. */
static const q_option *find_long(const q_optparser *p, const char *name, size_t len,
                                 int *ambiguous)
{
    const q_option *found = NULL;
    size_t i;
    *ambiguous = 0;
    for (i = 0; i < p->nopts; i++) {
        const char *ln = p->opts[i].long_name;
        if (ln == NULL || strncmp(ln, name, len) != 0)
            continue;
        if (strlen(ln) == len)
            return &p->opts[i];         /* exact match wins */
        if (found != NULL && found->id != p->opts[i].id)
            *ambiguous = 1;
        found = &p->opts[i];
    }
    return *ambiguous ? NULL : found;
}

static int take_long(q_optparser *p, const char *text)
{
    const char *eq = strchr(text, '=');
    size_t len = eq ? (size_t)(eq - text) : strlen(text);
    int ambiguous;
    const q_option *o = find_long(p, text, len, &ambiguous);

    if (o == NULL) {
        q_warn("%s: %s option '--%.*s'", p->cmd, ambiguous ? "ambiguous" : "unknown",
               (int)len, text);
        return Q_OPT_ERROR;
    }
    p->arg = NULL;
    if (o->has_arg) {
        if (eq != NULL) {
            p->arg = eq + 1;
        } else if (p->index < p->argc) {
            p->arg = p->argv[p->index++];
        } else {
            q_warn("%s: option '--%s' needs a value", p->cmd, o->long_name);
            return Q_OPT_ERROR;
        }
    } else if (eq != NULL) {
        q_warn("%s: option '--%s' takes no value", p->cmd, o->long_name);
        return Q_OPT_ERROR;
    }
    return o->id;
}

static int take_short(q_optparser *p)
{
    int c = (unsigned char)*p->cluster++;
    const q_option *o = find_short(p, c);

    if (o == NULL) {
        q_warn("%s: unknown option '-%c'", p->cmd, c);
        p->cluster = NULL;
        return Q_OPT_ERROR;
    }
    p->arg = NULL;
    if (o->has_arg) {
        if (*p->cluster != '\0') {
            p->arg = p->cluster;        /* -w72 */
        } else if (p->index < p->argc) {
            p->arg = p->argv[p->index++];
        } else {
            q_warn("%s: option '-%c' needs a value", p->cmd, c);
            p->cluster = NULL;
            return Q_OPT_ERROR;
        }
        p->cluster = NULL;
    } else if (*p->cluster == '\0') {
        p->cluster = NULL;
    }
    return o->id;
}

int q_opt_next(q_optparser *p)
{
    if (p->cluster != NULL)
        return take_short(p);
    while (p->index < p->argc) {
        const char *a = p->argv[p->index++];
        if (p->only_operands || a[0] != '-' || a[1] == '\0') {
            p->operands[p->noperands++] = (char *)a;
            continue;
        }
        if (a[1] == '-') {
            if (a[2] == '\0') {
                p->only_operands = 1;
                continue;
            }
            return take_long(p, a + 2);
        }
        p->cluster = a + 1;
        return take_short(p);
    }
    return Q_OPT_END;
}

int q_opt_long(const q_optparser *p, const char *what, long min, long max, long *out)
{
    long v = 0;
    if (p->arg == NULL || q_parse_long(p->arg, &v) != 0) {
        q_warn("%s: %s must be a whole number, not '%s'", p->cmd, what,
               p->arg ? p->arg : "");
        return -1;
    }
    if (v < min || v > max) {
        q_warn("%s: %s must be between %ld and %ld", p->cmd, what, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int q_opt_size(const q_optparser *p, const char *what, size_t *out)
{
    long v = 0;
    if (q_opt_long(p, what, 0, 1000000000L, &v) != 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

void q_opt_usage(FILE *fp, const char *synopsis, const char *summary,
                 const q_option *opts, size_t nopts)
{
    size_t i;
    fprintf(fp, "usage: %s %s\n", q_progname(), synopsis);
    if (summary != NULL)
        fprintf(fp, "\n%s\n", summary);
    if (nopts > 0)
        fputs("\noptions:\n", fp);
    for (i = 0; i < nopts; i++) {
        const q_option *o = &opts[i];
        char left[64];
        int n = 0;
        if (o->short_name && o->long_name)
            n = snprintf(left, sizeof left, "-%c, --%s", o->short_name, o->long_name);
        else if (o->short_name)
            n = snprintf(left, sizeof left, "-%c", o->short_name);
        else
            n = snprintf(left, sizeof left, "    --%s", o->long_name);
        if (o->has_arg && n > 0 && (size_t)n < sizeof left)
            snprintf(left + n, sizeof left - (size_t)n, "%s%s",
                     o->long_name ? "=" : " ", o->argname ? o->argname : "ARG");
        fprintf(fp, "  %-26s %s\n", left, o->help ? o->help : "");
    }
}

FILE *q_open_output(const char *path)
{
    FILE *fp;
    if (path == NULL || strcmp(path, "-") == 0)
        return stdout;
    fp = fopen(path, "w");
    if (fp == NULL)
        q_warn("cannot write %s: %s", path, strerror(errno));
    return fp;
}

int q_close_output(FILE *fp, const char *path)
{
    int bad;
    if (fp == stdout) {
        bad = fflush(fp) != 0 || ferror(fp);
    } else {
        bad = ferror(fp);
        if (fclose(fp) != 0)
            bad = 1;
    }
    if (bad) {
        q_warn("error writing %s", path ? path : "standard output");
        return -1;
    }
    return 0;
}
