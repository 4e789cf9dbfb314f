/*
 * cmd_sum.c - "quill sum": checksums and digests of files.
 *
 * The output format follows the sha1sum / cksum family:
 *
 *   crc32, adler32, fnv32, fnv64, sha1:   DIGEST  FILE
 *   bsd (sum -r), sysv (sum -s):          CHECKSUM BLOCKS FILE
 *
 * --check FILE reads such lines back and verifies every file named in
 * them.  --selftest runs the built-in test vectors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "cmds.h"
#include "strbuf.h"
#include "textio.h"

#define BLOCK 65536

enum {
    OPT_ALGO = 1, OPT_ALL, OPT_CHECK, OPT_STRING, OPT_SELFTEST, OPT_QUIET,
    OPT_LIST, OPT_HELP
};

static const q_option options[] = {
    { "algorithm", 'a', 1, OPT_ALGO, "NAME", "crc32 (default), crc16, adler32, fnv32, "
      "fnv64, bsd, sysv, sha1" },
    { "all", 0, 0, OPT_ALL, NULL, "print every algorithm's result" },
    { "check", 'c', 1, OPT_CHECK, "FILE", "verify the sums listed in FILE" },
    { "string", 's', 1, OPT_STRING, "TEXT", "sum TEXT instead of files" },
    { "selftest", 0, 0, OPT_SELFTEST, NULL, "run the built-in test vectors" },
    { "quiet", 'q', 0, OPT_QUIET, NULL, "with --check, print only failures" },
    { "list", 'l', 0, OPT_LIST, NULL, "list the algorithms" },
    { "help", 'h', 0, OPT_HELP, NULL, "show this help" }
};

/* Sums one stream with every algorithm in `kinds` at once. */
static int sum_stream(FILE *fp, q_cksum *cks, size_t n)
{
    unsigned char *buf = q_malloc(BLOCK);
    size_t got, i;
    while ((got = fread(buf, 1, BLOCK, fp)) > 0) {
        for (i = 0; i < n; i++)
            q_cksum_update(&cks[i], buf, got);
    }
    free(buf);
    return ferror(fp) ? -1 : 0;
}

static int sum_path(const char *path, q_cksum *cks, size_t n)
{
    FILE *fp;
    int rc;
    if (strcmp(path, "-") == 0)
        return sum_stream(stdin, cks, n);
    fp = fopen(path, "rb");
    if (fp == NULL)
        return -1;
    rc = sum_stream(fp, cks, n);
    fclose(fp);
    return rc;
}

static void print_result(const q_cksum *ck, const char *name, int label)
{
    char text[64];
    q_cksum_format(ck, text, sizeof text);
    if (label)
        printf("%-8s ", q_cksum_name(ck->kind));
    if (ck->kind == Q_CK_BSD || ck->kind == Q_CK_SYSV)
        printf("%s %s\n", text, name);
    else
        printf("%s  %s\n", text, name);
}

/* Parses "DIGEST  NAME" or "SUM BLOCKS NAME".  Returns 0 on success. */
static int parse_check_line(char *line, q_cksum_kind kind, char **digest, char **name)
{
    char *p = line, *q;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '#')
        return -1;
    q = p;
    while (*q != '\0' && *q != ' ' && *q != '\t')
        q++;
    if (kind == Q_CK_BSD || kind == Q_CK_SYSV) {
        /* the digest is "sum blocks": keep both fields */
        while (*q == ' ' || *q == '\t')
            q++;
        while (*q != '\0' && *q != ' ' && *q != '\t')
            q++;
    }
    if (*q == '\0')
        return -1;
    *q++ = '\0';
    while (*q == ' ' || *q == '\t' || *q == '*')
        q++;
    if (*q == '\0')
        return -1;
    *digest = p;
    *name = q;
    return 0;
}

static int normalise_digest(const char *text, char *out, size_t size)
{
    /* compare bsd/sysv results field by field, ignoring padding */
    unsigned long a, b;
    if (sscanf(text, "%lu %lu", &a, &b) == 2) {
        snprintf(out, size, "%lu %lu", a, b);
        return 1;
    }
    snprintf(out, size, "%s", text);
    return 0;
}

