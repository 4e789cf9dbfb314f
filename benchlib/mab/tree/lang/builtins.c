/*
 * builtins.c - the native function library of qx.
 *
 * Every builtin receives its arguments already evaluated and checked for
 * count (see the table at the end); type checks are done here, through
 * the want_* helpers, which report a runtime error naming the function
 * and the position of the offending argument.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checksum.h"
#include "lang.h"
#include "sortx.h"
#include "textio.h"

#define BUILTIN(name) \
    static qx_value bi_##name(qx_interp *in, int argc, qx_value *argv, int line)

/* name of the builtin being run, for messages (set by qx_call) */
#define CURRENT(in) ((in)->builtin_name ? (in)->builtin_name : "builtin")

/* ---- argument helpers -------------------------------------------------- */

static int want(qx_interp *in, qx_value *argv, int i, qv_type t, int line)
{
    if (argv[i].type == t)
        return 1;
    qx_runtime_error(in, line, "%s(): argument %d must be a %s, not %s", CURRENT(in),
                     i + 1, qv_type_name(t), qv_type_name(argv[i].type));
    return 0;
}

static int want_num(qx_interp *in, qx_value *argv, int i, double *out, int line)
{
    if (!want(in, argv, i, QV_NUM, line))
        return 0;
    *out = argv[i].as.n;
    return 1;
}

static int want_int(qx_interp *in, qx_value *argv, int i, long *out, int line)
{
    double d = 0.0;
    if (!want_num(in, argv, i, &d, line))
        return 0;
    if (d != floor(d) || fabs(d) > 9e15) {
        qx_runtime_error(in, line, "%s(): argument %d must be a whole number",
                         CURRENT(in), i + 1);
        return 0;
    }
    *out = (long)d;
    return 1;
}

static qx_string *want_str(qx_interp *in, qx_value *argv, int i, int line)
{
    return want(in, argv, i, QV_STR, line) ? QV_AS_STR(argv[i]) : NULL;
}

static qx_list *want_list(qx_interp *in, qx_value *argv, int i, int line)
{
    return want(in, argv, i, QV_LIST, line) ? QV_AS_LIST(argv[i]) : NULL;
}

static int is_callable(qx_value v)
{
    return v.type == QV_FN || v.type == QV_BUILTIN;
}

static qx_value sb_value(qx_interp *in, q_strbuf *sb)
{
    qx_value v = qv_str(in, sb->data, sb->len);
    q_sb_free(sb);
    return v;
}

/* ---- general ----------------------------------------------------------- */

BUILTIN(len)
{
    (void)argc;
    switch (argv[0].type) {
    case QV_STR:  return qv_num((double)QV_AS_STR(argv[0])->len);  /* bytes */
    case QV_LIST: return qv_num((double)QV_AS_LIST(argv[0])->len);
    default:
        qx_runtime_error(in, line, "len(): a %s has no length",
                         qv_type_name(argv[0].type));
        return qv_nil();
    }
}

BUILTIN(ulen)
{
    qx_string *s = want_str(in, argv, 0, line);
    (void)argc;
    if (s == NULL)
        return qv_nil();
    return qv_num((double)q_utf8_length(s->chars, s->len));
}

BUILTIN(str)
{
    q_strbuf sb;
    (void)argc; (void)line;
    q_sb_init(&sb);
    qv_format(&sb, argv[0], 0);
    return sb_value(in, &sb);
}

BUILTIN(repr)
{
    q_strbuf sb;
    (void)argc; (void)line;
    q_sb_init(&sb);
    qv_format(&sb, argv[0], 1);
    return sb_value(in, &sb);
}

BUILTIN(num)
{
    double d = 0.0;
    (void)argc;
    switch (argv[0].type) {
    case QV_NUM:
        return argv[0];
    case QV_BOOL:
        return qv_num(argv[0].as.b);
    case QV_STR: {
        char *s = q_strdup(QV_AS_STR(argv[0])->chars);
        char *t = q_trim(s);
        int bad = q_parse_double(t, &d);
        free(s);
        return bad ? qv_nil() : qv_num(d);
    }
    default:
        qx_runtime_error(in, line, "num(): cannot convert a %s",
                         qv_type_name(argv[0].type));
        return qv_nil();
    }
}

