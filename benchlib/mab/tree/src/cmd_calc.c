/*
 * cmd_calc.c - "quill calc": run qx programs.
 *
 *   quill calc script.q            run a file
 *   quill calc -e 'print 2^10;'    run program text
 *   quill calc --ast script.q      print the syntax tree after folding
 *   echo 'print 1+1;' | quill calc
 *
 * All sources share one interpreter, so functions defined by an earlier
 * -e or file can be used by later ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "lang.h"
#include "strbuf.h"

enum {
    OPT_EXPR = 1, OPT_AST, OPT_STEPS, OPT_DEPTH, OPT_STATS, OPT_KEEP_GOING,
    OPT_BUILTINS, OPT_TOKENS, OPT_HELP
};

static const q_option options[] = {
    { "expr", 'e', 1, OPT_EXPR, "TEXT", "run TEXT (may be repeated)" },
    { "ast", 0, 0, OPT_AST, NULL, "print the syntax tree instead of running" },
    { "tokens", 0, 0, OPT_TOKENS, NULL, "print the tokens instead of running" },
    { "max-steps", 0, 1, OPT_STEPS, "N", "stop after N evaluation steps" },
    { "max-depth", 0, 1, OPT_DEPTH, "N", "limit the call depth to N" },
    { "stats", 's', 0, OPT_STATS, NULL, "print interpreter statistics" },
    { "keep-going", 'k', 0, OPT_KEEP_GOING, NULL, "run later sources after an error" },
    { "builtins", 0, 0, OPT_BUILTINS, NULL, "list the builtin functions" },
    { "help", 'h', 0, OPT_HELP, NULL, "show this help" }
};

struct source {
    const char *name;
    const char *text;       /* NULL: read the file `name` */
};

static void print_tokens(const char *src, size_t n, const char *name)
{
    qx_lexer lx;
    qx_token t;
    qx_lexer_init(&lx, src, n, name);
    do {
        t = qx_lexer_next(&lx);
        printf("%4d:%-3d %-14s", t.line, t.col, qx_tok_name(t.kind));
        if (t.kind == QT_ERROR)
            printf(" %s", lx.message);
        else if (t.kind != QT_EOF)
            printf(" %.*s", (int)t.len, t.start);
        putchar('\n');
    } while (t.kind != QT_EOF && t.kind != QT_ERROR);
}

static void print_builtins(void)
{
    size_t i, n = qx_builtin_count(), col = 0;
    for (i = 0; i < n; i++) {
        const char *name = qx_builtin_name(i);
        size_t len = strlen(name);
        if (col > 0 && col + len + 1 > 72) {
            putchar('\n');
            col = 0;
        }
        printf("%s%s", col ? " " : "", name);
        col += len + (col ? 1 : 0);
    }
    putchar('\n');
}

static void print_stats(const qx_interp *in)
{
    char size[32];
    fprintf(stderr, "steps:    %lu\n", in->steps);
    fprintf(stderr, "calls:    %lu\n", in->calls);
    fprintf(stderr, "objects:  %lu (%s bytes)\n", (unsigned long)in->nobjects,
            q_human_size((double)in->bytes_allocated, size, sizeof size));
    fprintf(stderr, "ast:      %s bytes\n",
            q_human_size((double)q_arena_used(&in->ast), size, sizeof size));
}

int cmd_calc(int argc, char **argv)
{
    q_optparser p;
    qx_interp in;
    struct source *sources;
    size_t nsources = 0, i;
    int id, ast = 0, tokens = 0, stats = 0, keep_going = 0;
    int status = Q_EXIT_OK;
    long steps = 0, depth = 0;

    sources = q_malloc((size_t)(argc + 1) * sizeof *sources);
    q_opt_init(&p, argc, argv, options, Q_ARRAY_LEN(options), "calc");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case OPT_EXPR:
            sources[nsources].name = "<expr>";
            sources[nsources].text = p.arg;
            nsources++;
            break;
        case OPT_AST:        ast = 1; break;
        case OPT_TOKENS:     tokens = 1; break;
        case OPT_STATS:      stats = 1; break;
        case OPT_KEEP_GOING: keep_going = 1; break;
        case OPT_STEPS:
            if (q_opt_long(&p, "--max-steps", 1, 2000000000L, &steps) != 0)
                goto usage_error;
            break;
        case OPT_DEPTH:
            if (q_opt_long(&p, "--max-depth", 1, 100000, &depth) != 0)
                goto usage_error;
            break;
        case OPT_BUILTINS:
            print_builtins();
            free(sources);
            q_opt_free(&p);
            return Q_EXIT_OK;
        case OPT_HELP:
            q_opt_usage(stdout, "calc [options] [file...]",
                        "Runs programs written in the qx language "
                        "(see doc/language.txt).",
                        options, Q_ARRAY_LEN(options));
            free(sources);
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }
    for (i = 0; i < (size_t)p.noperands; i++) {
        sources[nsources].name = p.operands[i];
        sources[nsources].text = NULL;
        nsources++;
    }
    if (nsources == 0) {
        sources[0].name = "-";
        sources[0].text = NULL;
        nsources = 1;
    }

    qx_interp_init(&in, stdout);
    if (steps > 0)
        in.step_limit = (unsigned long)steps;
    if (depth > 0)
        in.max_depth = (int)depth;
    for (i = 0; i < nsources; i++) {
        q_strbuf text;
        const char *src;
        size_t len;
        int rc;

        q_sb_init(&text);
        if (sources[i].text != NULL) {
            src = sources[i].text;
            len = strlen(src);
        } else {
            if (q_sb_read_file(&text, sources[i].name) != 0) {
                q_warn("calc: %s: %s", sources[i].name, strerror(errno));
                q_sb_free(&text);
                status = Q_EXIT_IO;
                if (!keep_going)
                    break;
                continue;
            }
            src = text.data;
            len = text.len;
        }
        if (tokens) {
            print_tokens(src, len, sources[i].name);
            rc = 0;
        } else {
            rc = qx_run_source(&in, src, len, sources[i].name, stderr, ast);
        }
        q_sb_free(&text);
        if (rc != 0) {
            status = Q_EXIT_FAILURE;
            if (!keep_going)
                break;
        }
    }
    fflush(stdout);
    if (stats)
        print_stats(&in);
    qx_interp_free(&in);
    free(sources);
    q_opt_free(&p);
    return status;

usage_error:
    free(sources);
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}
