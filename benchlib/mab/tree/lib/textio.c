/*
 * textio.c - line reader, string vectors, word iteration, text statistics
 * and paragraph filling.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textio.h"

/* ---- line reader ------------------------------------------------------- */

int q_reader_open(q_reader *r, const char *path)
{
    FILE *fp;
    if (path == NULL || strcmp(path, "-") == 0) {
        q_reader_from_stream(r, stdin, "-");
        return 0;
    }
    fp = fopen(path, "rb");
    if (fp == NULL)
        return -1;
    q_reader_from_stream(r, fp, path);
    r->owns_fp = 1;
    return 0;
}

void q_reader_from_stream(q_reader *r, FILE *fp, const char *name)
{
    r->fp = fp;
    r->name = name ? name : "-";
    r->owns_fp = 0;
    r->lineno = 0;
    r->bytes = 0;
    r->had_cr = 0;
    r->error = 0;
    q_sb_init(&r->line);
}

int q_reader_next(q_reader *r)
{
    char buf[4096];
    int got_any = 0;

    q_sb_clear(&r->line);
    r->had_cr = 0;
    for (;;) {
        size_t n;
        if (fgets(buf, sizeof buf, r->fp) == NULL) {
            if (ferror(r->fp)) {
                r->error = 1;
                return -1;
            }
            if (!got_any)
                return 0;
            break;                      /* last line had no newline */
        }
        got_any = 1;
        n = strlen(buf);
        r->bytes += n;
        if (n > 0 && buf[n - 1] == '\n') {
            q_sb_appendn(&r->line, buf, n - 1);
            break;
        }
        q_sb_appendn(&r->line, buf, n);
    }
    if (r->line.len > 0 && r->line.data[r->line.len - 1] == '\r') {
        r->had_cr = 1;
        q_sb_truncate(&r->line, r->line.len - 1);
    }
    r->lineno++;
    return 1;
}

void q_reader_close(q_reader *r)
{
    if (r->owns_fp && r->fp != NULL)
        fclose(r->fp);
    r->fp = NULL;
    r->owns_fp = 0;
    q_sb_free(&r->line);
}

/* ---- string vectors ---------------------------------------------------- */

void q_strvec_init(q_strvec *v)
{
    v->items = NULL;
    v->len = 0;
    v->cap = 0;
}

void q_strvec_push(q_strvec *v, char *owned)
{
    v->items = q_grow_array(v->items, &v->cap, v->len + 1, sizeof *v->items);
    v->items[v->len++] = owned;
}

void q_strvec_push_copy(q_strvec *v, const char *s, size_t n)
{
    q_strvec_push(v, q_strndup(s, n));
}

void q_strvec_free(q_strvec *v)
{
    size_t i;
    for (i = 0; i < v->len; i++)
        free(v->items[i]);
    free(v->items);
    q_strvec_init(v);
}

int q_strvec_read_lines(q_strvec *v, const char *path)
{
    q_reader r;
    int rc;
    if (q_reader_open(&r, path) != 0)
        return -1;
    while ((rc = q_reader_next(&r)) > 0)
        q_strvec_push_copy(v, r.line.data, r.line.len);
    q_reader_close(&r);
    return rc < 0 ? -1 : 0;
}

