/*
 * cmd_count.c - "quill count": wc(1) with word frequencies.
 *
 * Without options it prints lines, words and bytes for every file and a
 * total when there is more than one file.  --top=N lists the N most
 * frequent words instead, using the hash table from libquill; --stats
 * adds the table's probe statistics, which is a handy way to look at
 * Robin Hood hashing on real text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "hashtab.h"
#include "sortx.h"
#include "strbuf.h"
#include "textio.h"

enum {
    OPT_LINES = 1, OPT_WORDS, OPT_BYTES, OPT_CHARS, OPT_LONGEST, OPT_TOP,
    OPT_FOLD, OPT_MINLEN, OPT_IDENT, OPT_STATS, OPT_HELP
};

static const q_option options[] = {
    { "lines", 'l', 0, OPT_LINES, NULL, "print the line count" },
    { "words", 'w', 0, OPT_WORDS, NULL, "print the word count" },
    { "bytes", 'c', 0, OPT_BYTES, NULL, "print the byte count" },
    { "chars", 'm', 0, OPT_CHARS, NULL, "print the character count (UTF-8)" },
    { "max-line-length", 'L', 0, OPT_LONGEST, NULL, "print the longest line's width" },
    { "top", 't', 1, OPT_TOP, "N", "list the N most frequent words" },
    { "fold", 'f', 0, OPT_FOLD, NULL, "count words case-insensitively" },
    { "min-length", 0, 1, OPT_MINLEN, "N", "ignore words shorter than N" },
    { "identifiers", 'i', 0, OPT_IDENT, NULL, "count C identifiers, not words" },
    { "stats", 's', 0, OPT_STATS, NULL, "print hash table statistics" },
    { "help", 'h', 0, OPT_HELP, NULL, "show this help" }
};

struct count_opts {
    int lines, words, bytes, chars, longest;
    size_t top;
    int fold;
    size_t min_length;
    int ident;
    int stats;
};

static void print_counts(const struct count_opts *o, const q_text_stats *st,
                         const char *name)
{
    if (o->lines)
        printf(" %7lu", st->lines);
    if (o->words)
        printf(" %7lu", st->words);
    if (o->chars)
        printf(" %7lu", st->chars);
    if (o->bytes)
        printf(" %7lu", st->bytes);
    if (o->longest)
        printf(" %7lu", st->longest_line);
    if (name != NULL)
        printf(" %s", name);
    putchar('\n');
}

static void add_total(q_text_stats *total, const q_text_stats *st)
{
    total->lines += st->lines;
    total->words += st->words;
    total->bytes += st->bytes;
    total->chars += st->chars;
    total->blank_lines += st->blank_lines;
    total->invalid_utf8 += st->invalid_utf8;
    if (st->longest_line > total->longest_line)
        total->longest_line = st->longest_line;
}

static void count_words(q_htab *freq, const struct count_opts *o, const char *line,
                        size_t len, q_strbuf *scratch)
{
    q_words w;
    const char *word;
    size_t wlen;

    q_words_init(&w, line, len, o->ident ? Q_WORDS_IDENT : Q_WORDS_ALNUM);
    while (q_words_next(&w, &word, &wlen)) {
        if (q_utf8_length(word, wlen) < o->min_length)
            continue;
        if (o->fold) {
            q_sb_clear(scratch);
            q_utf8_fold(scratch, word, wlen);
            q_htab_incr(freq, scratch->data, scratch->len, 1);
        } else {
            q_htab_incr(freq, word, wlen, 1);
        }
    }
}

static int count_file(const char *path, const struct count_opts *o, q_text_stats *st,
                      q_htab *freq)
{
    q_reader r;
    q_strbuf scratch;
    int rc;

    if (q_reader_open(&r, path) != 0) {
        q_warn("%s: %s", path, strerror(errno));
        return -1;
    }
    q_sb_init(&scratch);
    q_text_stats_init(st);
    while ((rc = q_reader_next(&r)) > 0) {
        q_text_stats_add_line(st, r.line.data, r.line.len);
        if (r.had_cr) {
            st->bytes++;
            st->chars++;
        }
        if (freq != NULL)
            count_words(freq, o, r.line.data, r.line.len, &scratch);
    }
    if (rc < 0)
        q_warn("%s: read error", r.name);
    q_sb_free(&scratch);
    q_reader_close(&r);
    return rc < 0 ? -1 : 0;
}

/* Most frequent first; ties in alphabetical order. */
static int by_count(const void *a, const void *b, void *ctx)
{
    const q_hentry *x = a, *y = b;
    (void)ctx;
    if (x->val.num != y->val.num)
        return x->val.num > y->val.num ? -1 : 1;
    return strcmp(x->key, y->key);
}

