/*
 * hashtab.c - Robin Hood hash table keyed by byte strings.
 *
 * Each slot records how far its entry sits from the slot its hash chose
 * (the probe distance).  On insertion an entry that has travelled further
 * than the resident of a slot takes that slot and the resident moves on:
 * "rob the rich, give to the poor".  This bounds the variance of probe
 * lengths, and lets a lookup stop as soon as it meets an entry closer to
 * its home than the key being sought would be.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hashtab.h"

#define HT_MIN_CAP      16
#define HT_LOAD_PERCENT 85

/* ---- hashing ----------------------------------------------------------- */

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t final_mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static uint32_t mix_block(uint32_t k)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    return k;
}

static unsigned char fold_byte(unsigned char c, int fold)
{
    return fold ? (unsigned char)tolower(c) : c;
}

static uint32_t hash_bytes(const void *data, size_t len, uint32_t seed, int fold)
{
    const unsigned char *p = data;
    uint32_t h = seed;
    size_t blocks = len / 4, i;
    uint32_t k;

    for (i = 0; i < blocks; i++, p += 4) {
        k = (uint32_t)fold_byte(p[0], fold)
          | (uint32_t)fold_byte(p[1], fold) << 8
          | (uint32_t)fold_byte(p[2], fold) << 16
          | (uint32_t)fold_byte(p[3], fold) << 24;
        h ^= mix_block(k);
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64u;
    }
    k = 0;
    switch (len & 3) {
    case 3:
        k ^= (uint32_t)fold_byte(p[2], fold) << 16;
        /* fall through */
    case 2:
        k ^= (uint32_t)fold_byte(p[1], fold) << 8;
        /* fall through */
    case 1:
        k ^= (uint32_t)fold_byte(p[0], fold);
        h ^= mix_block(k);
        break;
    default:
        break;
    }
    h ^= (uint32_t)len;
    return final_mix(h);
}

uint32_t q_hash_bytes(const void *data, size_t len, uint32_t seed)
{
    return hash_bytes(data, len, seed, 0);
}

uint32_t q_hash_bytes_fold(const void *data, size_t len, uint32_t seed)
{
    return hash_bytes(data, len, seed, 1);
}

static uint32_t key_hash(const q_htab *h, const char *key, size_t len)
{
    return hash_bytes(key, len, 0x5bd1e995u, h->fold_case);
}

static int key_equal(const q_htab *h, const q_hentry *e, const char *key,
                     size_t len, uint32_t hash)
{
    size_t i;
    if (e->hash != hash || e->keylen != len)
        return 0;
    if (!h->fold_case)
        return memcmp(e->key, key, len) == 0;
    for (i = 0; i < len; i++) {
        if (tolower((unsigned char)e->key[i]) != tolower((unsigned char)key[i]))
            return 0;
    }
    return 1;
}

/* ---- table management -------------------------------------------------- */

static size_t round_pow2(size_t n)
{
    size_t c = HT_MIN_CAP;
    while (c < n)
        c *= 2;
    return c;
}

void q_htab_init(q_htab *h, size_t hint)
{
    h->slots = NULL;
    h->cap = 0;
    h->count = 0;
    h->max_dist = 0;
    h->fold_case = 0;
    if (hint > 0) {
        h->cap = round_pow2(hint * 100 / HT_LOAD_PERCENT + 1);
        h->slots = q_calloc(h->cap, sizeof *h->slots);
    }
}

void q_htab_clear(q_htab *h, q_hfree_fn free_value)
{
    size_t i;
    for (i = 0; i < h->cap; i++) {
        q_hentry *e = &h->slots[i];
        if (e->key == NULL)
            continue;
        if (free_value != NULL && e->val.ptr != NULL)
            free_value(e->val.ptr);
        free(e->key);
        memset(e, 0, sizeof *e);
    }
    h->count = 0;
    h->max_dist = 0;
}

void q_htab_free(q_htab *h, q_hfree_fn free_value)
{
    q_htab_clear(h, free_value);
    free(h->slots);
    h->slots = NULL;
    h->cap = 0;
}

/* Places `item` (whose key is known to be absent) and returns the slot
 * that received it.  The table must have a free slot. */
static q_hentry *place(q_htab *h, q_hentry item)
{
    size_t mask = h->cap - 1;
    size_t i = item.hash & mask;
    q_hentry *result = NULL;

    item.dist = 0;
    for (;;) {
        q_hentry *s = &h->slots[i];
        if (s->key == NULL) {
            *s = item;
            if (item.dist > h->max_dist)
                h->max_dist = item.dist;
            h->count++;
            return result ? result : s;
        }
        if (s->dist < item.dist) {
            q_hentry tmp = *s;
            *s = item;
            if (item.dist > h->max_dist)
                h->max_dist = item.dist;
            item = tmp;
            if (result == NULL)
                result = s;
        }
        i = (i + 1) & mask;
        item.dist++;
    }
}