BUILTIN(type)
{
    (void)argc; (void)line;
    return qv_cstr(in, qv_type_name(argv[0].type));
}

BUILTIN(assert)
{
    if (qv_truthy(argv[0]))
        return qv_bool(1);
    if (argc > 1 && argv[1].type == QV_STR)
        qx_runtime_error(in, line, "assertion failed: %s", QV_AS_STR(argv[1])->chars);
    else
        qx_runtime_error(in, line, "assertion failed");
    return qv_nil();
}

BUILTIN(error)
{
    q_strbuf sb;
    (void)argc;
    q_sb_init(&sb);
    qv_format(&sb, argv[0], 0);
    qx_runtime_error(in, line, "%s", sb.data);
    q_sb_free(&sb);
    return qv_nil();
}

/* ---- numbers ----------------------------------------------------------- */

typedef double (*math1_fn)(double);

static qx_value math1(qx_interp *in, qx_value *argv, int line, math1_fn f)
{
    double x = 0.0;
    if (!want_num(in, argv, 0, &x, line))
        return qv_nil();
    return qv_num(f(x));
}

static double round_half_away(double x)
{
    return x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
}

BUILTIN(abs)   { (void)argc; return math1(in, argv, line, fabs); }
BUILTIN(floor) { (void)argc; return math1(in, argv, line, floor); }
BUILTIN(ceil)  { (void)argc; return math1(in, argv, line, ceil); }
BUILTIN(round) { (void)argc; return math1(in, argv, line, round_half_away); }
BUILTIN(sin)   { (void)argc; return math1(in, argv, line, sin); }
BUILTIN(cos)   { (void)argc; return math1(in, argv, line, cos); }
BUILTIN(tan)   { (void)argc; return math1(in, argv, line, tan); }
BUILTIN(atan)  { (void)argc; return math1(in, argv, line, atan); }
BUILTIN(exp)   { (void)argc; return math1(in, argv, line, exp); }

BUILTIN(sqrt)
{
    double x = 0.0;
    (void)argc;
    if (!want_num(in, argv, 0, &x, line))
        return qv_nil();
    if (x < 0) {
        qx_runtime_error(in, line, "sqrt(): negative argument");
        return qv_nil();
    }
    return qv_num(sqrt(x));
}

BUILTIN(log)
{
    double x, base = 0;
    if (!want_num(in, argv, 0, &x, line))
        return qv_nil();
    if (argc > 1 && !want_num(in, argv, 1, &base, line))
        return qv_nil();
    if (x <= 0) {
        qx_runtime_error(in, line, "log(): argument must be positive");
        return qv_nil();
    }
    if (argc > 1) {
        if (base <= 0 || base == 1) {
            qx_runtime_error(in, line, "log(): invalid base");
            return qv_nil();
        }
        return qv_num(log(x) / log(base));
    }
    return qv_num(log(x));
}

BUILTIN(pow)
{
    double x = 0.0, y = 0.0;
    (void)argc;
    if (!want_num(in, argv, 0, &x, line) || !want_num(in, argv, 1, &y, line))
        return qv_nil();
    return qv_num(pow(x, y));
}

static qx_value extreme(qx_interp *in, int argc, qx_value *argv, int line, int sign)
{
    qx_value *items = argv, best;
    size_t n = (size_t)argc, i;
    int ok;

    if (argc == 1 && argv[0].type == QV_LIST) {
        items = QV_AS_LIST(argv[0])->items;
        n = QV_AS_LIST(argv[0])->len;
    }
    if (n == 0) {
        qx_runtime_error(in, line, "%s(): no values", CURRENT(in));
        return qv_nil();
    }
    best = items[0];
    for (i = 1; i < n; i++) {
        int c = qv_compare(items[i], best, &ok);
        if (!ok) {
            qx_runtime_error(in, line, "%s(): values cannot be compared", CURRENT(in));
            return qv_nil();
        }
        if (c * sign > 0)
            best = items[i];
    }
    return best;
}

