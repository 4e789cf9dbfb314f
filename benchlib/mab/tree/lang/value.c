/*
 * value.c - the qx value model.
 *
 * Numbers, booleans and nil are stored inline in a qx_value.  Strings,
 * lists and functions are heap objects linked into the interpreter's
 * object list; they live until the interpreter is freed.  (Scripts run by
 * "quill calc" are short, so there is no garbage collector.)
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"

qx_value qv_nil(void)
{
    qx_value v;
    v.type = QV_NIL;
    v.as.n = 0.0;
    return v;
}

qx_value qv_bool(int b)
{
    qx_value v;
    v.type = QV_BOOL;
    v.as.b = b != 0;
    return v;
}

qx_value qv_num(double n)
{
    qx_value v;
    v.type = QV_NUM;
    v.as.n = n;
    return v;
}

qx_value qv_obj(qx_obj *o)
{
    qx_value v;
    v.type = o->type;
    v.as.o = o;
    return v;
}

static void *obj_alloc(qx_interp *in, size_t size, qv_type type)
{
    qx_obj *o = q_malloc(size);
    o->type = type;
    o->next = in->objects;
    in->objects = o;
    in->nobjects++;
    in->bytes_allocated += size;
    return o;
}

qx_string *qx_string_new(qx_interp *in, const char *s, size_t n)
{
    qx_string *str = obj_alloc(in, sizeof *str + n + 1, QV_STR);
    str->len = n;
    if (n > 0)
        memcpy(str->chars, s, n);
    str->chars[n] = '\0';
    str->hash = q_hash_bytes(s, n, 0);
    return str;
}

qx_value qv_str(qx_interp *in, const char *s, size_t n)
{
    return qv_obj(&qx_string_new(in, s, n)->hdr);
}

qx_value qv_cstr(qx_interp *in, const char *s)
{
    return qv_str(in, s, strlen(s));
}

qx_list *qx_list_new(qx_interp *in, size_t cap)
{
    qx_list *l = obj_alloc(in, sizeof *l, QV_LIST);
    l->len = 0;
    l->cap = cap;
    l->items = cap ? q_malloc(cap * sizeof *l->items) : NULL;
    return l;
}

void qx_list_push(qx_list *l, qx_value v)
{
    l->items = q_grow_array(l->items, &l->cap, l->len + 1, sizeof *l->items);
    l->items[l->len++] = v;
}

qx_value qx_list_pop(qx_list *l)
{
    if (l->len == 0)
        return qv_nil();
    return l->items[--l->len];
}

qx_function *qx_function_new(qx_interp *in, const qx_node *decl, qx_env *closure)
{
    qx_function *f = obj_alloc(in, sizeof *f, QV_FN);
    f->decl = decl;
    f->closure = closure;
    return f;
}

qx_builtin *qx_builtin_new(qx_interp *in, const char *name, int min_args,
                           int max_args, qx_native_fn fn)
{
    qx_builtin *b = obj_alloc(in, sizeof *b, QV_BUILTIN);
    b->name = name;
    b->min_args = min_args;
    b->max_args = max_args;
    b->fn = fn;
    return b;
}

void qx_obj_free(qx_obj *o)
{
    if (o->type == QV_LIST)
        free(((qx_list *)o)->items);
    free(o);
}

/* ---- predicates -------------------------------------------------------- */

const char *qv_type_name(qv_type t)
{
    switch (t) {
    case QV_NIL:     return "nil";
    case QV_BOOL:    return "bool";
    case QV_NUM:     return "number";
    case QV_STR:     return "string";
    case QV_LIST:    return "list";
    case QV_FN:      return "function";
    case QV_BUILTIN: return "builtin";
    }
    return "?";
}

int qv_truthy(qx_value v)
{
    switch (v.type) {
    case QV_NIL:  return 0;
    case QV_BOOL: return v.as.b;
    case QV_NUM:  return v.as.n != 0.0 && !isnan(v.as.n);
    case QV_STR:  return QV_AS_STR(v)->len > 0;
    case QV_LIST: return QV_AS_LIST(v)->len > 0;
    default:      return 1;
    }
}

static int list_equal(const qx_list *a, const qx_list *b, int depth)
{
    size_t i;
    if (a == b)
        return 1;
    if (a->len != b->len || depth > 64)
        return 0;
    for (i = 0; i < a->len; i++) {
        qx_value x = a->items[i], y = b->items[i];
        if (x.type == QV_LIST && y.type == QV_LIST) {
            if (!list_equal(QV_AS_LIST(x), QV_AS_LIST(y), depth + 1))
                return 0;
        } else if (!qv_equal(x, y)) {
            return 0;
        }
    }
    return 1;
}