static void print_top(const q_htab *freq, size_t top, unsigned long total_words)
{
    size_t n, i;
    q_hentry **entries = q_htab_entries(freq, &n);
    q_sort_merge((void **)entries, n, by_count, NULL, NULL);
    if (top > n)
        top = n;
    for (i = 0; i < top; i++) {
        double share = total_words ? 100.0 * (double)entries[i]->val.num / (double)total_words
                                   : 0.0;
        printf("%8ld %6.2f%%  %s\n", entries[i]->val.num, share, entries[i]->key);
    }
    free(entries);
}

static void print_stats(const q_htab *freq)
{
    struct q_htab_stats st;
    q_htab_stats(freq, &st);
    fprintf(stderr, "distinct words: %lu\n", (unsigned long)st.count);
    fprintf(stderr, "table slots:    %lu (load %.2f)\n", (unsigned long)st.cap, st.load);
    fprintf(stderr, "probe distance: mean %.3f, max %lu\n", st.mean_dist,
            (unsigned long)st.max_dist);
}

int cmd_count(int argc, char **argv)
{
    q_optparser p;
    struct count_opts o;
    q_text_stats st, total;
    q_htab freq;
    int id, i, status = Q_EXIT_OK;
    char *stdin_only[1];
    char **files;
    int nfiles;

    memset(&o, 0, sizeof o);
    q_opt_init(&p, argc, argv, options, Q_ARRAY_LEN(options), "count");
    while ((id = q_opt_next(&p)) != Q_OPT_END) {
        switch (id) {
        case OPT_LINES:   o.lines = 1; break;
        case OPT_WORDS:   o.words = 1; break;
        case OPT_BYTES:   o.bytes = 1; break;
        case OPT_CHARS:   o.chars = 1; break;
        case OPT_LONGEST: o.longest = 1; break;
        case OPT_FOLD:    o.fold = 1; break;
        case OPT_IDENT:   o.ident = 1; break;
        case OPT_STATS:   o.stats = 1; break;
        case OPT_TOP:
            if (q_opt_size(&p, "--top", &o.top) != 0)
                goto usage_error;
            break;
        case OPT_MINLEN:
            if (q_opt_size(&p, "--min-length", &o.min_length) != 0)
                goto usage_error;
            break;
        case OPT_HELP:
            q_opt_usage(stdout, "count [options] [file...]",
                        "Counts lines, words and bytes, or word frequencies.",
                        options, Q_ARRAY_LEN(options));
            q_opt_free(&p);
            return Q_EXIT_OK;
        default:
            goto usage_error;
        }
    }
    if (!o.lines && !o.words && !o.bytes && !o.chars && !o.longest)
        o.lines = o.words = o.bytes = 1;

    files = p.operands;
    nfiles = p.noperands;
    if (nfiles == 0) {
        stdin_only[0] = "-";
        files = stdin_only;
        nfiles = 1;
    }
    q_text_stats_init(&total);
    q_htab_init(&freq, (o.top || o.stats) ? 1024 : 0);
    freq.fold_case = 0;     /* folding is done on the UTF-8 text itself */
    for (i = 0; i < nfiles; i++) {
        if (count_file(files[i], &o, &st, (o.top || o.stats) ? &freq : NULL) != 0) {
            status = Q_EXIT_IO;
            continue;
        }
        add_total(&total, &st);
        if (!o.top)
            print_counts(&o, &st, p.noperands ? files[i] : NULL);
    }
    if (!o.top && nfiles > 1)
        print_counts(&o, &total, "total");
    if (o.top)
        print_top(&freq, o.top, total.words);
    if (o.stats)
        print_stats(&freq);
    q_htab_free(&freq, NULL);
    q_opt_free(&p);
    return status;

usage_error:
    q_opt_free(&p);
    return Q_EXIT_USAGE;
}
