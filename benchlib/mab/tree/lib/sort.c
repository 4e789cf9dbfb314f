/*
 * sort.c - sorting algorithms over arrays of pointers, and the line
 * comparators used by "quill sort".
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "quill.h"
#include "sortx.h"

#define SMALL_RUN 12

/* Comparison and move counting go through these so the statistics are
 * gathered identically by every algorithm. */
#define CMP(a, b) (st ? (st->compares++, cmp((a), (b), ctx)) : cmp((a), (b), ctx))
#define MOVED(k)  do { if (st) st->moves += (k); } while (0)

static const char *const algo_names[Q_SORT_ALGO_COUNT] = {
    "insertion", "merge", "heap", "quick", "shell", "radix"
};

const char *q_sort_algo_name(q_sort_algo algo)
{
    return (unsigned)algo < Q_SORT_ALGO_COUNT ? algo_names[algo] : "?";
}

int q_sort_algo_lookup(const char *name, q_sort_algo *algo)
{
    int i;
    size_t n = strlen(name);
    if (n == 0)
        return -1;
    /* accept unambiguous prefixes: "ins", "m", "q" ... */
    for (i = 0; i < Q_SORT_ALGO_COUNT; i++) {
        if (strncmp(algo_names[i], name, n) == 0) {
            *algo = (q_sort_algo)i;
            return 0;
        }
    }
    return -1;
}

int q_sort_algo_stable(q_sort_algo algo)
{
    return algo == Q_SORT_INSERTION || algo == Q_SORT_MERGE || algo == Q_SORT_RADIX;
}

/* ---- insertion --------------------------------------------------------- */