BUILTIN(min) { return extreme(in, argc, argv, line, -1); }
BUILTIN(max) { return extreme(in, argc, argv, line, 1); }

BUILTIN(fmt)
{
    double x = 0.0;
    long digits = 2;
    char buf[64];
    if (!want_num(in, argv, 0, &x, line))
        return qv_nil();
    if (argc > 1 && !want_int(in, argv, 1, &digits, line))
        return qv_nil();
    if (digits < 0 || digits > 20) {
        qx_runtime_error(in, line, "fmt(): digits must be 0..20");
        return qv_nil();
    }
    snprintf(buf, sizeof buf, "%.*f", (int)digits, x);
    return qv_cstr(in, buf);
}

BUILTIN(range)
{
    long a = 0, b = 0, step = 1, k;
    qx_list *l;
    if (argc == 1) {
        if (!want_int(in, argv, 0, &b, line))
            return qv_nil();
    } else {
        if (!want_int(in, argv, 0, &a, line) || !want_int(in, argv, 1, &b, line))
            return qv_nil();
        if (argc > 2 && !want_int(in, argv, 2, &step, line))
            return qv_nil();
    }
    if (step == 0) {
        qx_runtime_error(in, line, "range(): step must not be zero");
        return qv_nil();
    }
    if ((b - a) / step > 10000000L) {
        qx_runtime_error(in, line, "range(): too many elements");
        return qv_nil();
    }
    l = qx_list_new(in, 0);
    if (step > 0) {
        for (k = a; k < b; k += step)
            qx_list_push(l, qv_num((double)k));
    } else {
        for (k = a; k > b; k += step)
            qx_list_push(l, qv_num((double)k));
    }
    return qv_obj(&l->hdr);
}

/* ---- strings ----------------------------------------------------------- */

BUILTIN(upper)
{
    qx_string *s = want_str(in, argv, 0, line);
    q_strbuf sb;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    q_sb_init(&sb);
    q_sb_appendn(&sb, s->chars, s->len);
    q_sb_to_upper(&sb);
    return sb_value(in, &sb);
}

BUILTIN(lower)
{
    qx_string *s = want_str(in, argv, 0, line);
    q_strbuf sb;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    q_sb_init(&sb);
    q_utf8_fold(&sb, s->chars, s->len);
    return sb_value(in, &sb);
}

BUILTIN(trim)
{
    qx_string *s = want_str(in, argv, 0, line);
    q_strbuf sb;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    q_sb_init(&sb);
    q_sb_appendn(&sb, s->chars, s->len);
    q_sb_trim(&sb);
    return sb_value(in, &sb);
}

BUILTIN(substr)
{
    qx_string *s = want_str(in, argv, 0, line);
    long start = 0, count = 0;
    if (s == NULL || !want_int(in, argv, 1, &start, line))
        return qv_nil();
    if (start < 0)
        start += (long)s->len;
    if (start < 0)
        start = 0;
    if ((size_t)start > s->len)
        start = (long)s->len;
    count = (long)s->len - start;
    if (argc > 2) {
        if (!want_int(in, argv, 2, &count, line))
            return qv_nil();
        if (count < 0)
            count = 0;
        if ((size_t)(start + count) > s->len)
            count = (long)s->len - start;
    }
    return qv_str(in, s->chars + start, (size_t)count);
}

BUILTIN(find)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_string *needle = s ? want_str(in, argv, 1, line) : NULL;
    size_t i;
    (void)argc;
    if (needle == NULL)
        return qv_nil();
    if (needle->len == 0)
        return qv_num(0);
    for (i = 0; i + needle->len <= s->len; i++) {
        if (memcmp(s->chars + i, needle->chars, needle->len) == 0)
            return qv_num((double)i);
    }
    return qv_num(-1);
}

