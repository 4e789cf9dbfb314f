/*
 * parser.c - recursive-descent parser for qx.
 *
 * Grammar (lowest precedence first):
 *
 *   program     := statement* EOF
 *   statement   := "let" IDENT ("=" expr)? ";"
 *                | "fn" IDENT "(" params? ")" block
 *                | "print" expr ("," expr)* ";"
 *                | "if" expr block ("else" (ifstmt | block))?
 *                | "while" expr block
 *                | "for" IDENT "in" expr block
 *                | "return" expr? ";"  |  "break" ";"  |  "continue" ";"
 *                | block  |  expr ";"
 *   expr        := assignment
 *   assignment  := (IDENT | postfix "[" expr "]") ("=" | "+=" | ...) assignment
 *                | or
 *   or          := and ("or" and)*
 *   and         := equality ("and" equality)*
 *   equality    := comparison (("==" | "!=") comparison)*
 *   comparison  := range (("<" | "<=" | ">" | ">=") range)*
 *   range       := term (".." term)?
 *   term        := factor (("+" | "-") factor)*
 *   factor      := unary (("*" | "/" | "%") unary)*
 *   unary       := ("-" | "not") unary | power
 *   power       := postfix ("^" unary)?
 *   postfix     := primary ("(" args? ")" | "[" expr "]")*
 *   primary     := NUMBER | STRING | "true" | "false" | "nil" | IDENT
 *                | "(" expr ")" | "[" (expr ("," expr)* ","?)? "]"
 *                | "fn" "(" params? ")" block
 *
 * After a syntax error the parser enters panic mode and skips tokens up
 * to the next statement boundary, so that one mistake produces one
 * message and later, independent errors are still reported.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"

#define MAX_ERRORS  25
#define MAX_PARAMS  32
#define MAX_NESTING 200

/* A temporary, malloc-backed list that is copied into the arena when
 * complete. */
typedef struct tmp_list {
    qx_node **items;
    size_t len, cap;
} tmp_list;

static void tmp_push(tmp_list *l, qx_node *n)
{
    l->items = q_grow_array(l->items, &l->cap, l->len + 1, sizeof *l->items);
    l->items[l->len++] = n;
}

static qx_nodelist tmp_finish(qx_parser *p, tmp_list *l)
{
    qx_nodelist out;
    out.items = qx_nodes_copy(p->arena, l->items, l->len);
    out.len = l->len;
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
    return out;
}

static qx_node *statement(qx_parser *p);
static qx_node *expression(qx_parser *p);
static qx_node *block(qx_parser *p);

static int depth;

/* ---- error reporting --------------------------------------------------- */

static void error_at(qx_parser *p, const qx_token *t, const char *msg)
{
    if (p->panic)
        return;
    p->panic = 1;
    p->nerrors++;
    if (p->nerrors > MAX_ERRORS)
        return;
    q_sb_printf(p->errors, "%s:%d:%d: error: ", p->lex.name, t->line, t->col);
    if (t->kind == QT_EOF) {
        q_sb_printf(p->errors, "%s at end of input\n", msg);
    } else if (t->kind == QT_ERROR) {
        q_sb_printf(p->errors, "%s\n", msg);
    } else {
        size_t len = t->len > 20 ? 20 : t->len;
        q_sb_printf(p->errors, "%s at '%.*s%s'\n", msg, (int)len, t->start,
                    t->len > len ? "..." : "");
    }
    if (p->nerrors == MAX_ERRORS)
        q_sb_printf(p->errors, "%s: too many errors, giving up\n", p->lex.name);
}

static void error_here(qx_parser *p, const char *msg)
{
    error_at(p, &p->cur, msg);
}

static void error_prev(qx_parser *p, const char *msg)
{
    error_at(p, &p->prev, msg);
}

/* ---- token handling ---------------------------------------------------- */

static void advance(qx_parser *p)
{
    p->prev = p->cur;
    for (;;) {
        p->cur = qx_lexer_next(&p->lex);
        if (p->cur.kind != QT_ERROR)
            break;
        error_here(p, p->lex.message);
    }
}

