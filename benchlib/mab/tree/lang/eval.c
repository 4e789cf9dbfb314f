/*
 * eval.c - tree-walking interpreter for qx.
 *
 * Control flow (return, break, continue) and runtime errors are signalled
 * through in->status rather than by unwinding with longjmp: every place
 * that evaluates a sub-tree checks the status afterwards and returns
 * early when it is not QX_RUN.  Loops and calls reset the status they
 * own (QX_BREAK / QX_CONTINUE in loops, QX_RETURN in calls).
 *
 * Scoping is per function: "let" inside a block defines the name in the
 * environment of the enclosing function (or the globals).  A call creates
 * an environment whose parent is the closure of the function called; it
 * is released on return unless a function created during the call
 * captured it.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "textio.h"

#define MAX_ARGS        64
#define MAX_RANGE       10000000.0
#define DEFAULT_DEPTH   256
#define DEFAULT_STEPS   100000000ul

#define CHECK(in) do { if ((in)->status != QX_RUN) return qv_nil(); } while (0)

/* ---- environments ------------------------------------------------------ */

qx_env *qx_env_new(qx_interp *in, qx_env *parent)
{
    qx_env *env = q_malloc(sizeof *env);
    (void)in;
    env->parent = parent;
    env->next_all = NULL;
    env->captured = 0;
    q_htab_init(&env->vars, 0);
    return env;
}

static void env_free(qx_env *env)
{
    q_htab_free(&env->vars, free);
    free(env);
}

static void env_keep(qx_interp *in, qx_env *env)
{
    env->next_all = in->envs;
    in->envs = env;
}

void qx_env_define(qx_env *env, const char *name, qx_value v)
{
    int created;
    q_hentry *e = q_htab_insert(&env->vars, name, strlen(name), &created);
    if (created)
        e->val.ptr = q_malloc(sizeof(qx_value));
    *(qx_value *)e->val.ptr = v;
}

qx_value *qx_env_find(qx_env *env, const char *name)
{
    size_t len = strlen(name);
    for (; env != NULL; env = env->parent) {
        q_hentry *e = q_htab_lookup(&env->vars, name, len);
        if (e != NULL)
            return e->val.ptr;
    }
    return NULL;
}

/* ---- interpreter state ------------------------------------------------- */

void qx_interp_init(qx_interp *in, FILE *out)
{
    memset(in, 0, sizeof *in);
    in->out = out ? out : stdout;
    in->status = QX_RUN;
    in->ret = qv_nil();
    in->max_depth = DEFAULT_DEPTH;
    in->step_limit = DEFAULT_STEPS;
    q_sb_init(&in->error);
    q_arena_init(&in->ast, 16384);
    in->globals = qx_env_new(in, NULL);
    env_keep(in, in->globals);
    qx_install_builtins(in);
}

void qx_interp_free(qx_interp *in)
{
    qx_obj *o = in->objects, *next;
    qx_env *e = in->envs, *enext;
    while (o != NULL) {
        next = o->next;
        qx_obj_free(o);
        o = next;
    }
    while (e != NULL) {
        enext = e->next_all;
        env_free(e);
        e = enext;
    }
    in->objects = NULL;
    in->envs = NULL;
    in->globals = NULL;
    q_sb_free(&in->error);
    q_arena_free(&in->ast);
}

void qx_runtime_error(qx_interp *in, int line, const char *fmt, ...)
{
    va_list ap;
    if (in->status == QX_ERROR)
        return;                     /* keep the first message */
    in->status = QX_ERROR;
    in->error_line = line;
    q_sb_clear(&in->error);
    va_start(ap, fmt);
    q_sb_vprintf(&in->error, fmt, ap);
    va_end(ap);
}

/* ---- operators --------------------------------------------------------- */

static qx_value concat(qx_interp *in, qx_value a, qx_value b)
{
    q_strbuf sb;
    qx_value v;
    q_sb_init(&sb);
    qv_format(&sb, a, 0);
    qv_format(&sb, b, 0);
    v = qv_str(in, sb.data, sb.len);
    q_sb_free(&sb);
    return v;
}