BUILTIN(replace)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_string *from = s ? want_str(in, argv, 1, line) : NULL;
    qx_string *to = from ? want_str(in, argv, 2, line) : NULL;
    q_strbuf sb;
    (void)argc;
    if (to == NULL)
        return qv_nil();
    q_sb_init(&sb);
    q_sb_appendn(&sb, s->chars, s->len);
    q_sb_replace_all(&sb, from->chars, to->chars);
    return sb_value(in, &sb);
}

BUILTIN(startswith)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_string *p = s ? want_str(in, argv, 1, line) : NULL;
    (void)argc;
    if (p == NULL)
        return qv_nil();
    return qv_bool(p->len <= s->len && memcmp(s->chars, p->chars, p->len) == 0);
}

BUILTIN(endswith)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_string *p = s ? want_str(in, argv, 1, line) : NULL;
    (void)argc;
    if (p == NULL)
        return qv_nil();
    return qv_bool(p->len <= s->len
                   && memcmp(s->chars + s->len - p->len, p->chars, p->len) == 0);
}

BUILTIN(split)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_list *l;
    if (s == NULL)
        return qv_nil();
    l = qx_list_new(in, 0);
    if (argc > 1) {
        qx_string *sep = want_str(in, argv, 1, line);
        const char *p = s->chars, *end = s->chars + s->len;
        if (sep == NULL)
            return qv_nil();
        if (sep->len == 0) {
            qx_runtime_error(in, line, "split(): empty separator");
            return qv_nil();
        }
        for (;;) {
            const char *q = p;
            while (q + sep->len <= end && memcmp(q, sep->chars, sep->len) != 0)
                q++;
            if (q + sep->len > end) {
                qx_list_push(l, qv_str(in, p, (size_t)(end - p)));
                break;
            }
            qx_list_push(l, qv_str(in, p, (size_t)(q - p)));
            p = q + sep->len;
        }
    } else {
        q_words w;
        const char *word;
        size_t wlen;
        q_words_init(&w, s->chars, s->len, Q_WORDS_BLANK);
        while (q_words_next(&w, &word, &wlen))
            qx_list_push(l, qv_str(in, word, wlen));
    }
    return qv_obj(&l->hdr);
}

BUILTIN(words)
{
    qx_string *s = want_str(in, argv, 0, line);
    qx_list *l;
    q_words w;
    const char *word;
    size_t wlen;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    l = qx_list_new(in, 0);
    q_words_init(&w, s->chars, s->len, Q_WORDS_ALNUM);
    while (q_words_next(&w, &word, &wlen))
        qx_list_push(l, qv_str(in, word, wlen));
    return qv_obj(&l->hdr);
}

BUILTIN(join)
{
    qx_list *l = want_list(in, argv, 0, line);
    q_strbuf sb;
    size_t i;
    const char *sep = "";
    if (l == NULL)
        return qv_nil();
    if (argc > 1) {
        qx_string *s = want_str(in, argv, 1, line);
        if (s == NULL)
            return qv_nil();
        sep = s->chars;
    }
    q_sb_init(&sb);
    for (i = 0; i < l->len; i++) {
        if (i > 0)
            q_sb_append(&sb, sep);
        qv_format(&sb, l->items[i], 0);
    }
    return sb_value(in, &sb);
}

BUILTIN(ord)
{
    qx_string *s = want_str(in, argv, 0, line);
    size_t adv;
    long cp;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    if (s->len == 0) {
        qx_runtime_error(in, line, "ord(): empty string");
        return qv_nil();
    }
    cp = q_utf8_decode((const unsigned char *)s->chars, s->len, &adv);
    return qv_num(cp < 0 ? (double)(unsigned char)s->chars[0] : (double)cp);
}