static void resize(q_htab *h, size_t new_cap)
{
    q_hentry *old = h->slots;
    size_t old_cap = h->cap, i;

    h->slots = q_calloc(new_cap, sizeof *h->slots);
    h->cap = new_cap;
    h->count = 0;
    h->max_dist = 0;
    for (i = 0; i < old_cap; i++) {
        if (old[i].key != NULL)
            place(h, old[i]);
    }
    free(old);
}

static void reserve_one(q_htab *h)
{
    if (h->cap == 0)
        resize(h, HT_MIN_CAP);
    else if ((h->count + 1) * 100 > h->cap * HT_LOAD_PERCENT)
        resize(h, h->cap * 2);
}

q_hentry *q_htab_lookup(const q_htab *h, const char *key, size_t keylen)
{
    uint32_t hash;
    size_t mask, i;
    uint32_t d = 0;

    if (h->count == 0)
        return NULL;
    hash = key_hash(h, key, keylen);
    mask = h->cap - 1;
    i = hash & mask;
    for (;;) {
        q_hentry *s = &h->slots[i];
        if (s->key == NULL || s->dist < d)
            return NULL;
        if (key_equal(h, s, key, keylen, hash))
            return s;
        i = (i + 1) & mask;
        d++;
    }
}

void *q_htab_get(const q_htab *h, const char *key)
{
    q_hentry *e = q_htab_lookup(h, key, strlen(key));
    return e ? e->val.ptr : NULL;
}

q_hentry *q_htab_insert(q_htab *h, const char *key, size_t keylen, int *created)
{
    q_hentry *e = q_htab_lookup(h, key, keylen);
    q_hentry item;

    if (e != NULL) {
        if (created)
            *created = 0;
        return e;
    }
    reserve_one(h);
    memset(&item, 0, sizeof item);
    item.key = q_strndup(key, keylen);
    item.keylen = keylen;
    item.hash = key_hash(h, key, keylen);
    if (created)
        *created = 1;
    return place(h, item);
}

void q_htab_put(q_htab *h, const char *key, void *value)
{
    q_hentry *e = q_htab_insert(h, key, strlen(key), NULL);
    e->val.ptr = value;
}

int q_htab_remove(q_htab *h, const char *key, size_t keylen, void **old_value)
{
    q_hentry *e = q_htab_lookup(h, key, keylen);
    size_t mask, i, j;

    if (e == NULL)
        return 0;
    if (old_value != NULL)
        *old_value = e->val.ptr;
    free(e->key);
    mask = h->cap - 1;
    i = (size_t)(e - h->slots);
    j = (i + 1) & mask;
    /* backward shift: pull followers one slot closer to home */
    while (h->slots[j].key != NULL && h->slots[j].dist > 0) {
        h->slots[i] = h->slots[j];
        h->slots[i].dist--;
        i = j;
        j = (j + 1) & mask;
    }
    memset(&h->slots[i], 0, sizeof h->slots[i]);
    h->count--;
    return 1;
}

long q_htab_incr(q_htab *h, const char *key, size_t keylen, long by)
{
    q_hentry *e = q_htab_insert(h, key, keylen, NULL);
    e->val.num += by;
    return e->val.num;
}

long q_htab_count_of(const q_htab *h, const char *key)
{
    q_hentry *e = q_htab_lookup(h, key, strlen(key));
    return e ? e->val.num : 0;
}

int q_htab_next(const q_htab *h, q_hiter *it, q_hentry **entry)
{
    while (*it < h->cap) {
        q_hentry *e = &h->slots[(*it)++];
        if (e->key != NULL) {
            *entry = e;
            return 1;
        }
    }
    return 0;
}

size_t q_htab_size(const q_htab *h)
{
    return h->count;
}

q_hentry **q_htab_entries(const q_htab *h, size_t *n)
{
    q_hentry **v = q_malloc((h->count ? h->count : 1) * sizeof *v);
    q_hiter it = 0;
    q_hentry *e;
    size_t k = 0;
    while (q_htab_next(h, &it, &e))
        v[k++] = e;
    *n = k;
    return v;
}

void q_htab_stats(const q_htab *h, struct q_htab_stats *st)
{
    size_t i;
    double total = 0.0;
    st->count = h->count;
    st->cap = h->cap;
    st->max_dist = 0;
    for (i = 0; i < h->cap; i++) {
        if (h->slots[i].key != NULL) {
            total += h->slots[i].dist;
            if (h->slots[i].dist > st->max_dist)
                st->max_dist = h->slots[i].dist;
        }
    }
    st->load = h->cap ? (double)h->count / (double)h->cap : 0.0;
    st->mean_dist = h->count ? total / (double)h->count : 0.0;
}
