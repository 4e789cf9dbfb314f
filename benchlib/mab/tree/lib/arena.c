/*
 * arena.c - a region allocator.
 *
 * Memory is carved out of large chunks and released all at once.  The
 * expression language allocates its whole syntax tree this way, which
 * makes the parser free of ownership bookkeeping.
 *
 * Allocations are aligned for any object type.  A request larger than a
 * quarter of the chunk size gets a chunk of its own, inserted behind the
 * current one so the space left in the current chunk is not wasted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quill.h"

#define ARENA_DEFAULT_CHUNK 8192

/* The strictest alignment any ordinary object needs. */
typedef union q_max_align {
    long l;
    long long ll;
    double d;
    long double ld;
    void *p;
    void (*f)(void);
} q_max_align;

#define ARENA_ALIGN (sizeof(q_max_align))

struct q_arena_chunk {
    q_arena_chunk *next;
    size_t size;        /* payload bytes */
    size_t used;
    q_max_align payload[1];
};

static size_t align_up(size_t n)
{
    return (n + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
}

static q_arena_chunk *chunk_new(q_arena *a, size_t payload)
{
    q_arena_chunk *c;
    size_t header = offsetof(q_arena_chunk, payload);
    c = q_malloc(header + payload);
    c->next = NULL;
    c->size = payload;
    c->used = 0;
    a->reserved += header + payload;
    a->chunks++;
    return c;
}

void q_arena_init(q_arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? align_up(chunk_size) : ARENA_DEFAULT_CHUNK;
    a->used = 0;
    a->reserved = 0;
    a->chunks = 0;
}

void *q_arena_alloc(q_arena *a, size_t size)
{
    q_arena_chunk *c = a->head;
    char *p;

    size = align_up(size ? size : 1);
    if (c == NULL || c->size - c->used < size) {
        if (size > a->chunk_size / 4) {
            /* big block: private chunk, kept behind the head */
            q_arena_chunk *big = chunk_new(a, size);
            big->used = size;
            if (c == NULL) {
                a->head = big;
            } else {
                big->next = c->next;
                c->next = big;
            }
            a->used += size;
            return big->payload;
        }
        c = chunk_new(a, a->chunk_size);
        c->next = a->head;
        a->head = c;
    }
    p = (char *)c->payload + c->used;
    c->used += size;
    a->used += size;
    return p;
}

void *q_arena_zalloc(q_arena *a, size_t size)
{
    void *p = q_arena_alloc(a, size);
    memset(p, 0, size);
    return p;
}

void *q_arena_memdup(q_arena *a, const void *src, size_t size)
{
    void *p = q_arena_alloc(a, size);
    if (size > 0)
        memcpy(p, src, size);
    return p;
}

char *q_arena_strndup(q_arena *a, const char *s, size_t n)
{
    char *p = q_arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *q_arena_strdup(q_arena *a, const char *s)
{
    return q_arena_strndup(a, s, strlen(s));
}

char *q_arena_printf(q_arena *a, const char *fmt, ...)
{
    va_list ap;
    char small[256];
    int n;
    char *p;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return q_arena_strdup(a, "");
    p = q_arena_alloc(a, (size_t)n + 1);
    if ((size_t)n < sizeof small) {
        memcpy(p, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(p, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return p;
}

size_t q_arena_used(const q_arena *a)
{
    return a->used;
}

void q_arena_reset(q_arena *a)
{
    /* Keep the most recent regular chunk, release everything else. */
    q_arena_chunk *keep = NULL, *c = a->head, *next;
    while (c != NULL) {
        next = c->next;
        if (keep == NULL && c->size == a->chunk_size) {
            keep = c;
            keep->used = 0;
            keep->next = NULL;
        } else {
            free(c);
        }
        c = next;
    }
    a->head = keep;
    a->used = 0;
    a->chunks = keep ? 1 : 0;
    a->reserved = keep ? offsetof(q_arena_chunk, payload) + keep->size : 0;
}

void q_arena_free(q_arena *a)
{
    q_arena_chunk *c = a->head, *next;
    while (c != NULL) {
        next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
    a->used = 0;
    a->reserved = 0;
    a->chunks = 0;
}