static int check(const qx_parser *p, qx_tok_kind kind)
{
    return p->cur.kind == kind;
}

static int accept(qx_parser *p, qx_tok_kind kind)
{
    if (!check(p, kind))
        return 0;
    advance(p);
    return 1;
}

static void expect(qx_parser *p, qx_tok_kind kind, const char *context)
{
    char msg[128];
    if (accept(p, kind))
        return;
    snprintf(msg, sizeof msg, "expected %s %s", qx_tok_name(kind), context);
    error_here(p, msg);
}

static const char *ident_name(qx_parser *p, const qx_token *t)
{
    return q_arena_strndup(p->arena, t->start, t->len);
}

static void synchronize(qx_parser *p)
{
    p->panic = 0;
    while (!check(p, QT_EOF)) {
        if (p->prev.kind == QT_SEMI)
            return;
        switch (p->cur.kind) {
        case QT_LET: case QT_FN: case QT_IF: case QT_WHILE: case QT_FOR:
        case QT_RETURN: case QT_PRINT: case QT_BREAK: case QT_CONTINUE:
        case QT_RBRACE:
            return;
        default:
            break;
        }
        advance(p);
    }
}

/* ---- expressions ------------------------------------------------------- */

static qx_node *node(qx_parser *p, qx_kind kind, int line)
{
    return qx_node_new(p->arena, kind, line);
}

static qx_node *binary(qx_parser *p, qx_kind kind, qx_tok_kind op, qx_node *l,
                       qx_node *r, int line)
{
    qx_node *n = node(p, kind, line);
    n->u.binary.op = op;
    n->u.binary.left = l;
    n->u.binary.right = r;
    return n;
}

static void parse_params(qx_parser *p, qx_node *fn)
{
    const char *names[MAX_PARAMS];
    size_t n = 0, i;

    expect(p, QT_LPAREN, "before the parameter list");
    if (!check(p, QT_RPAREN)) {
        do {
            if (!check(p, QT_IDENT)) {
                error_here(p, "expected a parameter name");
                break;
            }
            advance(p);
            if (n == MAX_PARAMS) {
                error_prev(p, "too many parameters");
                continue;
            }
            names[n] = ident_name(p, &p->prev);
            for (i = 0; i < n; i++) {
                if (strcmp(names[i], names[n]) == 0)
                    error_prev(p, "duplicate parameter name");
            }
            n++;
        } while (accept(p, QT_COMMA));
    }
    expect(p, QT_RPAREN, "after the parameters");
    fn->u.fn.nparams = n;
    fn->u.fn.params = n ? q_arena_memdup(p->arena, names, n * sizeof *names) : NULL;
}

static qx_node *function_body(qx_parser *p, qx_node *fn)
{
    int saved_loops = p->loop_depth;
    p->loop_depth = 0;
    p->fn_depth++;
    fn->u.fn.body = block(p);
    p->fn_depth--;
    p->loop_depth = saved_loops;
    return fn;
}

static qx_node *string_literal(qx_parser *p)
{
    q_strbuf sb;
    qx_node *n = node(p, QN_STR, p->prev.line);
    q_sb_init(&sb);
    /* the token includes its quotes */
    if (qx_unescape(p->prev.start + 1, p->prev.len - 2, &sb) != 0)
        error_prev(p, "invalid escape sequence in string");
    n->u.str.chars = q_arena_strndup(p->arena, sb.data, sb.len);
    n->u.str.len = sb.len;
    q_sb_free(&sb);
    return n;
}

static qx_node *list_literal(qx_parser *p)
{
    tmp_list items = { NULL, 0, 0 };
    qx_node *n = node(p, QN_LIST, p->prev.line);
    while (!check(p, QT_RBRACKET) && !check(p, QT_EOF)) {
        tmp_push(&items, expression(p));
        if (!accept(p, QT_COMMA))
            break;
    }
    expect(p, QT_RBRACKET, "to close the list");
    n->u.list = tmp_finish(p, &items);
    return n;
}

