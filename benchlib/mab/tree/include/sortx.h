/*
 * sortx.h - sorting arrays of pointers, and the line comparators used by
 * "quill sort".
 *
 * Several algorithms are provided so that their behaviour can be compared
 * on the same input (quill sort --algorithm=NAME --stats):
 *
 *   insertion  simple, stable, O(n^2); used for short runs by the others
 *   merge      top-down merge sort, stable, O(n log n), n extra pointers
 *   heap       in-place heap sort, not stable, O(n log n) worst case
 *   quick      introspective quicksort: median-of-three, insertion sort
 *              for small partitions, heap sort when recursion gets deep
 *   shell      Shell sort with Ciura's gap sequence
 *   radix      MSD radix sort on the bytes of C strings (lexical only)
 */
#ifndef QUILL_SORTX_H
#define QUILL_SORTX_H

#include <stddef.h>

typedef int (*q_cmp_fn)(const void *a, const void *b, void *ctx);

typedef enum q_sort_algo {
    Q_SORT_INSERTION,
    Q_SORT_MERGE,
    Q_SORT_HEAP,
    Q_SORT_QUICK,
    Q_SORT_SHELL,
    Q_SORT_RADIX,
    Q_SORT_ALGO_COUNT
} q_sort_algo;

/* Counters filled in by the sorts when a q_sort_stats is supplied. */
typedef struct q_sort_stats {
    unsigned long compares;
    unsigned long moves;
    unsigned long max_depth;
} q_sort_stats;

const char *q_sort_algo_name(q_sort_algo algo);
int q_sort_algo_lookup(const char *name, q_sort_algo *algo);
int q_sort_algo_stable(q_sort_algo algo);

void q_sort_insertion(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st);
void q_sort_merge(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st);
void q_sort_heap(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st);
void q_sort_quick(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st);
void q_sort_shell(void **v, size_t n, q_cmp_fn cmp, void *ctx, q_sort_stats *st);
/* Radix sort ignores cmp: it orders the pointed-to C strings bytewise. */
void q_sort_radix(char **v, size_t n, q_sort_stats *st);

void q_sort(q_sort_algo algo, void **v, size_t n, q_cmp_fn cmp, void *ctx,
            q_sort_stats *st);

/* Returns 1 when v[0..n) is in order according to cmp. */
int q_is_sorted(void *const *v, size_t n, q_cmp_fn cmp, void *ctx);

/* Removes adjacent duplicates in place; returns the new length. */
size_t q_unique(void **v, size_t n, q_cmp_fn cmp, void *ctx);

/* Reverses v[0..n) in place. */
void q_reverse(void **v, size_t n);

/* Shuffles with a small deterministic generator (xorshift64*). */
void q_shuffle(void **v, size_t n, unsigned long long seed);

/*
 * Line comparison.  A q_line_key describes how "quill sort" compares two
 * lines: an optional field selection, then one of several orderings.
 */
typedef enum q_order {
    Q_ORDER_LEXICAL,     /* strcmp */
    Q_ORDER_FOLD,        /* case-insensitive */
    Q_ORDER_NUMERIC,     /* leading number, then lexical */
    Q_ORDER_NATURAL,     /* "file9" < "file10" */
    Q_ORDER_LENGTH,      /* shorter first, then lexical */
    Q_ORDER_VERSION      /* version numbers: "1.9" < "1.10", "1.0~rc1" < "1.0" */
} q_order;

typedef struct q_line_key {
    q_order order;
    int field;           /* 1-based field number; 0 = whole line */
    char sep;            /* field separator; 0 = runs of blanks */
    int reverse;
    int skip_blanks;     /* ignore leading blanks of the key */
} q_line_key;

void q_line_key_init(q_line_key *key);

/* Comparator for char* elements, ctx is a const q_line_key*. */
int q_line_compare(const void *a, const void *b, void *ctx);

/* Extracts the key part of `line` as [*start, *start + *len). */
void q_line_key_extract(const q_line_key *key, const char *line,
                        const char **start, size_t *len);

int q_compare_natural(const char *a, size_t alen, const char *b, size_t blen);
int q_compare_version(const char *a, size_t alen, const char *b, size_t blen);

#endif /* QUILL_SORTX_H */
