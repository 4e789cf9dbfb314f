/*
 * quill.h - common definitions for the quill text toolkit.
 *
 * Every module of libquill includes this header.  It provides the
 * allocation wrappers (which never return NULL: they report the failure
 * and exit), diagnostics, the handful of string helpers that C99 lacks,
 * and the region ("arena") allocator used by the expression language.
 *
 * The code is written in plain ISO C99 and uses nothing from POSIX, so
 * that the same sources compile unchanged with any hosted C compiler.
 */
#ifndef QUILL_H
#define QUILL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#define QUILL_NAME    "quill"
#define QUILL_VERSION "1.4.2"

#if defined(__GNUC__)
#define Q_NORETURN      __attribute__((noreturn))
#define Q_PRINTF(f, a)  __attribute__((format(printf, f, a)))
#define Q_UNUSED        __attribute__((unused))
#else
#define Q_NORETURN
#define Q_PRINTF(f, a)
#define Q_UNUSED
#endif

#define Q_ARRAY_LEN(a)  (sizeof(a) / sizeof((a)[0]))
#define Q_MIN(a, b)     ((a) < (b) ? (a) : (b))
#define Q_MAX(a, b)     ((a) > (b) ? (a) : (b))

/* Exit statuses shared by every command. */
enum {
    Q_EXIT_OK = 0,
    Q_EXIT_FAILURE = 1,   /* the command ran but found a problem */
    Q_EXIT_USAGE = 2,     /* bad command line */
    Q_EXIT_IO = 3         /* a file could not be read or written */
};

/* ---- util.c: memory ---------------------------------------------------- */

void *q_malloc(size_t size);
void *q_calloc(size_t count, size_t size);
void *q_realloc(void *ptr, size_t size);

/*
 * Make room for at least `need` elements of `elem` bytes in the array
 * `ptr` whose capacity (in elements) is *cap.  Grows geometrically and
 * returns the (possibly moved) array.
 */
void *q_grow_array(void *ptr, size_t *cap, size_t need, size_t elem);

/* ---- util.c: strings --------------------------------------------------- */

char *q_strdup(const char *s);
char *q_strndup(const char *s, size_t n);
int q_strcasecmp(const char *a, const char *b);
int q_strncasecmp(const char *a, const char *b, size_t n);
int q_has_prefix(const char *s, const char *prefix);
int q_has_suffix(const char *s, const char *suffix);
char *q_trim(char *s);
const char *q_basename(const char *path);

/* Strict conversions: the whole string must be a number.  Return 0 on
 * success and -1 (leaving *out untouched) otherwise. */
int q_parse_long(const char *s, long *out);
int q_parse_double(const char *s, double *out);

/* Formats a byte count as "512", "1.5K", "12.0M", ... into buf. */
char *q_human_size(double bytes, char *buf, size_t size);

/* ---- util.c: diagnostics ----------------------------------------------- */

void q_set_progname(const char *argv0);
const char *q_progname(void);
void q_set_quiet(int quiet);
void q_vwarn(const char *fmt, va_list ap);
void q_warn(const char *fmt, ...) Q_PRINTF(1, 2);
void q_die(const char *fmt, ...) Q_NORETURN Q_PRINTF(1, 2);
int q_warning_count(void);

/* ---- arena.c: region allocator ----------------------------------------- */

typedef struct q_arena_chunk q_arena_chunk;

typedef struct q_arena {
    q_arena_chunk *head;    /* most recent chunk; allocation happens here */
    size_t chunk_size;      /* default payload size of a new chunk */
    size_t used;            /* bytes handed out since init or reset */
    size_t reserved;        /* bytes obtained from malloc */
    size_t chunks;          /* number of chunks currently held */
} q_arena;

void q_arena_init(q_arena *a, size_t chunk_size);
void *q_arena_alloc(q_arena *a, size_t size);
void *q_arena_zalloc(q_arena *a, size_t size);
void *q_arena_memdup(q_arena *a, const void *src, size_t size);
char *q_arena_strndup(q_arena *a, const char *s, size_t n);
char *q_arena_strdup(q_arena *a, const char *s);
char *q_arena_printf(q_arena *a, const char *fmt, ...) Q_PRINTF(2, 3);
size_t q_arena_used(const q_arena *a);
void q_arena_reset(q_arena *a);
void q_arena_free(q_arena *a);

#endif /* QUILL_H */
