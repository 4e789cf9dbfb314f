/*
 * ast.c - syntax tree construction, printing, statistics and constant
 * folding for qx.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lang.h"

static const char *const kind_names[QN_KIND_COUNT] = {
    "num", "str", "bool", "nil", "var", "list",
    "unary", "binary", "logical", "range",
    "assign", "index", "index-assign", "call", "lambda",
    "let", "expr", "print", "block", "if", "while", "for",
    "return", "break", "continue", "fn"
};

const char *qx_kind_name(qx_kind kind)
{
    return (unsigned)kind < QN_KIND_COUNT ? kind_names[kind] : "?";
}

int qx_is_expression(const qx_node *n)
{
    return n->kind <= QN_LAMBDA;
}

qx_node *qx_node_new(q_arena *a, qx_kind kind, int line)
{
    qx_node *n = q_arena_zalloc(a, sizeof *n);
    n->kind = kind;
    n->line = line;
    return n;
}

qx_node **qx_nodes_copy(q_arena *a, qx_node **items, size_t n)
{
    if (n == 0)
        return NULL;
    return q_arena_memdup(a, items, n * sizeof *items);
}

/* ---- child traversal --------------------------------------------------- */

typedef void (*child_fn)(qx_node *child, void *ctx);

static void visit_list(const qx_nodelist *l, child_fn fn, void *ctx)
{
    size_t i;
    for (i = 0; i < l->len; i++)
        fn(l->items[i], ctx);
}

static void visit_children(const qx_node *n, child_fn fn, void *ctx)
{
#define VISIT(c) do { if ((c) != NULL) fn((c), ctx); } while (0)
    switch (n->kind) {
    case QN_NUM: case QN_STR: case QN_BOOL: case QN_NIL: case QN_VAR:
    case QN_BREAK: case QN_CONTINUE:
        break;
    case QN_LIST: case QN_BLOCK: case QN_PRINT:
        visit_list(&n->u.list, fn, ctx);
        break;
    case QN_UNARY:
        VISIT(n->u.unary.operand);
        break;
    case QN_BINARY: case QN_LOGICAL: case QN_RANGE:
        VISIT(n->u.binary.left);
        VISIT(n->u.binary.right);
        break;
    case QN_ASSIGN:
        VISIT(n->u.assign.value);
        break;
    case QN_INDEX: case QN_INDEX_ASSIGN:
        VISIT(n->u.index.target);
        VISIT(n->u.index.index);
        VISIT(n->u.index.value);
        break;
    case QN_CALL:
        VISIT(n->u.call.callee);
        visit_list(&n->u.call.args, fn, ctx);
        break;
    case QN_LAMBDA: case QN_FNDEF:
        VISIT(n->u.fn.body);
        break;
    case QN_LET:
        VISIT(n->u.let.value);
        break;
    case QN_EXPR: case QN_RETURN:
        VISIT(n->u.expr.expr);
        break;
    case QN_IF:
        VISIT(n->u.if_stmt.cond);
        VISIT(n->u.if_stmt.then_branch);
        VISIT(n->u.if_stmt.else_branch);
        break;
    case QN_WHILE:
        VISIT(n->u.while_stmt.cond);
        VISIT(n->u.while_stmt.body);
        break;
    case QN_FOR:
        VISIT(n->u.for_stmt.iter);
        VISIT(n->u.for_stmt.body);
        break;
    default:
        break;
    }
#undef VISIT
}

/* ---- dumping ----------------------------------------------------------- */

struct dump_ctx {
    q_strbuf *out;
    int indent;
};

static void dump_child(qx_node *child, void *ctx)
{
    struct dump_ctx *d = ctx;
    q_sb_putc(d->out, '\n');
    qx_dump(child, d->out, d->indent + 2);
}

void qx_dump(const qx_node *n, q_strbuf *out, int indent)
{
    struct dump_ctx d;
    size_t i;

    q_sb_repeat(out, ' ', (size_t)indent);
    if (n == NULL) {
        q_sb_append(out, "()");
        return;
    }
    q_sb_putc(out, '(');
    q_sb_append(out, qx_kind_name(n->kind));
    switch (n->kind) {
    case QN_NUM:
        q_sb_putc(out, ' ');
        qv_format_number(out, n->u.num);
        break;
    case QN_STR:
        q_sb_putc(out, ' ');
        q_sb_append_escaped(out, n->u.str.chars, n->u.str.len, '"');
        break;
    case QN_BOOL:
        q_sb_append(out, n->u.boolean ? " true" : " false");
        break;
    case QN_VAR:
        q_sb_printf(out, " %s", n->u.var.name);
        break;
    case QN_UNARY:
        q_sb_printf(out, " %s", qx_tok_name(n->u.unary.op));
        break;
    case QN_BINARY: case QN_LOGICAL:
        q_sb_printf(out, " %s", qx_tok_name(n->u.binary.op));
        break;
    case QN_ASSIGN:
        q_sb_printf(out, " %s %s", n->u.assign.name, qx_tok_name(n->u.assign.op));
        break;
    case QN_INDEX_ASSIGN:
        q_sb_printf(out, " %s", qx_tok_name(n->u.index.op));
        break;
    case QN_LET:
        q_sb_printf(out, " %s", n->u.let.name);
        break;
    case QN_FOR:
        q_sb_printf(out, " %s", n->u.for_stmt.var);
        break;
    case QN_FNDEF: case QN_LAMBDA:
        if (n->u.fn.name != NULL)
            q_sb_printf(out, " %s", n->u.fn.name);
        q_sb_append(out, " [");
        for (i = 0; i < n->u.fn.nparams; i++) {
            if (i > 0)
                q_sb_putc(out, ' ');
            q_sb_append(out, n->u.fn.params[i]);
        }
        q_sb_putc(out, ']');
        break;
    default:
        break;
    }
    d.out = out;
    d.indent = indent;
    visit_children(n, dump_child, &d);
    q_sb_putc(out, ')');
}

