/*
 * cmd_text.c - "quill match" (grep with shell wildcards) and "quill wrap"
 * (fmt-style paragraph filling).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "strbuf.h"
#include "textio.h"

/* ======================================================================
 * match
 * ====================================================================== */

enum {
    M_IGNORE = 1, M_INVERT, M_COUNT, M_NUMBER, M_ONLY, M_WHOLE, M_PATHNAME,
    M_NAMES, M_NONAMES, M_QUIET, M_MAX, M_HELP
};

static const q_option match_options[] = {
    { "ignore-case", 'i', 0, M_IGNORE, NULL, "ignore case (ASCII letters)" },
    { "invert-match", 'v', 0, M_INVERT, NULL, "print lines that do not match" },
    { "count", 'c', 0, M_COUNT, NULL, "print only a count of matching lines" },
    { "line-number", 'n', 0, M_NUMBER, NULL, "prefix lines with their number" },
    { "only-matching", 'o', 0, M_ONLY, NULL, "print only the matched part" },
    { "line-regexp", 'x', 0, M_WHOLE, NULL, "the pattern must match the whole line" },
    { "pathname", 'p', 0, M_PATHNAME, NULL, "wildcards do not match '/'" },
    { "with-filename", 'H', 0, M_NAMES, NULL, "prefix lines with the file name" },
    { "no-filename", 0, 0, M_NONAMES, NULL, "never print file names" },
    { "quiet", 'q', 0, M_QUIET, NULL, "print nothing; exit status only" },
    { "max-count", 'm', 1, M_MAX, "N", "stop after N matching lines per file" },
    { "help", 'h', 0, M_HELP, NULL, "show this help" }
};

struct match_opts {
    const char *pattern;
    int flags;
    int invert, count, number, only, whole, quiet;
    int names;          /* -1 default, 0 never, 1 always */
    long max;
};

/* Returns 1 for a match, 0 for none, -1 for a malformed pattern. */
static int line_matches(const struct match_opts *o, const char *line, long *off,
                        size_t *len)
{
    if (o->whole) {
        *off = 0;
        *len = strlen(line);
        return q_glob_match(o->pattern, line, o->flags);
    }
    *off = q_glob_search(o->pattern, line, o->flags, len);
    if (*off < 0) {
        /* -1 is both "no match" and "bad pattern": tell them apart */
        if (q_glob_match(o->pattern, "", o->flags) < 0)
            return -1;
        return 0;
    }
    return 1;
}

static int match_file(const char *path, const struct match_opts *o, int show_name,
                      long *total)
{
    q_reader r;
    long matches = 0;
    int rc;

    if (q_reader_open(&r, path) != 0) {
        q_warn("match: %s: %s", path, strerror(errno));
        return -1;
    }
    while ((rc = q_reader_next(&r)) > 0) {
        long off = 0;
        size_t len = 0;
        int m = line_matches(o, r.line.data, &off, &len);
        if (m < 0) {
            q_warn("match: malformed pattern '%s'", o->pattern);
            q_reader_close(&r);
            return -2;
        }
        if (m == o->invert)
            continue;
        matches++;
        if (!o->quiet && !o->count) {
            if (show_name)
                printf("%s:", r.name);
            if (o->number)
                printf("%lu:", r.lineno);
            if (o->only && !o->invert)
                printf("%.*s\n", (int)len, r.line.data + off);
            else
                printf("%s\n", r.line.data);
        }
        if (o->max > 0 && matches >= o->max)
            break;
    }
    if (rc < 0)
        q_warn("match: %s: read error", r.name);
    if (o->count && !o->quiet) {
        if (show_name)
            printf("%s:", r.name);
        printf("%ld\n", matches);
    }
    q_reader_close(&r);
    *total += matches;
    return rc < 0 ? -1 : 0;
}

int cmd_match(int argc, char **argv)
{
    q_optparser p;
    struct match_opts o;
    int id, i, first, show_name, status = Q_EXIT_OK;
    long total = 0;

    memset(&o, 0, sizeof o);
    o.names = -1;
    q_opt_init(&p, argc, argv, match_options, Q_ARRAY_LEN(match_options), "match");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case M_IGNORE:   o.flags |= Q_GLOB_FOLD; break;
        case M_PATHNAME: o.flags |= Q_GLOB_PATHNAME; break;
        case M_INVERT:   o.invert = 1; break;
        case M_COUNT:    o.count = 1; break;
        case M_NUMBER:   o.number = 1; break;
        case M_ONLY:     o.only = 1; break;
        case M_WHOLE:    o.whole = 1; break;
        case M_QUIET:    o.quiet = 1; break;
        case M_NAMES:    o.names = 1; break;
        case M_NONAMES:  o.names = 0; break;
        case M_MAX:
            if (q_opt_long(&p, "--max-count", 0, 2000000000L, &o.max) != 0)
                goto usage_error;
            break;
        case M_HELP:
            q_opt_usage(stdout, "match [options] PATTERN [file...]",
                        "Prints lines containing text that matches the shell\n"
                        "wildcard PATTERN (* ? [...]).",
                        match_options, Q_ARRAY_LEN(match_options));
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }
    if (p.noperands < 1) {
        q_warn("match: no pattern given");
        goto usage_error;
    }
    o.pattern = p.operands[0];
    first = 1;
    show_name = o.names >= 0 ? o.names : (p.noperands > 2);
    if (p.noperands == 1) {
        int rc = match_file("-", &o, show_name, &total);
        if (rc == -2)
            status = Q_EXIT_USAGE;
        else if (rc < 0)
            status = Q_EXIT_IO;
    }
    for (i = first; i < p.noperands; i++) {
        int rc = match_file(p.operands[i], &o, show_name, &total);
        if (rc == -2) {
            status = Q_EXIT_USAGE;
            break;
        }
        if (rc < 0)
            status = Q_EXIT_IO;
    }
    q_opt_free(&p);
    if (status != Q_EXIT_OK)
        return status;
    return total > 0 ? Q_EXIT_OK : Q_EXIT_FAILURE;