void q_strvec_split(q_strvec *v, const char *s, char sep)
{
    const char *p = s;
    if (sep != 0) {
        for (;;) {
            const char *q = strchr(p, sep);
            if (q == NULL) {
                q_strvec_push_copy(v, p, strlen(p));
                return;
            }
            q_strvec_push_copy(v, p, (size_t)(q - p));
            p = q + 1;
        }
    }
    for (;;) {
        const char *start;
        while (*p != '\0' && isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            return;
        start = p;
        while (*p != '\0' && !isspace((unsigned char)*p))
            p++;
        q_strvec_push_copy(v, start, (size_t)(p - start));
    }
}

char *q_strvec_join(const q_strvec *v, const char *sep)
{
    q_strbuf sb;
    size_t i;
    q_sb_init(&sb);
    for (i = 0; i < v->len; i++) {
        if (i > 0)
            q_sb_append(&sb, sep);
        q_sb_append(&sb, v->items[i]);
    }
    return q_sb_detach(&sb, NULL);
}

/* ---- words ------------------------------------------------------------- */

void q_words_init(q_words *w, const char *s, size_t n, q_word_mode mode)
{
    w->p = s;
    w->end = s + n;
    w->mode = mode;
}

static int word_char(unsigned char c, q_word_mode mode)
{
    switch (mode) {
    case Q_WORDS_BLANK:
        return !isspace(c);
    case Q_WORDS_IDENT:
        return isalnum(c) || c == '_';
    case Q_WORDS_ALNUM:
    default:
        /* bytes >= 0x80 belong to UTF-8 letters as far as we can tell */
        return isalnum(c) || c >= 0x80;
    }
}

int q_words_next(q_words *w, const char **word, size_t *len)
{
    const char *p = w->p, *start;

    for (;;) {
        while (p < w->end && !word_char((unsigned char)*p, w->mode))
            p++;
        if (p >= w->end) {
            w->p = p;
            return 0;
        }
        /* identifiers cannot start with a digit */
        if (w->mode == Q_WORDS_IDENT && isdigit((unsigned char)*p)) {
            while (p < w->end && word_char((unsigned char)*p, w->mode))
                p++;
            continue;
        }
        break;
    }
    start = p;
    while (p < w->end) {
        if (word_char((unsigned char)*p, w->mode)) {
            p++;
        } else if (w->mode == Q_WORDS_ALNUM && (*p == '\'' || *p == '-')
                   && p + 1 < w->end && p > start
                   && word_char((unsigned char)p[1], w->mode)) {
            /* keep "don't" and "well-known" together */
            p++;
        } else {
            break;
        }
    }
    *word = start;
    *len = (size_t)(p - start);
    w->p = p;
    return 1;
}

/* ---- statistics -------------------------------------------------------- */

void q_text_stats_init(q_text_stats *st)
{
    memset(st, 0, sizeof *st);
}

void q_text_stats_add_line(q_text_stats *st, const char *line, size_t len)
{
    q_words w;
    const char *word;
    size_t wlen, i, width;
    int blank = 1;

    st->lines++;
    st->bytes += len + 1;
    st->chars += q_utf8_length(line, len) + 1;
    q_words_init(&w, line, len, Q_WORDS_BLANK);
    while (q_words_next(&w, &word, &wlen))
        st->words++;
    for (i = 0; i < len; i++) {
        if (!isspace((unsigned char)line[i])) {
            blank = 0;
            break;
        }
    }
    if (blank)
        st->blank_lines++;
    width = q_utf8_display_width(line, len);
    if (width > st->longest_line)
        st->longest_line = width;
    if (q_utf8_validate(line, len) < len)
        st->invalid_utf8++;
}

/* ---- filling ----------------------------------------------------------- */

void q_fill_opts_init(q_fill_opts *o)
{
    o->width = 72;
    o->indent = 0;
    o->justify = 0;
    o->two_spaces = 0;
}

struct fill_word {
    const char *text;
    size_t len;
    size_t width;
    int sentence_end;
};

static int ends_sentence(const char *w, size_t n)
{
    while (n > 0 && (w[n - 1] == '"' || w[n - 1] == '\'' || w[n - 1] == ')'))
        n--;
    return n > 1 && (w[n - 1] == '.' || w[n - 1] == '!' || w[n - 1] == '?');
}

static size_t gap_after(const struct fill_word *w, const q_fill_opts *o)
{
    return (o->two_spaces && w->sentence_end) ? 2 : 1;
}

static void emit_line(q_strbuf *out, const struct fill_word *words, size_t from,
                      size_t to, size_t line_width, const q_fill_opts *o,
                      int justify)
{
    size_t gaps = to - from - 1, extra = 0, k;
    size_t avail = o->width > o->indent ? o->width - o->indent : 1;

    if (justify && gaps > 0 && line_width < avail)
        extra = avail - line_width;
    q_sb_repeat(out, ' ', o->indent);
    for (k = from; k < to; k++) {
        q_sb_appendn(out, words[k].text, words[k].len);
        if (k + 1 < to) {
            size_t g = gap_after(&words[k], o);
            if (extra > 0) {
                size_t idx = k - from;
                g += extra / gaps + (idx < extra % gaps ? 1 : 0);
            }
            q_sb_repeat(out, ' ', g);
        }
    }
    q_sb_putc(out, '\n');
}

void q_fill_paragraph(q_strbuf *out, const char *text, size_t n,
                      const q_fill_opts *o)
{
    struct fill_word *words = NULL;
    size_t nwords = 0, cap = 0, i;
    size_t avail = o->width > o->indent ? o->width - o->indent : 1;
    q_words it;
    const char *w;
    size_t wlen;

    q_words_init(&it, text, n, Q_WORDS_BLANK);
    while (q_words_next(&it, &w, &wlen)) {
        words = q_grow_array(words, &cap, nwords + 1, sizeof *words);
        words[nwords].text = w;
        words[nwords].len = wlen;
        words[nwords].width = q_utf8_display_width(w, wlen);
        words[nwords].sentence_end = ends_sentence(w, wlen);
        nwords++;
    }
    i = 0;
    while (i < nwords) {
        size_t j = i + 1, width = words[i].width;
        while (j < nwords) {
            size_t g = gap_after(&words[j - 1], o);
            if (width + g + words[j].width > avail)
                break;
            width += g + words[j].width;
            j++;
        }
        /* the last line of a paragraph is never justified */
        emit_line(out, words, i, j, width, o, o->justify && j < nwords);
        i = j;
    }
    free(words);
}