static void insertion_range(void **v, size_t lo, size_t hi, q_cmp_fn cmp,
                            void *ctx, q_sort_stats *st)
{
    size_t i, j;
    for (i = lo + 1; i < hi; i++) {
        void *x = v[i];
        j = i;
        while (j > lo && CMP(v[j - 1], x) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        if (j != i) {
            v[j] = x;
            MOVED(i - j + 1);
        }
    }
}

void q_sort_insertion(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    if (n > 1)
        insertion_range(v, 0, n, cmp, ctx, st);
}

/* ---- merge ------------------------------------------------------------- */

static void merge_rec(void **v, void **tmp, size_t lo, size_t hi, q_cmp_fn cmp,
                      void *ctx, q_sort_stats *st, unsigned long depth)
{
    size_t mid, i, j, k;
    if (st && depth > st->max_depth)
        st->max_depth = depth;
    if (hi - lo <= SMALL_RUN) {
        insertion_range(v, lo, hi, cmp, ctx, st);
        return;
    }
    mid = lo + (hi - lo) / 2;
    merge_rec(v, tmp, lo, mid, cmp, ctx, st, depth + 1);
    merge_rec(v, tmp, mid, hi, cmp, ctx, st, depth + 1);
    /* already in order: nothing to merge */
    if (CMP(v[mid - 1], v[mid]) <= 0)
        return;
    memcpy(tmp + lo, v + lo, (mid - lo) * sizeof *v);
    i = lo;
    j = mid;
    k = lo;
    while (i < mid && j < hi) {
        if (CMP(v[j], tmp[i]) < 0)
            v[k++] = v[j++];
        else
            v[k++] = tmp[i++];
    }
    while (i < mid)
        v[k++] = tmp[i++];
    MOVED(hi - lo);
}

void q_sort_merge(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    void **tmp;
    if (n < 2)
        return;
    tmp = q_malloc(n * sizeof *tmp);
    merge_rec(v, tmp, 0, n, cmp, ctx, st, 1);
    free(tmp);
}

/* ---- heap -------------------------------------------------------------- */

static void sift_down(void **v, size_t root, size_t n, q_cmp_fn cmp, void *ctx,
                      q_sort_stats *st)
{
    void *x = v[root];
    size_t child;
    while ((child = 2 * root + 1) < n) {
        if (child + 1 < n && CMP(v[child], v[child + 1]) < 0)
            child++;
        if (CMP(x, v[child]) >= 0)
            break;
        v[root] = v[child];
        MOVED(1);
        root = child;
    }
    v[root] = x;
}

static void heap_range(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    size_t i;
    if (n < 2)
        return;
    for (i = n / 2; i-- > 0;)
        sift_down(v, i, n, cmp, ctx, st);
    for (i = n - 1; i > 0; i--) {
        void *t = v[0];
        v[0] = v[i];
        v[i] = t;
        MOVED(2);
        sift_down(v, 0, i, cmp, ctx, st);
    }
}

void q_sort_heap(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    heap_range(v, n, cmp, ctx, st);
}

/* ---- quick (introsort) ------------------------------------------------- */

static void swap_ptr(void **v, size_t i, size_t j)
{
    void *t = v[i];
    v[i] = v[j];
    v[j] = t;
}

static size_t median3(void **v, size_t a, size_t b, size_t c, q_cmp_fn cmp,
                      void *ctx, q_sort_stats *st)
{
    if (CMP(v[a], v[b]) < 0) {
        if (CMP(v[b], v[c]) < 0)
            return b;
        return CMP(v[a], v[c]) < 0 ? c : a;
    }
    if (CMP(v[a], v[c]) < 0)
        return a;
    return CMP(v[b], v[c]) < 0 ? c : b;
}

static void intro_rec(void **v, size_t lo, size_t hi, unsigned long limit,
                      q_cmp_fn cmp, void *ctx, q_sort_stats *st, unsigned long depth)
{
    while (hi - lo > SMALL_RUN) {
        size_t mid, i, j;
        void *pivot;

        if (st && depth > st->max_depth)
            st->max_depth = depth;
        if (limit == 0) {
            heap_range(v + lo, hi - lo, cmp, ctx, st);
            return;
        }
        limit--;
        mid = median3(v, lo, lo + (hi - lo) / 2, hi - 1, cmp, ctx, st);
        swap_ptr(v, lo, mid);
        pivot = v[lo];
        /* Hoare partition around v[lo] */
        i = lo;
        j = hi;
        for (;;) {
            do {
                i++;
            } while (i < hi && CMP(v[i], pivot) < 0);
            do {
                j--;
            } while (CMP(v[j], pivot) > 0);
            if (i >= j)
                break;
            swap_ptr(v, i, j);
            MOVED(2);
        }
        swap_ptr(v, lo, j);
        MOVED(2);
        /* recurse into the smaller side, loop on the larger one */
        if (j - lo < hi - j - 1) {
            intro_rec(v, lo, j, limit, cmp, ctx, st, depth + 1);
            lo = j + 1;
        } else {
            intro_rec(v, j + 1, hi, limit, cmp, ctx, st, depth + 1);
            hi = j;
        }
        depth++;
    }
    insertion_range(v, lo, hi, cmp, ctx, st);
}

void q_sort_quick(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    unsigned long limit = 0;
    size_t m = n;
    if (n < 2)
        return;
    while (m > 1) {
        m >>= 1;
        limit += 2;
    }
    intro_rec(v, 0, n, limit, cmp, ctx, st, 1);
}

/* ---- shell ------------------------------------------------------------- */

void q_sort_shell(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st)
{
    static const size_t ciura[] = { 1, 4, 10, 23, 57, 132, 301, 701, 1750 };
    size_t gaps[48];
    size_t ngaps = 0, g, i, j;
    int k;

    if (n < 2)
        return;
    for (i = 0; i < Q_ARRAY_LEN(ciura) && ciura[i] < n; i++)
        gaps[ngaps++] = ciura[i];
    /* extend the sequence by a factor of 2.25 beyond Ciura's table */
    if (ngaps == Q_ARRAY_LEN(ciura)) {
        size_t next = ciura[Q_ARRAY_LEN(ciura) - 1];
        for (;;) {
            next = next * 9 / 4;
            if (next >= n || ngaps == Q_ARRAY_LEN(gaps))
                break;
            gaps[ngaps++] = next;
        }
    }
    for (k = (int)ngaps - 1; k >= 0; k--) {
        g = gaps[k];
        for (i = g; i < n; i++) {
            void *x = v[i];
            j = i;
            while (j >= g && CMP(v[j - g], x) > 0) {
                v[j] = v[j - g];
                MOVED(1);
                j -= g;
            }
            v[j] = x;
        }
    }
}

/* ---- radix (MSD, strings) ---------------------------------------------- */

static void radix_rec(char **v, char **tmp, size_t n, size_t depth, q_sort_stats *st)
{
    size_t count[257], start[257];
    size_t i, b;

    if (st && depth + 1 > st->max_depth)
        st->max_depth = depth + 1;
    if (n <= SMALL_RUN) {
        /* insertion sort on the remaining suffixes */
        for (i = 1; i < n; i++) {
            char *x = v[i];
            size_t j = i;
            while (j > 0) {
                if (st)
                    st->compares++;
                if (strcmp(v[j - 1] + depth, x + depth) <= 0)
                    break;
                v[j] = v[j - 1];
                j--;
            }
            v[j] = x;
        }
        return;
    }
    memset(count, 0, sizeof count);
    /* bucket 0 holds strings that end at this depth */
    for (i = 0; i < n; i++)
        count[(unsigned char)v[i][depth]]++;
    start[0] = 0;
    for (b = 1; b < 257; b++)
        start[b] = start[b - 1] + count[b - 1];
    for (i = 0; i < n; i++)
        tmp[start[(unsigned char)v[i][depth]]++] = v[i];
    memcpy(v, tmp, n * sizeof *v);
    if (st)
        st->moves += n;
    /* start[b] is now the end of bucket b; recurse into non-empty buckets */
    for (b = 1; b < 256; b++) {
        size_t len = count[b];
        if (len > 1)
            radix_rec(v + start[b] - len, tmp, len, depth + 1, st);
    }
}

void q_sort_radix(char **v, size_t n, q_sort_stats *st)
{
    char **tmp;
    if (n < 2)
        return;
    tmp = q_malloc(n * sizeof *tmp);
    radix_rec(v, tmp, n, 0, st);
    free(tmp);
}

void q_sort(q_sort_algo algo, void **v, size_t n, q_cmp_fn cmp, void *ctx,
            q_sort_stats *st)
{
    switch (algo) {
    case Q_SORT_INSERTION: q_sort_insertion(v, n, cmp, ctx, st); break;
    case Q_SORT_MERGE:     q_sort_merge(v, n, cmp, ctx, st); break;
    case Q_SORT_HEAP:      q_sort_heap(v, n, cmp, ctx, st); break;
    case Q_SORT_SHELL:     q_sort_shell(v, n, cmp, ctx, st); break;
    case Q_SORT_RADIX:
        /* radix sort only knows plain byte order; with a comparator
         * fall back to the other stable algorithm */
        if (cmp == NULL)
            q_sort_radix((char **)v, n, st);
        else
            q_sort_merge(v, n, cmp, ctx, st);
        break;
    case Q_SORT_QUICK:
    default:
        q_sort_quick(v, n, cmp, ctx, st);
        break;
    }
}

/* ---- utilities --------------------------------------------------------- */

int q_is_sorted(void *const *v, size_t n, q_cmp_fn cmp, void *ctx)
{
    size_t i;
    for (i = 1; i < n; i++) {
        if (cmp(v[i - 1], v[i], ctx) > 0)
            return 0;
    }
    return 1;
}

size_t q_unique(void **v, size_t n, q_cmp_fn cmp, void *ctx)
{
    size_t i, k;
    if (n == 0)
        return 0;
    for (i = 1, k = 1; i < n; i++) {
        if (cmp(v[k - 1], v[i], ctx) != 0)
            v[k++] = v[i];
    }
    return k;
}

void q_reverse(void **v, size_t n)
{
    size_t i;
    for (i = 0; i < n / 2; i++)
        swap_ptr(v, i, n - 1 - i);
}

void q_shuffle(void **v, size_t n, unsigned long long seed)
{
    unsigned long long x = seed ? seed : 0x9E3779B97F4A7C15ull;
    size_t i;
    for (i = n; i > 1; i--) {
        unsigned long long r;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        r = x * 0x2545F4914F6CDD1Dull;
        swap_ptr(v, i - 1, (size_t)(r % i));
    }
}

/* ---- line keys --------------------------------------------------------- */

void q_line_key_init(q_line_key *key)
{
    key->order = Q_ORDER_LEXICAL;
    key->field = 0;
    key->sep = 0;
    key->reverse = 0;
    key->skip_blanks = 0;
}

void q_line_key_extract(const q_line_key *key, const char *line,
                        const char **start, size_t *len)
{
    const char *p = line, *end;
    int f;

    if (key->field > 0) {
        for (f = 1; f < key->field && *p != '\0'; f++) {
            if (key->sep) {
                const char *s = strchr(p, key->sep);
                p = s ? s + 1 : p + strlen(p);
            } else {
                while (*p == ' ' || *p == '\t')
                    p++;
                while (*p != '\0' && *p != ' ' && *p != '\t')
                    p++;
            }
        }
        if (!key->sep) {
            while (*p == ' ' || *p == '\t')
                p++;
        }
        if (key->sep) {
            end = strchr(p, key->sep);
            if (end == NULL)
                end = p + strlen(p);
        } else {
            end = p;
            while (*end != '\0' && *end != ' ' && *end != '\t')
                end++;
        }
    } else {
        end = p + strlen(p);
    }
    if (key->skip_blanks) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
    }
    *start = p;
    *len = (size_t)(end - p);
}

