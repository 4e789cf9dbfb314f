/*
 * strbuf.h - growable, always NUL-terminated byte strings.
 *
 * A q_strbuf owns its storage.  The `data` member is valid (and points at
 * a terminating NUL) even for an empty buffer that has never allocated,
 * so callers can pass sb.data to any function taking a C string.
 */
#ifndef QUILL_STRBUF_H
#define QUILL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "quill.h"

typedef struct q_strbuf {
    char *data;     /* contents, NUL-terminated */
    size_t len;     /* bytes in use, not counting the NUL */
    size_t cap;     /* bytes allocated, 0 when data is the shared empty string */
} q_strbuf;

#define Q_STRBUF_INIT { q_strbuf_empty, 0, 0 }

extern char q_strbuf_empty[1];

void q_sb_init(q_strbuf *sb);
void q_sb_init_size(q_strbuf *sb, size_t hint);
void q_sb_free(q_strbuf *sb);
void q_sb_clear(q_strbuf *sb);
void q_sb_reserve(q_strbuf *sb, size_t extra);
void q_sb_truncate(q_strbuf *sb, size_t len);
char *q_sb_detach(q_strbuf *sb, size_t *len);

void q_sb_putc(q_strbuf *sb, int c);
void q_sb_append(q_strbuf *sb, const char *s);
void q_sb_appendn(q_strbuf *sb, const char *s, size_t n);
void q_sb_append_sb(q_strbuf *sb, const q_strbuf *other);
void q_sb_repeat(q_strbuf *sb, int c, size_t count);
void q_sb_printf(q_strbuf *sb, const char *fmt, ...) Q_PRINTF(2, 3);
void q_sb_vprintf(q_strbuf *sb, const char *fmt, va_list ap);
void q_sb_insert(q_strbuf *sb, size_t pos, const char *s, size_t n);
void q_sb_remove(q_strbuf *sb, size_t pos, size_t n);

/* Replaces every occurrence of `from` by `to`; returns the count. */
size_t q_sb_replace_all(q_strbuf *sb, const char *from, const char *to);

void q_sb_trim(q_strbuf *sb);
void q_sb_rtrim(q_strbuf *sb);
void q_sb_to_lower(q_strbuf *sb);
void q_sb_to_upper(q_strbuf *sb);

/* Appends `s` with C-style escapes for quotes, backslashes and control
 * characters; with quote != 0 the result is wrapped in that character. */
void q_sb_append_escaped(q_strbuf *sb, const char *s, size_t n, int quote);

/* Appends n as a decimal with thousands separators ("1,234,567"). */
void q_sb_append_grouped(q_strbuf *sb, unsigned long n);

int q_sb_equals(const q_strbuf *sb, const char *s);
int q_sb_compare(const q_strbuf *a, const q_strbuf *b);
long q_sb_find(const q_strbuf *sb, const char *needle, size_t from);

/* Reads a whole stream; returns 0, or -1 on a read error. */
int q_sb_read_stream(q_strbuf *sb, FILE *fp);
int q_sb_read_file(q_strbuf *sb, const char *path);
int q_sb_write_stream(const q_strbuf *sb, FILE *fp);

#endif /* QUILL_STRBUF_H */
