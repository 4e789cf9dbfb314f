/*
 * strbuf.c - growable strings.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

char q_strbuf_empty[1];

void q_sb_init(q_strbuf *sb)
{
    sb->data = q_strbuf_empty;
    sb->len = 0;
    sb->cap = 0;
}

void q_sb_init_size(q_strbuf *sb, size_t hint)
{
    q_sb_init(sb);
    if (hint > 0)
        q_sb_reserve(sb, hint);
}

void q_sb_free(q_strbuf *sb)
{
    if (sb->cap > 0)
        free(sb->data);
    q_sb_init(sb);
}

void q_sb_clear(q_strbuf *sb)
{
    sb->len = 0;
    if (sb->cap > 0)
        sb->data[0] = '\0';
}

void q_sb_reserve(q_strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    size_t cap;
    if (need <= sb->cap)
        return;
    cap = sb->cap ? sb->cap : 32;
    while (cap < need)
        cap *= 2;
    if (sb->cap == 0) {
        sb->data = q_malloc(cap);
        sb->data[0] = '\0';
    } else {
        sb->data = q_realloc(sb->data, cap);
    }
    sb->cap = cap;
}

void q_sb_truncate(q_strbuf *sb, size_t len)
{
    if (len < sb->len) {
        sb->len = len;
        sb->data[len] = '\0';
    }
}

char *q_sb_detach(q_strbuf *sb, size_t *len)
{
    char *p;
    if (sb->cap == 0)
        p = q_strdup("");
    else
        p = sb->data;
    if (len != NULL)
        *len = sb->len;
    q_sb_init(sb);
    return p;
}

void q_sb_putc(q_strbuf *sb, int c)
{
    q_sb_reserve(sb, 1);
    sb->data[sb->len++] = (char)c;
    sb->data[sb->len] = '\0';
}

void q_sb_append(q_strbuf *sb, const char *s)
{
    q_sb_appendn(sb, s, strlen(s));
}

void q_sb_appendn(q_strbuf *sb, const char *s, size_t n)
{
    if (n == 0)
        return;
    q_sb_reserve(sb, n);
    memmove(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void q_sb_append_sb(q_strbuf *sb, const q_strbuf *other)
{
    q_sb_appendn(sb, other->data, other->len);
}

void q_sb_repeat(q_strbuf *sb, int c, size_t count)
{
    if (count == 0)
        return;
    q_sb_reserve(sb, count);
    memset(sb->data + sb->len, c, count);
    sb->len += count;
    sb->data[sb->len] = '\0';
}

void q_sb_vprintf(q_strbuf *sb, const char *fmt, va_list ap)
{
    va_list copy;
    int n;
    size_t room;

    q_sb_reserve(sb, 64);
    room = sb->cap - sb->len;
    va_copy(copy, ap);
    n = vsnprintf(sb->data + sb->len, room, fmt, copy);
    va_end(copy);
    if (n < 0) {
        sb->data[sb->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        q_sb_reserve(sb, (size_t)n);
        vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    }
    sb->len += (size_t)n;
}

void q_sb_printf(q_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    q_sb_vprintf(sb, fmt, ap);
    va_end(ap);
}

void q_sb_insert(q_strbuf *sb, size_t pos, const char *s, size_t n)
{
    if (pos > sb->len)
        pos = sb->len;
    if (n == 0)
        return;
    q_sb_reserve(sb, n);
    memmove(sb->data + pos + n, sb->data + pos, sb->len - pos + 1);
    memcpy(sb->data + pos, s, n);
    sb->len += n;
}

void q_sb_remove(q_strbuf *sb, size_t pos, size_t n)
{
    if (pos >= sb->len || n == 0)
        return;
    if (n > sb->len - pos)
        n = sb->len - pos;
    memmove(sb->data + pos, sb->data + pos + n, sb->len - pos - n + 1);
    sb->len -= n;
}

size_t q_sb_replace_all(q_strbuf *sb, const char *from, const char *to)
{
    q_strbuf out;
    size_t flen = strlen(from), tlen = strlen(to);
    size_t count = 0, i = 0;

    if (flen == 0 || sb->len < flen)
        return 0;
    q_sb_init_size(&out, sb->len);
    while (i < sb->len) {
        if (i + flen <= sb->len && memcmp(sb->data + i, from, flen) == 0) {
            q_sb_appendn(&out, to, tlen);
            i += flen;
            count++;
        } else {
            q_sb_putc(&out, sb->data[i]);
            i++;
        }
    }
    if (count > 0) {
        q_sb_free(sb);
        *sb = out;
    } else {
        q_sb_free(&out);
    }
    return count;
}

void q_sb_rtrim(q_strbuf *sb)
{
    while (sb->len > 0 && isspace((unsigned char)sb->data[sb->len - 1]))
        sb->len--;
    if (sb->cap > 0)
        sb->data[sb->len] = '\0';
}

void q_sb_trim(q_strbuf *sb)
{
    size_t start = 0;
    q_sb_rtrim(sb);
    while (start < sb->len && isspace((unsigned char)sb->data[start]))
        start++;
    q_sb_remove(sb, 0, start);
}

void q_sb_to_lower(q_strbuf *sb)
{
    size_t i;
    for (i = 0; i < sb->len; i++)
        sb->data[i] = (char)tolower((unsigned char)sb->data[i]);
}

void q_sb_to_upper(q_strbuf *sb)
{
    size_t i;
    for (i = 0; i < sb->len; i++)
        sb->data[i] = (char)toupper((unsigned char)sb->data[i]);
}

void q_sb_append_escaped(q_strbuf *sb, const char *s, size_t n, int quote)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    if (quote)
        q_sb_putc(sb, quote);
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '\n': q_sb_append(sb, "\\n"); break;
        case '\t': q_sb_append(sb, "\\t"); break;
        case '\r': q_sb_append(sb, "\\r"); break;
        case '\\': q_sb_append(sb, "\\\\"); break;
        case '\0': q_sb_append(sb, "\\0"); break;
        default:
            if (c == (unsigned char)quote && quote != 0) {
                q_sb_putc(sb, '\\');
                q_sb_putc(sb, c);
            } else if (c < 0x20 || c == 0x7f) {
                q_sb_append(sb, "\\x");
                q_sb_putc(sb, hex[c >> 4]);
                q_sb_putc(sb, hex[c & 15]);
            } else {
                q_sb_putc(sb, c);
            }
            break;
        }
    }
    if (quote)
        q_sb_putc(sb, quote);
}

void q_sb_append_grouped(q_strbuf *sb, unsigned long n)
{
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%lu", n);
    int i;
    for (i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            q_sb_putc(sb, ',');
        q_sb_putc(sb, digits[i]);
    }
}

int q_sb_equals(const q_strbuf *sb, const char *s)
{
    size_t n = strlen(s);
    return n == sb->len && memcmp(sb->data, s, n) == 0;
}

int q_sb_compare(const q_strbuf *a, const q_strbuf *b)
{
    size_t n = Q_MIN(a->len, b->len);
    int c = memcmp(a->data, b->data, n);
    if (c != 0)
        return c;
    return (a->len > b->len) - (a->len < b->len);
}

long q_sb_find(const q_strbuf *sb, const char *needle, size_t from)
{
    size_t n = strlen(needle), i;
    if (n == 0)
        return from <= sb->len ? (long)from : -1;
    if (sb->len < n)
        return -1;
    for (i = from; i + n <= sb->len; i++) {
        if (sb->data[i] == needle[0] && memcmp(sb->data + i, needle, n) == 0)
            return (long)i;
    }
    return -1;
}

int q_sb_read_stream(q_strbuf *sb, FILE *fp)
{
    for (;;) {
        size_t got;
        q_sb_reserve(sb, 8192);
        got = fread(sb->data + sb->len, 1, sb->cap - sb->len - 1, fp);
        sb->len += got;
        sb->data[sb->len] = '\0';
        if (got == 0)
            break;
    }
    return ferror(fp) ? -1 : 0;
}

int q_sb_read_file(q_strbuf *sb, const char *path)
{
    FILE *fp;
    int rc;
    if (path == NULL || strcmp(path, "-") == 0)
        return q_sb_read_stream(sb, stdin);
    fp = fopen(path, "rb");
    if (fp == NULL)
        return -1;
    rc = q_sb_read_stream(sb, fp);
    if (fclose(fp) != 0)
        rc = -1;
    return rc;
}

int q_sb_write_stream(const q_strbuf *sb, FILE *fp)
{
    if (sb->len == 0)
        return 0;
    return fwrite(sb->data, 1, sb->len, fp) == sb->len ? 0 : -1;
}