static int compare_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, Q_MIN(alen, blen));
    if (c != 0)
        return c;
    return (alen > blen) - (alen < blen);
}

static int compare_fold(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i, n = Q_MIN(alen, blen);
    for (i = 0; i < n; i++) {
        int x = tolower((unsigned char)a[i]), y = tolower((unsigned char)b[i]);
        if (x != y)
            return x - y;
    }
    return (alen > blen) - (alen < blen);
}

static double leading_number(const char *s, size_t n, int *found)
{
    char buf[64];
    char *end;
    double v;
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i]))
        i++;
    n -= i;
    s += i;
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    v = strtod(buf, &end);
    *found = end != buf;
    return *found ? v : 0.0;
}

static int compare_numeric(const char *a, size_t alen, const char *b, size_t blen)
{
    int fa, fb;
    double x = leading_number(a, alen, &fa);
    double y = leading_number(b, blen, &fb);
    if (fa != fb)
        return fa ? 1 : -1;     /* lines without a number sort first */
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    return compare_bytes(a, alen, b, blen);
}

/* Compares runs of digits by value (ignoring leading zeros), everything
 * else bytewise. */
int q_compare_natural(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    while (i < alen && j < blen) {
        if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[j])) {
            size_t si, sj, li, lj;
            while (i < alen && a[i] == '0')
                i++;
            while (j < blen && b[j] == '0')
                j++;
            si = i;
            sj = j;
            while (i < alen && isdigit((unsigned char)a[i]))
                i++;
            while (j < blen && isdigit((unsigned char)b[j]))
                j++;
            li = i - si;
            lj = j - sj;
            if (li != lj)
                return li < lj ? -1 : 1;
            if (li > 0) {
                int c = memcmp(a + si, b + sj, li);
                if (c != 0)
                    return c;
            }
        } else {
            if (a[i] != b[j])
                return (unsigned char)a[i] - (unsigned char)b[j];
            i++;
            j++;
        }
    }
    return (alen - i > blen - j) - (alen - i < blen - j);
}