static qx_value list_concat(qx_interp *in, qx_list *a, qx_list *b)
{
    qx_list *l = qx_list_new(in, a->len + b->len);
    size_t i;
    for (i = 0; i < a->len; i++)
        qx_list_push(l, a->items[i]);
    for (i = 0; i < b->len; i++)
        qx_list_push(l, b->items[i]);
    return qv_obj(&l->hdr);
}

static qx_value repeat(qx_interp *in, qx_value a, double times, int line)
{
    size_t n, i;
    if (times < 0 || times != floor(times) || times > 1e7) {
        qx_runtime_error(in, line, "repeat count must be a whole number from 0 to 1e7");
        return qv_nil();
    }
    n = (size_t)times;
    if (a.type == QV_STR) {
        qx_string *s = QV_AS_STR(a);
        q_strbuf sb;
        qx_value v;
        q_sb_init_size(&sb, s->len * n);
        for (i = 0; i < n; i++)
            q_sb_appendn(&sb, s->chars, s->len);
        v = qv_str(in, sb.data, sb.len);
        q_sb_free(&sb);
        return v;
    } else {
        qx_list *src = QV_AS_LIST(a);
        qx_list *l = qx_list_new(in, src->len * n);
        size_t k;
        for (i = 0; i < n; i++)
            for (k = 0; k < src->len; k++)
                qx_list_push(l, src->items[k]);
        return qv_obj(&l->hdr);
    }
}

static qx_value type_error(qx_interp *in, int line, qx_tok_kind op, qx_value a,
                           qx_value b)
{
    qx_runtime_error(in, line, "operator %s cannot be applied to %s and %s",
                     qx_tok_name(op), qv_type_name(a.type), qv_type_name(b.type));
    return qv_nil();
}

static qx_value binary_op(qx_interp *in, qx_tok_kind op, qx_value a, qx_value b,
                          int line)
{
    int ok, c;

    switch (op) {
    case QT_EQ:
        return qv_bool(qv_equal(a, b));
    case QT_NE:
        return qv_bool(!qv_equal(a, b));
    case QT_LT: case QT_LE: case QT_GT: case QT_GE:
        c = qv_compare(a, b, &ok);
        if (!ok) {
            qx_runtime_error(in, line, "cannot compare %s with %s",
                             qv_type_name(a.type), qv_type_name(b.type));
            return qv_nil();
        }
        if (op == QT_LT) return qv_bool(c < 0);
        if (op == QT_LE) return qv_bool(c <= 0);
        if (op == QT_GT) return qv_bool(c > 0);
        return qv_bool(c >= 0);
    case QT_PLUS:
        if (a.type == QV_NUM && b.type == QV_NUM)
            return qv_num(a.as.n + b.as.n);
        if (a.type == QV_STR || b.type == QV_STR)
            return concat(in, a, b);
        if (a.type == QV_LIST && b.type == QV_LIST)
            return list_concat(in, QV_AS_LIST(a), QV_AS_LIST(b));
        return type_error(in, line, op, a, b);
    case QT_STAR:
        if (a.type == QV_NUM && b.type == QV_NUM)
            return qv_num(a.as.n * b.as.n);
        if ((a.type == QV_STR || a.type == QV_LIST) && b.type == QV_NUM)
            return repeat(in, a, b.as.n, line);
        if (a.type == QV_NUM && (b.type == QV_STR || b.type == QV_LIST))
            return repeat(in, b, a.as.n, line);
        return type_error(in, line, op, a, b);
    default:
        break;
    }
    if (a.type != QV_NUM || b.type != QV_NUM)
        return type_error(in, line, op, a, b);
    switch (op) {
    case QT_MINUS:
        return qv_num(a.as.n - b.as.n);
    case QT_SLASH:
        if (b.as.n == 0.0) {
            qx_runtime_error(in, line, "division by zero");
            return qv_nil();
        }
        return qv_num(a.as.n / b.as.n);
    case QT_PERCENT:
        if (b.as.n == 0.0) {
            qx_runtime_error(in, line, "modulo by zero");
            return qv_nil();
        }
        return qv_num(a.as.n - b.as.n * floor(a.as.n / b.as.n));
    case QT_CARET:
        return qv_num(pow(a.as.n, b.as.n));
    default:
        qx_runtime_error(in, line, "unknown operator %s", qx_tok_name(op));
        return qv_nil();
    }
}