int qv_equal(qx_value a, qx_value b)
{
    if (a.type != b.type)
        return 0;
    switch (a.type) {
    case QV_NIL:  return 1;
    case QV_BOOL: return a.as.b == b.as.b;
    case QV_NUM:  return a.as.n == b.as.n;
    case QV_STR: {
        qx_string *x = QV_AS_STR(a), *y = QV_AS_STR(b);
        return x->len == y->len && x->hash == y->hash
            && memcmp(x->chars, y->chars, x->len) == 0;
    }
    case QV_LIST:
        return list_equal(QV_AS_LIST(a), QV_AS_LIST(b), 0);
    default:
        return a.as.o == b.as.o;
    }
}

int qv_compare(qx_value a, qx_value b, int *ok)
{
    *ok = 1;
    if (a.type == QV_NUM && b.type == QV_NUM)
        return (a.as.n > b.as.n) - (a.as.n < b.as.n);
    if (a.type == QV_STR && b.type == QV_STR) {
        qx_string *x = QV_AS_STR(a), *y = QV_AS_STR(b);
        int c = memcmp(x->chars, y->chars, Q_MIN(x->len, y->len));
        if (c != 0)
            return c < 0 ? -1 : 1;
        return (x->len > y->len) - (x->len < y->len);
    }
    if (a.type == QV_LIST && b.type == QV_LIST) {
        qx_list *x = QV_AS_LIST(a), *y = QV_AS_LIST(b);
        size_t i;
        for (i = 0; i < x->len && i < y->len; i++) {
            int c = qv_compare(x->items[i], y->items[i], ok);
            if (!*ok || c != 0)
                return c;
        }
        return (x->len > y->len) - (x->len < y->len);
    }
    if (a.type == QV_BOOL && b.type == QV_BOOL)
        return a.as.b - b.as.b;
    *ok = 0;
    return 0;
}

/* ---- formatting -------------------------------------------------------- */

void qv_format_number(q_strbuf *out, double n)
{
    char buf[64];
    if (isnan(n)) {
        q_sb_append(out, "nan");
        return;
    }
    if (isinf(n)) {
        q_sb_append(out, n > 0 ? "inf" : "-inf");
        return;
    }
    /* integers print without a fraction */
    if (n == floor(n) && fabs(n) < 1e15) {
        snprintf(buf, sizeof buf, "%.0f", n);
        if (strcmp(buf, "-0") == 0)
            strcpy(buf, "0");
    } else {
        /* shortest of %.15g .. %.17g that reads back exactly */
        int prec;
        for (prec = 15; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*g", prec, n);
            if (strtod(buf, NULL) == n)
                break;
        }
    }
    q_sb_append(out, buf);
}

static void format_rec(q_strbuf *out, qx_value v, int repr, int depth)
{
    size_t i;
    switch (v.type) {
    case QV_NIL:
        q_sb_append(out, "nil");
        break;
    case QV_BOOL:
        q_sb_append(out, v.as.b ? "true" : "false");
        break;
    case QV_NUM:
        qv_format_number(out, v.as.n);
        break;
    case QV_STR:
        if (repr)
            q_sb_append_escaped(out, QV_AS_STR(v)->chars, QV_AS_STR(v)->len, '"');
        else
            q_sb_appendn(out, QV_AS_STR(v)->chars, QV_AS_STR(v)->len);
        break;
    case QV_LIST: {
        qx_list *l = QV_AS_LIST(v);
        if (depth > 16) {
            q_sb_append(out, "[...]");
            break;
        }
        q_sb_putc(out, '[');
        for (i = 0; i < l->len; i++) {
            if (i > 0)
                q_sb_append(out, ", ");
            format_rec(out, l->items[i], 1, depth + 1);
        }
        q_sb_putc(out, ']');
        break;
    }
    case QV_FN: {
        const qx_node *d = QV_AS_FN(v)->decl;
        if (d->u.fn.name != NULL)
            q_sb_printf(out, "<fn %s/%lu>", d->u.fn.name, (unsigned long)d->u.fn.nparams);
        else
            q_sb_printf(out, "<lambda/%lu at line %d>", (unsigned long)d->u.fn.nparams,
                        d->line);
        break;
    }
    case QV_BUILTIN:
        q_sb_printf(out, "<builtin %s>", QV_AS_BUILTIN(v)->name);
        break;
    }
}

void qv_format(q_strbuf *out, qx_value v, int repr)
{
    format_rec(out, v, repr, 0);
}