static qx_node *primary(qx_parser *p)
{
    qx_node *n;
    int line = p->cur.line;

    if (accept(p, QT_NUMBER)) {
        n = node(p, QN_NUM, line);
        n->u.num = p->prev.number;
        return n;
    }
    if (accept(p, QT_STRING))
        return string_literal(p);
    if (accept(p, QT_TRUE) || accept(p, QT_FALSE)) {
        n = node(p, QN_BOOL, line);
        n->u.boolean = p->prev.kind == QT_TRUE;
        return n;
    }
    if (accept(p, QT_NIL))
        return node(p, QN_NIL, line);
    if (accept(p, QT_IDENT)) {
        n = node(p, QN_VAR, line);
        n->u.var.name = ident_name(p, &p->prev);
        return n;
    }
    if (accept(p, QT_LPAREN)) {
        n = expression(p);
        expect(p, QT_RPAREN, "after the expression");
        return n;
    }
    if (accept(p, QT_LBRACKET))
        return list_literal(p);
    if (accept(p, QT_FN)) {
        n = node(p, QN_LAMBDA, line);
        parse_params(p, n);
        return function_body(p, n);
    }
    error_here(p, "expected an expression");
    /* produce something so the caller can carry on */
    if (!check(p, QT_EOF) && !check(p, QT_SEMI) && !check(p, QT_RBRACE))
        advance(p);
    return node(p, QN_NIL, line);
}

static qx_node *postfix(qx_parser *p)
{
    qx_node *n = primary(p);
    for (;;) {
        int line = p->cur.line;
        if (accept(p, QT_LPAREN)) {
            tmp_list args = { NULL, 0, 0 };
            qx_node *call = node(p, QN_CALL, line);
            if (!check(p, QT_RPAREN)) {
                do {
                    tmp_push(&args, expression(p));
                } while (accept(p, QT_COMMA));
            }
            expect(p, QT_RPAREN, "after the arguments");
            call->u.call.callee = n;
            call->u.call.args = tmp_finish(p, &args);
            n = call;
        } else if (accept(p, QT_LBRACKET)) {
            qx_node *ix = node(p, QN_INDEX, line);
            ix->u.index.target = n;
            ix->u.index.index = expression(p);
            expect(p, QT_RBRACKET, "after the index");
            n = ix;
        } else {
            return n;
        }
    }
}

static qx_node *unary(qx_parser *p);

static qx_node *power(qx_parser *p)
{
    qx_node *base = postfix(p);
    int line = p->cur.line;
    if (accept(p, QT_CARET)) {
        /* right associative, and binds tighter than unary minus on its
         * left: -2^2 is -(2^2), but 2^-1 is allowed */
        qx_node *exp = unary(p);
        return binary(p, QN_BINARY, QT_CARET, base, exp, line);
    }
    return base;
}

static qx_node *unary(qx_parser *p)
{
    int line = p->cur.line;
    if (check(p, QT_MINUS) || check(p, QT_NOT)) {
        qx_node *n;
        qx_tok_kind op = p->cur.kind;
        advance(p);
        if (++depth > MAX_NESTING) {
            error_prev(p, "expression nested too deeply");
            depth--;
            return node(p, QN_NIL, line);
        }
        n = node(p, QN_UNARY, line);
        n->u.unary.op = op;
        n->u.unary.operand = unary(p);
        depth--;
        return n;
    }
    return power(p);
}

static qx_node *factor(qx_parser *p)
{
    qx_node *n = unary(p);
    while (check(p, QT_STAR) || check(p, QT_SLASH) || check(p, QT_PERCENT)) {
        qx_tok_kind op = p->cur.kind;
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_BINARY, op, n, unary(p), line);
    }
    return n;
}

static qx_node *term(qx_parser *p)
{
    qx_node *n = factor(p);
    while (check(p, QT_PLUS) || check(p, QT_MINUS)) {
        qx_tok_kind op = p->cur.kind;
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_BINARY, op, n, factor(p), line);
    }
    return n;
}