static qx_tok_kind compound_base(qx_tok_kind op)
{
    switch (op) {
    case QT_PLUS_ASSIGN:  return QT_PLUS;
    case QT_MINUS_ASSIGN: return QT_MINUS;
    case QT_STAR_ASSIGN:  return QT_STAR;
    case QT_SLASH_ASSIGN: return QT_SLASH;
    default:              return QT_ASSIGN;
    }
}

/* Converts a number to a list or string index; negative counts from the
 * end.  Returns 0 and reports an error when out of range. */
static int to_index(qx_interp *in, qx_value ix, size_t len, size_t *out, int line)
{
    double d;
    if (ix.type != QV_NUM) {
        qx_runtime_error(in, line, "index must be a number, not %s",
                         qv_type_name(ix.type));
        return 0;
    }
    d = ix.as.n;
    if (d != floor(d)) {
        qx_runtime_error(in, line, "index must be a whole number");
        return 0;
    }
    if (d < 0)
        d += (double)len;
    if (d < 0 || d >= (double)len) {
        qx_runtime_error(in, line, "index %g out of range (length %lu)", ix.as.n,
                         (unsigned long)len);
        return 0;
    }
    *out = (size_t)d;
    return 1;
}

static qx_value index_get(qx_interp *in, qx_value target, qx_value ix, int line)
{
    size_t i = 0;
    if (target.type == QV_LIST) {
        qx_list *l = QV_AS_LIST(target);
        if (!to_index(in, ix, l->len, &i, line))
            return qv_nil();
        return l->items[i];
    }
    if (target.type == QV_STR) {
        qx_string *s = QV_AS_STR(target);
        if (!to_index(in, ix, s->len, &i, line))
            return qv_nil();
        return qv_str(in, s->chars + i, 1);
    }
    qx_runtime_error(in, line, "cannot index a %s", qv_type_name(target.type));
    return qv_nil();
}

/* ---- calls ------------------------------------------------------------- */

qx_value qx_call(qx_interp *in, qx_value callee, int argc, qx_value *argv, int line)
{
    if (callee.type == QV_BUILTIN) {
        qx_builtin *b = QV_AS_BUILTIN(callee);
        if (argc < b->min_args || (b->max_args >= 0 && argc > b->max_args)) {
            if (b->min_args == b->max_args)
                qx_runtime_error(in, line, "%s() takes %d argument%s, got %d", b->name,
                                 b->min_args, b->min_args == 1 ? "" : "s", argc);
            else
                qx_runtime_error(in, line, "%s() called with %d arguments", b->name,
                                 argc);
            return qv_nil();
        }
        const char *saved = in->builtin_name;
        qx_value v;
        in->calls++;
        in->builtin_name = b->name;
        v = b->fn(in, argc, argv, line);
        in->builtin_name = saved;
        return v;
    }
    if (callee.type == QV_FN) {
        qx_function *f = QV_AS_FN(callee);
        const qx_node *d = f->decl;
        qx_env *env;
        qx_value result = qv_nil();
        size_t i;

        if ((size_t)argc != d->u.fn.nparams) {
            qx_runtime_error(in, line, "%s expects %lu argument%s, got %d",
                             d->u.fn.name ? d->u.fn.name : "lambda",
                             (unsigned long)d->u.fn.nparams,
                             d->u.fn.nparams == 1 ? "" : "s", argc);
            return qv_nil();
        }
        if (in->depth >= in->max_depth) {
            qx_runtime_error(in, line, "call depth limit (%d) exceeded", in->max_depth);
            return qv_nil();
        }
        env = qx_env_new(in, f->closure);
        for (i = 0; i < d->u.fn.nparams; i++)
            qx_env_define(env, d->u.fn.params[i], argv[i]);
        in->depth++;
        in->calls++;
        qx_eval(in, d->u.fn.body, env);
        in->depth--;
        if (in->status == QX_RETURN) {
            result = in->ret;
            in->ret = qv_nil();
            in->status = QX_RUN;
        }
        if (env->captured)
            env_keep(in, env);
        else
            env_free(env);
        return in->status == QX_RUN ? result : qv_nil();
    }
    qx_runtime_error(in, line, "cannot call a %s", qv_type_name(callee.type));
    return qv_nil();
}