BUILTIN(chr)
{
    long cp = 0;
    char buf[4];
    size_t n;
    (void)argc;
    if (!want_int(in, argv, 0, &cp, line))
        return qv_nil();
    if (cp < 0 || cp > 0x10FFFF || (n = q_utf8_encode((uint32_t)cp, buf)) == 0) {
        qx_runtime_error(in, line, "chr(): invalid code point %ld", cp);
        return qv_nil();
    }
    return qv_str(in, buf, n);
}

BUILTIN(glob)
{
    qx_string *pat = want_str(in, argv, 0, line);
    qx_string *s = pat ? want_str(in, argv, 1, line) : NULL;
    int r;
    (void)argc;
    if (s == NULL)
        return qv_nil();
    r = q_glob_match(pat->chars, s->chars, 0);
    if (r < 0) {
        qx_runtime_error(in, line, "glob(): malformed pattern");
        return qv_nil();
    }
    return qv_bool(r);
}

BUILTIN(crc32)
{
    qx_string *s = want_str(in, argv, 0, line);
    (void)argc;
    if (s == NULL)
        return qv_nil();
    return qv_num((double)q_crc32(s->chars, s->len));
}

BUILTIN(hex)
{
    long v = 0;
    char buf[32];
    (void)argc;
    if (!want_int(in, argv, 0, &v, line))
        return qv_nil();
    if (v < 0)
        snprintf(buf, sizeof buf, "-0x%lx", (unsigned long)-v);
    else
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)v);
    return qv_cstr(in, buf);
}

/* ---- lists ------------------------------------------------------------- */

BUILTIN(push)
{
    qx_list *l = want_list(in, argv, 0, line);
    int i;
    if (l == NULL)
        return qv_nil();
    for (i = 1; i < argc; i++)
        qx_list_push(l, argv[i]);
    return argv[0];
}

BUILTIN(pop)
{
    qx_list *l = want_list(in, argv, 0, line);
    (void)argc;
    if (l == NULL)
        return qv_nil();
    if (l->len == 0) {
        qx_runtime_error(in, line, "pop(): empty list");
        return qv_nil();
    }
    return qx_list_pop(l);
}

BUILTIN(reverse)
{
    qx_list *src = want_list(in, argv, 0, line), *l;
    size_t i;
    (void)argc;
    if (src == NULL)
        return qv_nil();
    l = qx_list_new(in, src->len);
    for (i = src->len; i-- > 0;)
        qx_list_push(l, src->items[i]);
    return qv_obj(&l->hdr);
}

BUILTIN(sum)
{
    qx_list *l = want_list(in, argv, 0, line);
    double total = 0.0, c = 0.0;
    size_t i;
    (void)argc;
    if (l == NULL)
        return qv_nil();
    /* Kahan summation */
    for (i = 0; i < l->len; i++) {
        double y, t;
        if (l->items[i].type != QV_NUM) {
            qx_runtime_error(in, line, "sum(): element %lu is a %s", (unsigned long)i,
                             qv_type_name(l->items[i].type));
            return qv_nil();
        }
        y = l->items[i].as.n - c;
        t = total + y;
        c = (t - total) - y;
        total = t;
    }
    return qv_num(total);
}

struct sort_ctx {
    qx_interp *in;
    qx_value fn;
    int has_fn;
    int line;
};

static int value_cmp(const void *a, const void *b, void *vctx)
{
    struct sort_ctx *ctx = vctx;
    const qx_value *x = a, *y = b;
    int ok, c;

    if (ctx->in->status != QX_RUN)
        return 0;
    if (ctx->has_fn) {
        qx_value args[2], r;
        args[0] = *x;
        args[1] = *y;
        r = qx_call(ctx->in, ctx->fn, 2, args, ctx->line);
        if (ctx->in->status != QX_RUN)
            return 0;
        if (r.type == QV_BOOL)
            return r.as.b ? -1 : 1;     /* "less than" predicate */
        if (r.type == QV_NUM)
            return (r.as.n > 0) - (r.as.n < 0);
        qx_runtime_error(ctx->in, ctx->line, "sort(): comparator returned a %s",
                         qv_type_name(r.type));
        return 0;
    }
    c = qv_compare(*x, *y, &ok);
    if (!ok)
        qx_runtime_error(ctx->in, ctx->line, "sort(): cannot compare %s with %s",
                         qv_type_name(x->type), qv_type_name(y->type));
    return c;
}

