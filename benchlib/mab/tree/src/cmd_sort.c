/*
 * cmd_sort.c - "quill sort": sort lines.
 *
 * All input lines are read into memory, sorted as an array of pointers
 * with the algorithm chosen by --algorithm (quick by default), and
 * written out.  --stats reports the number of comparisons and moves the
 * algorithm made, which makes it easy to see the difference between, say,
 * insertion sort and merge sort on nearly sorted input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "sortx.h"
#include "textio.h"

enum {
    OPT_REVERSE = 1, OPT_FOLD, OPT_NUMERIC, OPT_NATURAL, OPT_VERSION, OPT_LENGTH,
    OPT_KEY, OPT_SEP, OPT_BLANKS, OPT_UNIQUE, OPT_ALGO, OPT_STATS, OPT_CHECK,
    OPT_SHUFFLE, OPT_OUTPUT, OPT_HELP
};

static const q_option options[] = {
    { "reverse", 'r', 0, OPT_REVERSE, NULL, "reverse the order" },
    { "ignore-case", 'f', 0, OPT_FOLD, NULL, "fold lower case to upper case" },
    { "numeric", 'n', 0, OPT_NUMERIC, NULL, "compare leading numbers" },
    { "natural", 'N', 0, OPT_NATURAL, NULL, "compare digit runs by value" },
    { "version-sort", 'V', 0, OPT_VERSION, NULL, "compare dotted version numbers" },
    { "length", 0, 0, OPT_LENGTH, NULL, "shorter lines first" },
    { "key", 'k', 1, OPT_KEY, "FIELD", "sort on field number FIELD (from 1)" },
    { "field-separator", 't', 1, OPT_SEP, "CHAR", "fields are separated by CHAR" },
    { "ignore-leading-blanks", 'b', 0, OPT_BLANKS, NULL, "ignore blanks before the key" },
    { "unique", 'u', 0, OPT_UNIQUE, NULL, "output only the first of equal lines" },
    { "algorithm", 'a', 1, OPT_ALGO, "NAME",
      "insertion, merge, heap, quick, shell or radix" },
    { "stats", 's', 0, OPT_STATS, NULL, "report comparisons and moves" },
    { "check", 'c', 0, OPT_CHECK, NULL, "only check whether the input is sorted" },
    { "shuffle", 0, 1, OPT_SHUFFLE, "SEED", "shuffle instead of sorting" },
    { "output", 'o', 1, OPT_OUTPUT, "FILE", "write to FILE" },
    { "help", 'h', 0, OPT_HELP, NULL, "show this help" }
};

static int set_order(q_line_key *key, q_order order, int *order_set)
{
    if (*order_set && key->order != order) {
        q_warn("sort: only one of -f, -n, -N, -V and --length may be given");
        return -1;
    }
    key->order = order;
    *order_set = 1;
    return 0;
}

static int report_disorder(char **lines, size_t n, const q_line_key *key, int unique,
                           const char *name)
{
    size_t i;
    for (i = 1; i < n; i++) {
        int c = q_line_compare(lines[i - 1], lines[i], (void *)key);
        if (c > 0 || (unique && c == 0)) {
            fprintf(stderr, "%s: %s:%lu: disorder: %s\n", q_progname(), name,
                    (unsigned long)(i + 1), lines[i]);
            return 1;
        }
    }
    return 0;
}

int cmd_sort(int argc, char **argv)
{
    q_optparser p;
    q_line_key key;
    q_sort_algo algo = Q_SORT_QUICK;
    q_sort_stats stats;
    q_strvec lines;
    int id, i, order_set = 0, unique = 0, want_stats = 0, check = 0;
    int status = Q_EXIT_OK, shuffle = 0;
    long field, seed = 0;
    const char *output = NULL;
    size_t n, k;
    FILE *out;

    q_line_key_init(&key);
    q_opt_init(&p, argc, argv, options, Q_ARRAY_LEN(options), "sort");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case OPT_REVERSE: key.reverse = 1; break;
        case OPT_BLANKS:  key.skip_blanks = 1; break;
        case OPT_UNIQUE:  unique = 1; break;
        case OPT_STATS:   want_stats = 1; break;
        case OPT_CHECK:   check = 1; break;
        case OPT_OUTPUT:  output = p.arg; break;
        case OPT_FOLD:
            if (set_order(&key, Q_ORDER_FOLD, &order_set) != 0)
                goto usage_error;
            break;
        case OPT_NUMERIC:
            if (set_order(&key, Q_ORDER_NUMERIC, &order_set) != 0)
                goto usage_error;
            break;
        case OPT_NATURAL:
            if (set_order(&key, Q_ORDER_NATURAL, &order_set) != 0)
                goto usage_error;
            break;
        case OPT_VERSION:
            if (set_order(&key, Q_ORDER_VERSION, &order_set) != 0)
                goto usage_error;
            break;
        case OPT_LENGTH:
            if (set_order(&key, Q_ORDER_LENGTH, &order_set) != 0)
                goto usage_error;
            break;
        case OPT_KEY:
            if (q_opt_long(&p, "the key field", 1, 1000, &field) != 0)
                goto usage_error;
            key.field = (int)field;
            break;
        case OPT_SEP:
            if (p.arg[0] == '\0' || p.arg[1] != '\0') {
                if (strcmp(p.arg, "\\t") == 0) {
                    key.sep = '\t';
                    break;
                }
                q_warn("sort: the field separator must be one character");
                goto usage_error;
            }
            key.sep = p.arg[0];
            break;
        case OPT_ALGO:
            if (q_sort_algo_lookup(p.arg, &algo) != 0) {
                q_warn("sort: unknown algorithm '%s'", p.arg);
                goto usage_error;
            }
            break;
        case OPT_SHUFFLE:
            if (q_opt_long(&p, "the seed", 0, 0x7fffffffL, &seed) != 0)
                goto usage_error;
            shuffle = 1;
            break;
        case OPT_HELP:
            q_opt_usage(stdout, "sort [options] [file...]",
                        "Sorts lines of text files (standard input by default).",
                        options, Q_ARRAY_LEN(options));
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }

    q_strvec_init(&lines);
    if (p.noperands == 0) {
        if (q_strvec_read_lines(&lines, "-") != 0) {
            q_warn("sort: error reading standard input");
            status = Q_EXIT_IO;
        }
    }
    for (i = 0; i < p.noperands; i++) {
        if (q_strvec_read_lines(&lines, p.operands[i]) != 0) {
            q_warn("sort: %s: %s", p.operands[i], strerror(errno));
            status = Q_EXIT_IO;
        }
    }
    n = lines.len;

    if (check) {
        int bad = report_disorder(lines.items, n, &key, unique,
                                  p.noperands ? p.operands[0] : "-");
        q_strvec_free(&lines);
        q_opt_free(&p);
        return bad ? Q_EXIT_FAILURE : status;
    }

    memset(&stats, 0, sizeof stats);
    if (shuffle) {
        q_shuffle((void **)lines.items, n, (unsigned long long)seed);
    } else if (algo == Q_SORT_RADIX && key.order == Q_ORDER_LEXICAL
               && key.field == 0 && !key.skip_blanks) {
        q_sort_radix(lines.items, n, want_stats ? &stats : NULL);
        if (key.reverse)
            q_reverse((void **)lines.items, n);
    } else {
        if (algo == Q_SORT_RADIX)
            q_warn("sort: radix sort supports plain byte order only; using merge sort");
        q_sort(algo, (void **)lines.items, n, q_line_compare, &key,
               want_stats ? &stats : NULL);
    }

    out = q_open_output(output);
    if (out == NULL) {
        q_strvec_free(&lines);
        q_opt_free(&p);
        return Q_EXIT_IO;
    }
    for (k = 0; k < n; k++) {
        if (unique && k > 0 && q_line_compare(lines.items[k - 1], lines.items[k], &key) == 0)
            continue;
        fputs(lines.items[k], out);
        fputc('\n', out);
    }
    if (q_close_output(out, output) != 0)
        status = Q_EXIT_IO;

    if (want_stats) {
        fprintf(stderr, "algorithm:   %s%s\n", q_sort_algo_name(algo),
                q_sort_algo_stable(algo) ? " (stable)" : "");
        fprintf(stderr, "lines:       %lu\n", (unsigned long)n);
        fprintf(stderr, "comparisons: %lu\n", stats.compares);
        fprintf(stderr, "moves:       %lu\n", stats.moves);
        fprintf(stderr, "max depth:   %lu\n", stats.max_depth);
    }
    q_strvec_free(&lines);
    q_opt_free(&p);
    return status;

usage_error:
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}