static qx_value eval_call(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value callee, args[MAX_ARGS];
    size_t i, argc = n->u.call.args.len;

    callee = qx_eval(in, n->u.call.callee, env);
    CHECK(in);
    if (argc > MAX_ARGS) {
        qx_runtime_error(in, n->line, "too many arguments (%lu)", (unsigned long)argc);
        return qv_nil();
    }
    for (i = 0; i < argc; i++) {
        args[i] = qx_eval(in, n->u.call.args.items[i], env);
        CHECK(in);
    }
    return qx_call(in, callee, (int)argc, args, n->line);
}

/* ---- expressions ------------------------------------------------------- */

static qx_value eval_list(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_list *l = qx_list_new(in, n->u.list.len);
    size_t i;
    for (i = 0; i < n->u.list.len; i++) {
        qx_value v = qx_eval(in, n->u.list.items[i], env);
        CHECK(in);
        qx_list_push(l, v);
    }
    return qv_obj(&l->hdr);
}

static qx_value eval_range(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value a, b;
    qx_list *l;
    double x;

    a = qx_eval(in, n->u.binary.left, env);
    CHECK(in);
    b = qx_eval(in, n->u.binary.right, env);
    CHECK(in);
    if (a.type != QV_NUM || b.type != QV_NUM) {
        qx_runtime_error(in, n->line, "range bounds must be numbers");
        return qv_nil();
    }
    if (b.as.n - a.as.n > MAX_RANGE) {
        qx_runtime_error(in, n->line, "range too large");
        return qv_nil();
    }
    l = qx_list_new(in, b.as.n > a.as.n ? (size_t)(b.as.n - a.as.n) + 1 : 0);
    for (x = a.as.n; x < b.as.n; x += 1.0)
        qx_list_push(l, qv_num(x));
    return qv_obj(&l->hdr);
}

static qx_value eval_unary(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value v = qx_eval(in, n->u.unary.operand, env);
    CHECK(in);
    if (n->u.unary.op == QT_NOT)
        return qv_bool(!qv_truthy(v));
    if (v.type != QV_NUM) {
        qx_runtime_error(in, n->line, "cannot negate a %s", qv_type_name(v.type));
        return qv_nil();
    }
    return qv_num(-v.as.n);
}

static qx_value eval_assign(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value *slot = qx_env_find(env, n->u.assign.name);
    qx_value v;

    if (slot == NULL) {
        qx_runtime_error(in, n->line, "assignment to undeclared variable '%s'",
                         n->u.assign.name);
        return qv_nil();
    }
    v = qx_eval(in, n->u.assign.value, env);
    CHECK(in);
    if (n->u.assign.op != QT_ASSIGN) {
        /* the slot may have moved if evaluation defined new names */
        slot = qx_env_find(env, n->u.assign.name);
        v = binary_op(in, compound_base(n->u.assign.op), *slot, v, n->line);
        CHECK(in);
    }
    slot = qx_env_find(env, n->u.assign.name);
    *slot = v;
    return v;
}

static qx_value eval_index_assign(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value target, ix, v;
    qx_list *l;
    size_t i = 0;

    target = qx_eval(in, n->u.index.target, env);
    CHECK(in);
    ix = qx_eval(in, n->u.index.index, env);
    CHECK(in);
    v = qx_eval(in, n->u.index.value, env);
    CHECK(in);
    if (target.type != QV_LIST) {
        qx_runtime_error(in, n->line, "cannot assign into a %s (lists only)",
                         qv_type_name(target.type));
        return qv_nil();
    }
    l = QV_AS_LIST(target);
    if (!to_index(in, ix, l->len, &i, n->line))
        return qv_nil();
    if (n->u.index.op != QT_ASSIGN) {
        v = binary_op(in, compound_base(n->u.index.op), l->items[i], v, n->line);
        CHECK(in);
    }
    l->items[i] = v;
    return v;
}

static qx_value make_function(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_function *f = qx_function_new(in, n, env);
    env->captured = 1;
    return qv_obj(&f->hdr);
}