BUILTIN(sort)
{
    qx_list *src = want_list(in, argv, 0, line), *l;
    struct sort_ctx ctx;
    void **ptrs;
    size_t i;

    if (src == NULL)
        return qv_nil();
    ctx.in = in;
    ctx.line = line;
    ctx.has_fn = argc > 1;
    ctx.fn = argc > 1 ? argv[1] : qv_nil();
    if (ctx.has_fn && !is_callable(ctx.fn)) {
        qx_runtime_error(in, line, "sort(): the comparator must be a function");
        return qv_nil();
    }
    ptrs = q_malloc((src->len ? src->len : 1) * sizeof *ptrs);
    for (i = 0; i < src->len; i++)
        ptrs[i] = &src->items[i];
    q_sort_merge(ptrs, src->len, value_cmp, &ctx, NULL);
    l = qx_list_new(in, src->len);
    for (i = 0; i < src->len; i++)
        qx_list_push(l, *(qx_value *)ptrs[i]);
    free(ptrs);
    if (in->status != QX_RUN)
        return qv_nil();
    return qv_obj(&l->hdr);
}

BUILTIN(map)
{
    qx_list *src = want_list(in, argv, 0, line), *l;
    size_t i;
    (void)argc;
    if (src == NULL)
        return qv_nil();
    if (!is_callable(argv[1])) {
        qx_runtime_error(in, line, "map(): second argument must be a function");
        return qv_nil();
    }
    l = qx_list_new(in, src->len);
    for (i = 0; i < src->len; i++) {
        qx_value v = qx_call(in, argv[1], 1, &src->items[i], line);
        if (in->status != QX_RUN)
            return qv_nil();
        qx_list_push(l, v);
    }
    return qv_obj(&l->hdr);
}

BUILTIN(filter)
{
    qx_list *src = want_list(in, argv, 0, line), *l;
    size_t i;
    (void)argc;
    if (src == NULL)
        return qv_nil();
    if (!is_callable(argv[1])) {
        qx_runtime_error(in, line, "filter(): second argument must be a function");
        return qv_nil();
    }
    l = qx_list_new(in, 0);
    for (i = 0; i < src->len; i++) {
        qx_value keep = qx_call(in, argv[1], 1, &src->items[i], line);
        if (in->status != QX_RUN)
            return qv_nil();
        if (qv_truthy(keep))
            qx_list_push(l, src->items[i]);
    }
    return qv_obj(&l->hdr);
}

BUILTIN(reduce)
{
    qx_list *src = want_list(in, argv, 0, line);
    qx_value acc;
    size_t i = 0;
    if (src == NULL)
        return qv_nil();
    if (!is_callable(argv[1])) {
        qx_runtime_error(in, line, "reduce(): second argument must be a function");
        return qv_nil();
    }
    if (argc > 2) {
        acc = argv[2];
    } else {
        if (src->len == 0) {
            qx_runtime_error(in, line, "reduce(): empty list and no initial value");
            return qv_nil();
        }
        acc = src->items[i++];
    }
    for (; i < src->len; i++) {
        qx_value args[2];
        args[0] = acc;
        args[1] = src->items[i];
        acc = qx_call(in, argv[1], 2, args, line);
        if (in->status != QX_RUN)
            return qv_nil();
    }
    return acc;
}