static qx_node *range(qx_parser *p)
{
    qx_node *n = term(p);
    int line = p->cur.line;
    if (accept(p, QT_DOTDOT))
        n = binary(p, QN_RANGE, QT_DOTDOT, n, term(p), line);
    return n;
}

static qx_node *comparison(qx_parser *p)
{
    qx_node *n = range(p);
    while (check(p, QT_LT) || check(p, QT_LE) || check(p, QT_GT) || check(p, QT_GE)) {
        qx_tok_kind op = p->cur.kind;
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_BINARY, op, n, range(p), line);
    }
    return n;
}

static qx_node *equality(qx_parser *p)
{
    qx_node *n = comparison(p);
    while (check(p, QT_EQ) || check(p, QT_NE)) {
        qx_tok_kind op = p->cur.kind;
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_BINARY, op, n, comparison(p), line);
    }
    return n;
}

static qx_node *logic_and(qx_parser *p)
{
    qx_node *n = equality(p);
    while (check(p, QT_AND)) {
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_LOGICAL, QT_AND, n, equality(p), line);
    }
    return n;
}

static qx_node *logic_or(qx_parser *p)
{
    qx_node *n = logic_and(p);
    while (check(p, QT_OR)) {
        int line = p->cur.line;
        advance(p);
        n = binary(p, QN_LOGICAL, QT_OR, n, logic_and(p), line);
    }
    return n;
}

static int is_assign_op(qx_tok_kind k)
{
    return k == QT_ASSIGN || k == QT_PLUS_ASSIGN || k == QT_MINUS_ASSIGN
        || k == QT_STAR_ASSIGN || k == QT_SLASH_ASSIGN;
}

static qx_node *assignment(qx_parser *p)
{
    qx_node *target = logic_or(p);
    if (is_assign_op(p->cur.kind)) {
        qx_tok_kind op = p->cur.kind;
        qx_token op_tok = p->cur;
        qx_node *value, *n;
        advance(p);
        value = assignment(p);
        if (target->kind == QN_VAR) {
            n = node(p, QN_ASSIGN, op_tok.line);
            n->u.assign.name = target->u.var.name;
            n->u.assign.op = op;
            n->u.assign.value = value;
            return n;
        }
        if (target->kind == QN_INDEX) {
            target->kind = QN_INDEX_ASSIGN;
            target->u.index.value = value;
            target->u.index.op = op;
            return target;
        }
        error_at(p, &op_tok, "invalid assignment target");
        return value;
    }
    return target;
}

static qx_node *expression(qx_parser *p)
{
    qx_node *n;
    if (++depth > MAX_NESTING) {
        error_here(p, "expression nested too deeply");
        depth--;
        return node(p, QN_NIL, p->cur.line);
    }
    n = assignment(p);
    depth--;
    return n;
}

/* ---- statements -------------------------------------------------------- */

static qx_node *block(qx_parser *p)
{
    tmp_list stmts = { NULL, 0, 0 };
    qx_node *n = node(p, QN_BLOCK, p->cur.line);

    expect(p, QT_LBRACE, "to start a block");
    while (!check(p, QT_RBRACE) && !check(p, QT_EOF)) {
        qx_node *s = statement(p);
        if (s != NULL)
            tmp_push(&stmts, s);
        if (p->panic)
            synchronize(p);
    }
    expect(p, QT_RBRACE, "to close the block");
    n->u.list = tmp_finish(p, &stmts);
    return n;
}

static qx_node *if_statement(qx_parser *p, int line)
{
    qx_node *n = node(p, QN_IF, line);
    n->u.if_stmt.cond = expression(p);
    n->u.if_stmt.then_branch = block(p);
    if (accept(p, QT_ELSE)) {
        int else_line = p->prev.line;
        if (accept(p, QT_IF))
            n->u.if_stmt.else_branch = if_statement(p, else_line);
        else
            n->u.if_stmt.else_branch = block(p);
    }
    return n;
}

static qx_node *loop_body(qx_parser *p)
{
    qx_node *body;
    p->loop_depth++;
    body = block(p);
    p->loop_depth--;
    return body;
}