static int run_check(const char *list, q_cksum_kind kind, int quiet)
{
    q_reader r;
    int rc, failed = 0, missing = 0, ok = 0, malformed = 0;

    if (q_reader_open(&r, list) != 0) {
        q_warn("sum: %s: %s", list, strerror(errno));
        return Q_EXIT_IO;
    }
    while ((rc = q_reader_next(&r)) > 0) {
        char *digest = NULL, *name = NULL;
        char got[64], want[64], have[64];
        q_cksum ck;

        if (parse_check_line(r.line.data, kind, &digest, &name) != 0) {
            if (r.line.len > 0 && r.line.data[0] != '#')
                malformed++;
            continue;
        }
        q_cksum_init(&ck, kind);
        if (sum_path(name, &ck, 1) != 0) {
            printf("%s: MISSING\n", name);
            missing++;
            continue;
        }
        q_cksum_format(&ck, got, sizeof got);
        normalise_digest(got, have, sizeof have);
        normalise_digest(digest, want, sizeof want);
        if (q_strcasecmp(have, want) == 0) {
            ok++;
            if (!quiet)
                printf("%s: OK\n", name);
        } else {
            failed++;
            printf("%s: FAILED\n", name);
        }
    }
    q_reader_close(&r);
    if (malformed)
        q_warn("sum: %d line%s in %s could not be read", malformed,
               malformed == 1 ? "" : "s", list);
    if (failed || missing)
        q_warn("sum: %d of %d checks failed, %d file%s missing", failed,
               ok + failed + missing, missing, missing == 1 ? "" : "s");
    return (failed || missing || rc < 0) ? Q_EXIT_FAILURE : Q_EXIT_OK;
}

int cmd_sum(int argc, char **argv)
{
    q_optparser p;
    q_cksum_kind kind = Q_CK_CRC32;
    q_cksum cks[Q_CK_COUNT];
    size_t ncks, j;
    int id, i, all = 0, quiet = 0, status = Q_EXIT_OK;
    const char *check = NULL, *string = NULL;

    q_opt_init(&p, argc, argv, options, Q_ARRAY_LEN(options), "sum");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case OPT_ALGO:
            if (q_cksum_lookup(p.arg, &kind) != 0) {
                q_warn("sum: unknown algorithm '%s'", p.arg);
                goto usage_error;
            }
            break;
        case OPT_ALL:    all = 1; break;
        case OPT_CHECK:  check = p.arg; break;
        case OPT_STRING: string = p.arg; break;
        case OPT_QUIET:  quiet = 1; break;
        case OPT_SELFTEST: {
            int failures = q_cksum_selftest(stderr);
            printf("selftest: %s\n", failures ? "FAILED" : "ok");
            q_opt_free(&p);
            return failures ? Q_EXIT_FAILURE : Q_EXIT_OK;
        }
        case OPT_LIST:
            for (j = 0; j < Q_CK_COUNT; j++)
                printf("%s\n", q_cksum_name((q_cksum_kind)j));
            q_opt_free(&p);
            return Q_EXIT_OK;
        case OPT_HELP:
            q_opt_usage(stdout, "sum [options] [file...]",
                        "Prints checksums of files (standard input by default).",
                        options, Q_ARRAY_LEN(options));
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }
    if (check != NULL) {
        status = run_check(check, kind, quiet);
        q_opt_free(&p);
        return status;
    }

    ncks = all ? Q_CK_COUNT : 1;
    if (string != NULL) {
        q_strbuf label;
        q_sb_init(&label);
        q_sb_append_escaped(&label, string, strlen(string), '"');
        for (j = 0; j < ncks; j++) {
            q_cksum_init(&cks[j], all ? (q_cksum_kind)j : kind);
            q_cksum_update(&cks[j], string, strlen(string));
            print_result(&cks[j], label.data, all);
        }
        q_sb_free(&label);
        q_opt_free(&p);
        return Q_EXIT_OK;
    }
    for (i = 0; i < (p.noperands ? p.noperands : 1); i++) {
        const char *path = p.noperands ? p.operands[i] : "-";
        for (j = 0; j < ncks; j++)
            q_cksum_init(&cks[j], all ? (q_cksum_kind)j : kind);
        if (sum_path(path, cks, ncks) != 0) {
            q_warn("sum: %s: %s", path, strerror(errno));
            status = Q_EXIT_IO;
            continue;
        }
        for (j = 0; j < ncks; j++)
            print_result(&cks[j], path, all);
    }
    q_opt_free(&p);
    return status;

usage_error:
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}
