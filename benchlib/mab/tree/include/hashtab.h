/*
 * hashtab.h - string-keyed hash table with open addressing.
 *
 * Keys are copied into the table (so callers may reuse their buffers);
 * values are opaque pointers, or machine integers through the counter
 * helpers.  Collisions are resolved by linear probing with Robin Hood
 * displacement, which keeps probe sequences short even at a load factor
 * of 0.85; deletion uses backward shifting, so there are no tombstones.
 */
#ifndef QUILL_HASHTAB_H
#define QUILL_HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "quill.h"

typedef struct q_hentry {
    char *key;          /* NULL for an empty slot */
    size_t keylen;
    uint32_t hash;
    uint32_t dist;      /* distance from the slot the hash chose */
    union {
        void *ptr;
        long num;
    } val;
} q_hentry;

typedef struct q_htab {
    q_hentry *slots;
    size_t cap;         /* always a power of two, or 0 */
    size_t count;
    size_t max_dist;    /* longest probe sequence seen (statistics) */
    int fold_case;      /* compare and hash keys case-insensitively */
} q_htab;

typedef void (*q_hfree_fn)(void *value);

/* Iteration: start with it = 0, stop when q_htab_next returns 0. */
typedef size_t q_hiter;

void q_htab_init(q_htab *h, size_t hint);
void q_htab_free(q_htab *h, q_hfree_fn free_value);
void q_htab_clear(q_htab *h, q_hfree_fn free_value);

q_hentry *q_htab_lookup(const q_htab *h, const char *key, size_t keylen);
void *q_htab_get(const q_htab *h, const char *key);

/* Inserts or replaces; returns the entry, and sets *created when new. */
q_hentry *q_htab_insert(q_htab *h, const char *key, size_t keylen, int *created);
void q_htab_put(q_htab *h, const char *key, void *value);
int q_htab_remove(q_htab *h, const char *key, size_t keylen, void **old_value);

/* Counters: value slots used as longs. */
long q_htab_incr(q_htab *h, const char *key, size_t keylen, long by);
long q_htab_count_of(const q_htab *h, const char *key);

int q_htab_next(const q_htab *h, q_hiter *it, q_hentry **entry);
size_t q_htab_size(const q_htab *h);

/* Returns a newly allocated array of the live entries (count in *n);
 * the pointers stay valid until the table is next modified. */
q_hentry **q_htab_entries(const q_htab *h, size_t *n);

/* Hash functions, also used by the checksum command for comparison. */
uint32_t q_hash_bytes(const void *data, size_t len, uint32_t seed);
uint32_t q_hash_bytes_fold(const void *data, size_t len, uint32_t seed);

struct q_htab_stats {
    size_t count, cap, max_dist;
    double load, mean_dist;
};
void q_htab_stats(const q_htab *h, struct q_htab_stats *st);

#endif /* QUILL_HASHTAB_H */