static qx_node *statement(qx_parser *p)
{
    qx_node *n;
    int line = p->cur.line;

    if (accept(p, QT_LET)) {
        n = node(p, QN_LET, line);
        if (!check(p, QT_IDENT)) {
            error_here(p, "expected a variable name after 'let'");
            return NULL;
        }
        advance(p);
        n->u.let.name = ident_name(p, &p->prev);
        if (accept(p, QT_ASSIGN))
            n->u.let.value = expression(p);
        expect(p, QT_SEMI, "after the variable declaration");
        return n;
    }
    if (check(p, QT_FN)) {
        /* "fn name(...)" declares; "fn (...)" is a lambda expression */
        qx_lexer save_lex = p->lex;
        qx_token save_cur = p->cur;
        advance(p);
        if (check(p, QT_IDENT)) {
            n = node(p, QN_FNDEF, line);
            advance(p);
            n->u.fn.name = ident_name(p, &p->prev);
            parse_params(p, n);
            return function_body(p, n);
        }
        p->lex = save_lex;
        p->cur = save_cur;
    }
    if (accept(p, QT_PRINT)) {
        tmp_list items = { NULL, 0, 0 };
        n = node(p, QN_PRINT, line);
        if (!check(p, QT_SEMI)) {
            do {
                tmp_push(&items, expression(p));
            } while (accept(p, QT_COMMA));
        }
        expect(p, QT_SEMI, "after print");
        n->u.list = tmp_finish(p, &items);
        return n;
    }
    if (accept(p, QT_IF))
        return if_statement(p, line);
    if (accept(p, QT_WHILE)) {
        n = node(p, QN_WHILE, line);
        n->u.while_stmt.cond = expression(p);
        n->u.while_stmt.body = loop_body(p);
        return n;
    }
    if (accept(p, QT_FOR)) {
        n = node(p, QN_FOR, line);
        if (!check(p, QT_IDENT)) {
            error_here(p, "expected a loop variable after 'for'");
            return NULL;
        }
        advance(p);
        n->u.for_stmt.var = ident_name(p, &p->prev);
        expect(p, QT_IN, "after the loop variable");
        n->u.for_stmt.iter = expression(p);
        n->u.for_stmt.body = loop_body(p);
        return n;
    }
    if (accept(p, QT_RETURN)) {
        n = node(p, QN_RETURN, line);
        if (p->fn_depth == 0)
            error_prev(p, "'return' outside a function");
        if (!check(p, QT_SEMI))
            n->u.expr.expr = expression(p);
        expect(p, QT_SEMI, "after return");
        return n;
    }
    if (accept(p, QT_BREAK) || accept(p, QT_CONTINUE)) {
        n = node(p, p->prev.kind == QT_BREAK ? QN_BREAK : QN_CONTINUE, line);
        if (p->loop_depth == 0)
            error_prev(p, "'break' or 'continue' outside a loop");
        expect(p, QT_SEMI, "after the statement");
        return n;
    }
    if (check(p, QT_LBRACE))
        return block(p);
    n = node(p, QN_EXPR, line);
    n->u.expr.expr = expression(p);
    expect(p, QT_SEMI, "after the expression");
    return n;
}

qx_node *qx_parse(const char *src, size_t n, const char *name, q_arena *arena,
                  q_strbuf *errors)
{
    qx_parser p;
    tmp_list stmts = { NULL, 0, 0 };
    qx_node *program;

    memset(&p, 0, sizeof p);
    qx_lexer_init(&p.lex, src, n, name);
    p.arena = arena;
    p.errors = errors;
    depth = 0;
    program = node(&p, QN_BLOCK, 1);
    advance(&p);
    while (!check(&p, QT_EOF)) {
        qx_node *s = statement(&p);
        if (s != NULL)
            tmp_push(&stmts, s);
        if (p.panic)
            synchronize(&p);
        if (check(&p, QT_RBRACE) && !p.panic) {
            error_here(&p, "unmatched '}'");
            advance(&p);
            p.panic = 0;
        }
    }
    program->u.list = tmp_finish(&p, &stmts);
    return p.nerrors > 0 ? NULL : program;
}