/* ---- statistics -------------------------------------------------------- */

struct count_ctx {
    size_t *counts;
    size_t total;
};

static void count_rec(qx_node *n, void *ctx)
{
    struct count_ctx *c = ctx;
    c->total++;
    if (c->counts != NULL)
        c->counts[n->kind]++;
    visit_children(n, count_rec, ctx);
}

size_t qx_count_nodes(const qx_node *n, size_t *counts)
{
    struct count_ctx c;
    if (counts != NULL)
        memset(counts, 0, QN_KIND_COUNT * sizeof *counts);
    c.counts = counts;
    c.total = 0;
    if (n != NULL)
        count_rec((qx_node *)n, &c);
    return c.total;
}

/* ---- constant folding -------------------------------------------------- */

static int const_truth(const qx_node *n, int *truth)
{
    switch (n->kind) {
    case QN_NUM:  *truth = n->u.num != 0.0; return 1;
    case QN_BOOL: *truth = n->u.boolean; return 1;
    case QN_NIL:  *truth = 0; return 1;
    case QN_STR:  *truth = n->u.str.len > 0; return 1;
    default:      return 0;
    }
}

static void make_num(qx_node *n, double v)
{
    n->kind = QN_NUM;
    memset(&n->u, 0, sizeof n->u);
    n->u.num = v;
}

static void make_bool(qx_node *n, int b)
{
    n->kind = QN_BOOL;
    memset(&n->u, 0, sizeof n->u);
    n->u.boolean = b != 0;
}

static int fold_numeric(qx_node *n, qx_tok_kind op, double a, double b)
{
    switch (op) {
    case QT_PLUS:  make_num(n, a + b); return 1;
    case QT_MINUS: make_num(n, a - b); return 1;
    case QT_STAR:  make_num(n, a * b); return 1;
    case QT_SLASH:
        if (b == 0.0)
            return 0;                   /* leave the runtime error in place */
        make_num(n, a / b);
        return 1;
    case QT_PERCENT:
        if (b == 0.0)
            return 0;
        make_num(n, a - b * floor(a / b));
        return 1;
    case QT_CARET: make_num(n, pow(a, b)); return 1;
    case QT_EQ: make_bool(n, a == b); return 1;
    case QT_NE: make_bool(n, a != b); return 1;
    case QT_LT: make_bool(n, a < b); return 1;
    case QT_LE: make_bool(n, a <= b); return 1;
    case QT_GT: make_bool(n, a > b); return 1;
    case QT_GE: make_bool(n, a >= b); return 1;
    default:    return 0;
    }
}

static int fold_strings(qx_node *n, qx_tok_kind op, const qx_node *a, const qx_node *b)
{
    int c;
    size_t m = Q_MIN(a->u.str.len, b->u.str.len);
    c = memcmp(a->u.str.chars, b->u.str.chars, m);
    if (c == 0)
        c = (a->u.str.len > b->u.str.len) - (a->u.str.len < b->u.str.len);
    switch (op) {
    case QT_EQ: make_bool(n, c == 0); return 1;
    case QT_NE: make_bool(n, c != 0); return 1;
    case QT_LT: make_bool(n, c < 0); return 1;
    case QT_LE: make_bool(n, c <= 0); return 1;
    case QT_GT: make_bool(n, c > 0); return 1;
    case QT_GE: make_bool(n, c >= 0); return 1;
    default:    return 0;
    }
}

static void fold_rec(qx_node *n, void *ctx)
{
    int *count = ctx;
    int t;

    visit_children(n, fold_rec, ctx);
    switch (n->kind) {
    case QN_UNARY: {
        qx_node *x = n->u.unary.operand;
        if (n->u.unary.op == QT_MINUS && x->kind == QN_NUM) {
            make_num(n, -x->u.num);
            (*count)++;
        } else if (n->u.unary.op == QT_NOT && const_truth(x, &t)) {
            make_bool(n, !t);
            (*count)++;
        }
        break;
    }
    case QN_BINARY: {
        qx_node *a = n->u.binary.left, *b = n->u.binary.right;
        if (a->kind == QN_NUM && b->kind == QN_NUM) {
            if (fold_numeric(n, n->u.binary.op, a->u.num, b->u.num))
                (*count)++;
        } else if (a->kind == QN_STR && b->kind == QN_STR) {
            if (fold_strings(n, n->u.binary.op, a, b))
                (*count)++;
        }
        break;
    }
    case QN_LOGICAL: {
        /* "true or x" is true; "false and x" is false; otherwise the
         * result is the right operand's value */
        qx_node *a = n->u.binary.left, *b = n->u.binary.right;
        if (const_truth(a, &t)) {
            int decided = (n->u.binary.op == QT_OR) ? t : !t;
            if (decided)
                *n = *a;
            else
                *n = *b;
            (*count)++;
        }
        break;
    }
    case QN_IF: {
        /* keep the statement but drop a branch that can never run */
        if (const_truth(n->u.if_stmt.cond, &t) && t
            && n->u.if_stmt.else_branch != NULL) {
            n->u.if_stmt.else_branch = NULL;
            (*count)++;
        }
        break;
    }
    default:
        break;
    }
}

int qx_fold_constants(qx_node *n)
{
    int count = 0;
    if (n != NULL)
        fold_rec(n, &count);
    return count;
}