/* Version order, as in Debian's dpkg: runs of digits compare by value
 * ("1.2.10" > "1.2.9"), other characters by byte value, except that '~'
 * sorts before anything, even the end of the string, so a pre-release
 * comes first: "1.0~rc1" < "1.0" < "1.0.1".  Every position is compared
 * through a weight, which keeps the order transitive. */
static int version_weight(const char *s, size_t n, size_t i)
{
    if (i >= n)
        return 1;                       /* end of string */
    if (s[i] == '~')
        return 0;
    return (unsigned char)s[i] + 2;
}

int q_compare_version(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    while (i < alen || j < blen) {
        int wa, wb;
        if (i < alen && j < blen && isdigit((unsigned char)a[i])
            && isdigit((unsigned char)b[j])) {
            size_t si, sj, li, lj;
            while (i < alen && a[i] == '0')
                i++;
            while (j < blen && b[j] == '0')
                j++;
            si = i;
            sj = j;
            while (i < alen && isdigit((unsigned char)a[i]))
                i++;
            while (j < blen && isdigit((unsigned char)b[j]))
                j++;
            li = i - si;
            lj = j - sj;
            if (li != lj)
                return li < lj ? -1 : 1;
            if (li > 0) {
                int c = memcmp(a + si, b + sj, li);
                if (c != 0)
                    return c < 0 ? -1 : 1;
            }
            continue;
        }
        wa = version_weight(a, alen, i);
        wb = version_weight(b, blen, j);
        if (wa != wb)
            return wa < wb ? -1 : 1;
        i++;
        j++;
    }
    return 0;
}

int q_line_compare(const void *a, const void *b, void *ctx)
{
    const q_line_key *key = ctx;
    const char *ka, *kb;
    size_t la, lb;
    int c;

    q_line_key_extract(key, (const char *)a, &ka, &la);
    q_line_key_extract(key, (const char *)b, &kb, &lb);
    switch (key->order) {
    case Q_ORDER_FOLD:
        c = compare_fold(ka, la, kb, lb);
        if (c == 0)
            c = compare_bytes(ka, la, kb, lb);
        break;
    case Q_ORDER_NUMERIC:
        c = compare_numeric(ka, la, kb, lb);
        break;
    case Q_ORDER_NATURAL:
        c = q_compare_natural(ka, la, kb, lb);
        break;
    case Q_ORDER_LENGTH:
        c = (la > lb) - (la < lb);
        if (c == 0)
            c = compare_bytes(ka, la, kb, lb);
        break;
    case Q_ORDER_VERSION:
        c = q_compare_version(ka, la, kb, lb);
        break;
    case Q_ORDER_LEXICAL:
    default:
        c = compare_bytes(ka, la, kb, lb);
        break;
    }
    return key->reverse ? -c : c;
}