/* ---- statements -------------------------------------------------------- */

static void exec_print(qx_interp *in, const qx_node *n, qx_env *env)
{
    q_strbuf sb;
    size_t i;
    q_sb_init(&sb);
    for (i = 0; i < n->u.list.len; i++) {
        qx_value v = qx_eval(in, n->u.list.items[i], env);
        if (in->status != QX_RUN)
            break;
        if (i > 0)
            q_sb_putc(&sb, ' ');
        qv_format(&sb, v, 0);
    }
    if (in->status == QX_RUN) {
        q_sb_putc(&sb, '\n');
        q_sb_write_stream(&sb, in->out);
    }
    q_sb_free(&sb);
}

/* Handles the status after one execution of a loop body.  Returns 1 when
 * the loop should go on. */
static int loop_continue(qx_interp *in)
{
    switch (in->status) {
    case QX_RUN:
        return 1;
    case QX_CONTINUE:
        in->status = QX_RUN;
        return 1;
    case QX_BREAK:
        in->status = QX_RUN;
        return 0;
    default:
        return 0;       /* return or error: propagate */
    }
}

static void exec_while(qx_interp *in, const qx_node *n, qx_env *env)
{
    for (;;) {
        qx_value c = qx_eval(in, n->u.while_stmt.cond, env);
        if (in->status != QX_RUN || !qv_truthy(c))
            return;
        qx_eval(in, n->u.while_stmt.body, env);
        if (!loop_continue(in))
            return;
    }
}

static void exec_for(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value it = qx_eval(in, n->u.for_stmt.iter, env);
    const char *var = n->u.for_stmt.var;
    size_t i;

    if (in->status != QX_RUN)
        return;
    switch (it.type) {
    case QV_LIST: {
        qx_list *l = QV_AS_LIST(it);
        /* the body may grow or shrink the list: re-check the length */
        for (i = 0; i < l->len; i++) {
            qx_env_define(env, var, l->items[i]);
            qx_eval(in, n->u.for_stmt.body, env);
            if (!loop_continue(in))
                return;
        }
        break;
    }
    case QV_STR: {
        qx_string *s = QV_AS_STR(it);
        size_t adv;
        for (i = 0; i < s->len; i += adv) {
            q_utf8_decode((const unsigned char *)s->chars + i, s->len - i, &adv);
            qx_env_define(env, var, qv_str(in, s->chars + i, adv));
            qx_eval(in, n->u.for_stmt.body, env);
            if (!loop_continue(in))
                return;
        }
        break;
    }
    case QV_NUM: {
        double k;
        for (k = 0; k < it.as.n; k += 1.0) {
            qx_env_define(env, var, qv_num(k));
            qx_eval(in, n->u.for_stmt.body, env);
            if (!loop_continue(in))
                return;
        }
        break;
    }
    default:
        qx_runtime_error(in, n->line, "cannot iterate over a %s", qv_type_name(it.type));
        break;
    }
}

/* ---- dispatcher -------------------------------------------------------- */