BUILTIN(contains)
{
    size_t i;
    (void)argc;
    if (argv[0].type == QV_STR && argv[1].type == QV_STR) {
        qx_string *s = QV_AS_STR(argv[0]), *t = QV_AS_STR(argv[1]);
        for (i = 0; i + t->len <= s->len; i++) {
            if (memcmp(s->chars + i, t->chars, t->len) == 0)
                return qv_bool(1);
        }
        return qv_bool(0);
    }
    if (argv[0].type == QV_LIST) {
        qx_list *l = QV_AS_LIST(argv[0]);
        for (i = 0; i < l->len; i++) {
            if (qv_equal(l->items[i], argv[1]))
                return qv_bool(1);
        }
        return qv_bool(0);
    }
    qx_runtime_error(in, line, "contains(): expects a list, or two strings");
    return qv_nil();
}

/* ---- table ------------------------------------------------------------- */

struct builtin_def {
    const char *name;
    int min_args, max_args;
    qx_native_fn fn;
};

static const struct builtin_def builtin_table[] = {
    { "len", 1, 1, bi_len },          { "ulen", 1, 1, bi_ulen },
    { "str", 1, 1, bi_str },
    { "repr", 1, 1, bi_repr },        { "num", 1, 1, bi_num },
    { "type", 1, 1, bi_type },        { "assert", 1, 2, bi_assert },
    { "error", 1, 1, bi_error },      { "abs", 1, 1, bi_abs },
    { "floor", 1, 1, bi_floor },      { "ceil", 1, 1, bi_ceil },
    { "round", 1, 1, bi_round },      { "sin", 1, 1, bi_sin },
    { "cos", 1, 1, bi_cos },          { "tan", 1, 1, bi_tan },
    { "atan", 1, 1, bi_atan },        { "exp", 1, 1, bi_exp },
    { "sqrt", 1, 1, bi_sqrt },        { "log", 1, 2, bi_log },
    { "pow", 2, 2, bi_pow },          { "min", 1, -1, bi_min },
    { "max", 1, -1, bi_max },         { "fmt", 1, 2, bi_fmt },
    { "range", 1, 3, bi_range },      { "upper", 1, 1, bi_upper },
    { "lower", 1, 1, bi_lower },      { "trim", 1, 1, bi_trim },
    { "substr", 2, 3, bi_substr },    { "find", 2, 2, bi_find },
    { "replace", 3, 3, bi_replace },  { "startswith", 2, 2, bi_startswith },
    { "endswith", 2, 2, bi_endswith }, { "split", 1, 2, bi_split },
    { "words", 1, 1, bi_words },      { "join", 1, 2, bi_join },
    { "ord", 1, 1, bi_ord },          { "chr", 1, 1, bi_chr },
    { "glob", 2, 2, bi_glob },        { "crc32", 1, 1, bi_crc32 },
    { "hex", 1, 1, bi_hex },          { "push", 2, -1, bi_push },
    { "pop", 1, 1, bi_pop },          { "reverse", 1, 1, bi_reverse },
    { "sum", 1, 1, bi_sum },          { "sort", 1, 2, bi_sort },
    { "map", 2, 2, bi_map },          { "filter", 2, 2, bi_filter },
    { "reduce", 2, 3, bi_reduce },    { "contains", 2, 2, bi_contains }
};

size_t qx_builtin_count(void)
{
    return Q_ARRAY_LEN(builtin_table);
}

const char *qx_builtin_name(size_t i)
{
    return i < Q_ARRAY_LEN(builtin_table) ? builtin_table[i].name : NULL;
}

void qx_install_builtins(qx_interp *in)
{
    size_t i;
    for (i = 0; i < Q_ARRAY_LEN(builtin_table); i++) {
        const struct builtin_def *d = &builtin_table[i];
        qx_builtin *b = qx_builtin_new(in, d->name, d->min_args, d->max_args,
                                       d->fn);
        qx_env_define(in->globals, d->name, qv_obj(&b->hdr));
    }
    qx_env_define(in->globals, "pi", qv_num(3.14159265358979323846));
    qx_env_define(in->globals, "e", qv_num(2.71828182845904523536));
    qx_env_define(in->globals, "version", qv_cstr(in, QUILL_VERSION));
}