usage_error:
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}

/* ======================================================================
 * wrap
 * ====================================================================== */

enum {
    W_WIDTH = 1, W_INDENT, W_JUSTIFY, W_TWO, W_HELP
};

static const q_option wrap_options[] = {
    { "width", 'w', 1, W_WIDTH, "N", "fill lines to N columns (default 72)" },
    { "indent", 'i', 1, W_INDENT, "N", "indent every line by N spaces" },
    { "justify", 'j', 0, W_JUSTIFY, NULL, "pad lines to the full width" },
    { "sentence-spaces", '2', 0, W_TWO, NULL, "two spaces after sentences" },
    { "help", 'h', 0, W_HELP, NULL, "show this help" }
};

/* Paragraphs are separated by blank lines, which are preserved.  Lines
 * that start with a blank after a blank line are kept as they are
 * (indented code or verse), so the command is safe on mixed text. */
static int wrap_file(const char *path, const q_fill_opts *fo, q_strbuf *out)
{
    q_reader r;
    q_strbuf para;
    int rc, verbatim = 0;

    if (q_reader_open(&r, path) != 0) {
        q_warn("wrap: %s: %s", path, strerror(errno));
        return -1;
    }
    q_sb_init(&para);
    while ((rc = q_reader_next(&r)) > 0) {
        const char *s = r.line.data;
        size_t k = 0;
        while (k < r.line.len && (s[k] == ' ' || s[k] == '\t'))
            k++;
        if (k == r.line.len) {
            /* blank line: end of paragraph */
            if (para.len > 0)
                q_fill_paragraph(out, para.data, para.len, fo);
            q_sb_clear(&para);
            q_sb_putc(out, '\n');
            verbatim = 0;
            continue;
        }
        if (para.len == 0 && k > 0)
            verbatim = 1;
        if (verbatim) {
            q_sb_appendn(out, s, r.line.len);
            q_sb_putc(out, '\n');
            continue;
        }
        if (para.len > 0)
            q_sb_putc(&para, ' ');
        q_sb_appendn(&para, s, r.line.len);
    }
    if (para.len > 0)
        q_fill_paragraph(out, para.data, para.len, fo);
    q_sb_free(&para);
    q_reader_close(&r);
    return rc < 0 ? -1 : 0;
}

int cmd_wrap(int argc, char **argv)
{
    q_optparser p;
    q_fill_opts fo;
    q_strbuf out;
    int id, i, status = Q_EXIT_OK;

    q_fill_opts_init(&fo);
    q_opt_init(&p, argc, argv, wrap_options, Q_ARRAY_LEN(wrap_options), "wrap");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case W_WIDTH:
            if (q_opt_size(&p, "--width", &fo.width) != 0 || fo.width < 8) {
                q_warn("wrap: the width must be at least 8");
                goto usage_error;
            }
            break;
        case W_INDENT:
            if (q_opt_size(&p, "--indent", &fo.indent) != 0)
                goto usage_error;
            break;
        case W_JUSTIFY: fo.justify = 1; break;
        case W_TWO:     fo.two_spaces = 1; break;
        case W_HELP:
            q_opt_usage(stdout, "wrap [options] [file...]",
                        "Fills paragraphs (separated by blank lines) to a width.",
                        wrap_options, Q_ARRAY_LEN(wrap_options));
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }
    if (fo.indent + 8 > fo.width) {
        q_warn("wrap: the indent leaves less than 8 columns");
        goto usage_error;
    }
    q_sb_init(&out);
    if (p.noperands == 0 && wrap_file("-", &fo, &out) != 0)
        status = Q_EXIT_IO;
    for (i = 0; i < p.noperands; i++) {
        if (wrap_file(p.operands[i], &fo, &out) != 0)
            status = Q_EXIT_IO;
        /* flush per file so large inputs do not pile up in memory */
        if (q_sb_write_stream(&out, stdout) != 0)
            status = Q_EXIT_IO;
        q_sb_clear(&out);
    }
    if (q_sb_write_stream(&out, stdout) != 0)
        status = Q_EXIT_IO;
    q_sb_free(&out);
    q_opt_free(&p);
    return status;

usage_error:
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}