qx_value qx_eval(qx_interp *in, const qx_node *n, qx_env *env)
{
    qx_value a, b;
    size_t i;

    if (in->status != QX_RUN)
        return qv_nil();
    if (++in->steps > in->step_limit) {
        qx_runtime_error(in, n->line, "step limit (%lu) exceeded", in->step_limit);
        return qv_nil();
    }
    switch (n->kind) {
    case QN_NUM:
        return qv_num(n->u.num);
    case QN_STR:
        return qv_str(in, n->u.str.chars, n->u.str.len);
    case QN_BOOL:
        return qv_bool(n->u.boolean);
    case QN_NIL:
        return qv_nil();
    case QN_VAR: {
        qx_value *slot = qx_env_find(env, n->u.var.name);
        if (slot == NULL) {
            qx_runtime_error(in, n->line, "undefined variable '%s'", n->u.var.name);
            return qv_nil();
        }
        return *slot;
    }
    case QN_LIST:
        return eval_list(in, n, env);
    case QN_UNARY:
        return eval_unary(in, n, env);
    case QN_BINARY:
        a = qx_eval(in, n->u.binary.left, env);
        CHECK(in);
        b = qx_eval(in, n->u.binary.right, env);
        CHECK(in);
        return binary_op(in, n->u.binary.op, a, b, n->line);
    case QN_LOGICAL:
        a = qx_eval(in, n->u.binary.left, env);
        CHECK(in);
        if (n->u.binary.op == QT_OR ? qv_truthy(a) : !qv_truthy(a))
            return a;
        return qx_eval(in, n->u.binary.right, env);
    case QN_RANGE:
        return eval_range(in, n, env);
    case QN_ASSIGN:
        return eval_assign(in, n, env);
    case QN_INDEX:
        a = qx_eval(in, n->u.index.target, env);
        CHECK(in);
        b = qx_eval(in, n->u.index.index, env);
        CHECK(in);
        return index_get(in, a, b, n->line);
    case QN_INDEX_ASSIGN:
        return eval_index_assign(in, n, env);
    case QN_CALL:
        return eval_call(in, n, env);
    case QN_LAMBDA:
        return make_function(in, n, env);

    case QN_LET:
        a = n->u.let.value ? qx_eval(in, n->u.let.value, env) : qv_nil();
        CHECK(in);
        qx_env_define(env, n->u.let.name, a);
        return qv_nil();
    case QN_FNDEF:
        qx_env_define(env, n->u.fn.name, make_function(in, n, env));
        return qv_nil();
    case QN_EXPR:
        qx_eval(in, n->u.expr.expr, env);
        return qv_nil();
    case QN_PRINT:
        exec_print(in, n, env);
        return qv_nil();
    case QN_BLOCK:
        for (i = 0; i < n->u.list.len && in->status == QX_RUN; i++)
            qx_eval(in, n->u.list.items[i], env);
        return qv_nil();
    case QN_IF:
        a = qx_eval(in, n->u.if_stmt.cond, env);
        CHECK(in);
        if (qv_truthy(a))
            qx_eval(in, n->u.if_stmt.then_branch, env);
        else if (n->u.if_stmt.else_branch != NULL)
            qx_eval(in, n->u.if_stmt.else_branch, env);
        return qv_nil();
    case QN_WHILE:
        exec_while(in, n, env);
        return qv_nil();
    case QN_FOR:
        exec_for(in, n, env);
        return qv_nil();
    case QN_RETURN:
        a = n->u.expr.expr ? qx_eval(in, n->u.expr.expr, env) : qv_nil();
        CHECK(in);
        in->ret = a;
        in->status = QX_RETURN;
        return qv_nil();
    case QN_BREAK:
        in->status = QX_BREAK;
        return qv_nil();
    case QN_CONTINUE:
        in->status = QX_CONTINUE;
        return qv_nil();
    default:
        qx_runtime_error(in, n->line, "cannot evaluate a %s node", qx_kind_name(n->kind));
        return qv_nil();
    }
}

/* ---- entry points ------------------------------------------------------ */

int qx_run(qx_interp *in, const qx_node *program)
{
    in->status = QX_RUN;
    qx_eval(in, program, in->globals);
    if (in->status == QX_ERROR)
        return -1;
    in->status = QX_RUN;
    return 0;
}

int qx_run_source(qx_interp *in, const char *src, size_t n, const char *name,
                  FILE *err, int dump_ast)
{
    q_strbuf errors;
    qx_node *program;
    int rc;

    q_sb_init(&errors);
    program = qx_parse(src, n, name, &in->ast, &errors);
    if (program == NULL) {
        fputs(errors.data, err);
        q_sb_free(&errors);
        return -1;
    }
    q_sb_free(&errors);
    qx_fold_constants(program);
    if (dump_ast) {
        q_strbuf sb;
        q_sb_init(&sb);
        qx_dump(program, &sb, 0);
        q_sb_putc(&sb, '\n');
        q_sb_write_stream(&sb, in->out);
        q_sb_free(&sb);
        return 0;
    }
    rc = qx_run(in, program);
    if (rc != 0) {
        fflush(in->out);
        fprintf(err, "%s:%d: runtime error: %s\n", name, in->error_line,
                in->error.data);
        in->status = QX_RUN;
    }
    return rc;
}
