/*
 * lang.h - "qx", the small expression language behind "quill calc".
 *
 * A qx program is a sequence of statements:
 *
 *     let x = 3;                      # variables (function scoped)
 *     fn square(n) { return n * n; }  # named functions, closures
 *     print square(x) + 1;            # print one or more values
 *     if x > 2 { print "big"; } else { print "small"; }
 *     while x > 0 { x -= 1; }
 *     for w in split("a b c", " ") { print upper(w); }
 *
 * Values are nil, booleans, double-precision numbers, immutable strings,
 * lists and functions.  See doc/language.txt for the full grammar.
 *
 * The pipeline is lexer.c (text to tokens), parser.c (tokens to a tree
 * allocated in a q_arena), ast.c (tree utilities and constant folding),
 * value.c (the value model), eval.c (a tree-walking interpreter) and
 * builtins.c (the library of native functions).
 */
#ifndef QUILL_LANG_H
#define QUILL_LANG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quill.h"
#include "strbuf.h"
#include "hashtab.h"

/* ======================================================================
 * Tokens
 * ====================================================================== */

typedef enum qx_tok_kind {
    QT_EOF, QT_ERROR,
    QT_NUMBER, QT_STRING, QT_IDENT,
    /* keywords */
    QT_LET, QT_FN, QT_IF, QT_ELSE, QT_WHILE, QT_FOR, QT_IN, QT_RETURN,
    QT_BREAK, QT_CONTINUE, QT_TRUE, QT_FALSE, QT_NIL, QT_AND, QT_OR,
    QT_NOT, QT_PRINT,
    /* operators and punctuation */
    QT_PLUS, QT_MINUS, QT_STAR, QT_SLASH, QT_PERCENT, QT_CARET,
    QT_EQ, QT_NE, QT_LT, QT_LE, QT_GT, QT_GE,
    QT_ASSIGN, QT_PLUS_ASSIGN, QT_MINUS_ASSIGN, QT_STAR_ASSIGN,
    QT_SLASH_ASSIGN,
    QT_LPAREN, QT_RPAREN, QT_LBRACE, QT_RBRACE, QT_LBRACKET, QT_RBRACKET,
    QT_COMMA, QT_SEMI, QT_DOTDOT,
    QT_KIND_COUNT
} qx_tok_kind;

typedef struct qx_token {
    qx_tok_kind kind;
    const char *start;      /* points into the source text */
    size_t len;
    int line, col;
    double number;          /* value of a QT_NUMBER */
} qx_token;

typedef struct qx_lexer {
    const char *src, *p, *end;
    const char *line_start;
    const char *name;       /* source name for messages */
    int line;
    char message[160];      /* text of the last QT_ERROR */
} qx_lexer;

void qx_lexer_init(qx_lexer *lx, const char *src, size_t n, const char *name);
qx_token qx_lexer_next(qx_lexer *lx);
const char *qx_tok_name(qx_tok_kind kind);
/* Decodes the escapes of a string token (without its quotes) into out.
 * Returns 0, or -1 for a malformed escape. */
int qx_unescape(const char *s, size_t n, q_strbuf *out);

/* ======================================================================
 * Syntax tree
 * ====================================================================== */

typedef enum qx_kind {
    /* expressions */
    QN_NUM, QN_STR, QN_BOOL, QN_NIL, QN_VAR, QN_LIST,
    QN_UNARY, QN_BINARY, QN_LOGICAL, QN_RANGE,
    QN_ASSIGN, QN_INDEX, QN_INDEX_ASSIGN, QN_CALL, QN_LAMBDA,
    /* statements */
    QN_LET, QN_EXPR, QN_PRINT, QN_BLOCK, QN_IF, QN_WHILE, QN_FOR,
    QN_RETURN, QN_BREAK, QN_CONTINUE, QN_FNDEF,
    QN_KIND_COUNT
} qx_kind;

typedef struct qx_node qx_node;

typedef struct qx_nodelist {
    qx_node **items;
    size_t len;
} qx_nodelist;

struct qx_node {
    qx_kind kind;
    int line;
    union {
        double num;
        int boolean;
        struct { const char *chars; size_t len; } str;
        struct { const char *name; } var;
        struct { qx_tok_kind op; qx_node *operand; } unary;
        struct { qx_tok_kind op; qx_node *left, *right; } binary;
        struct { const char *name; qx_tok_kind op; qx_node *value; } assign;
        struct { qx_node *target, *index, *value; qx_tok_kind op; } index;
        struct { qx_node *callee; qx_nodelist args; } call;
        struct {
            const char *name;       /* NULL for a lambda */
            const char **params;
            size_t nparams;
            qx_node *body;          /* a QN_BLOCK */
        } fn;
        struct { const char *name; qx_node *value; } let;
        struct { qx_node *expr; } expr;
        qx_nodelist list;           /* QN_LIST, QN_BLOCK, QN_PRINT */
        struct { qx_node *cond, *then_branch, *else_branch; } if_stmt;
        struct { qx_node *cond, *body; } while_stmt;
        struct { const char *var; qx_node *iter, *body; } for_stmt;
    } u;
};

qx_node *qx_node_new(q_arena *a, qx_kind kind, int line);
qx_node **qx_nodes_copy(q_arena *a, qx_node **items, size_t n);
const char *qx_kind_name(qx_kind kind);
int qx_is_expression(const qx_node *n);

/* Writes the tree as an indented S-expression. */
void qx_dump(const qx_node *n, q_strbuf *out, int indent);

/* Folds constant sub-expressions in place; returns the number folded. */
int qx_fold_constants(qx_node *n);

/* Counts nodes by kind into counts[QN_KIND_COUNT]; returns the total. */
size_t qx_count_nodes(const qx_node *n, size_t *counts);

/* ======================================================================
 * Parser
 * ====================================================================== */

typedef struct qx_parser {
    qx_lexer lex;
    qx_token cur, prev;
    q_arena *arena;
    q_strbuf *errors;       /* messages are appended here */
    int nerrors;
    int panic;              /* suppress cascades until a synchronising token */
    int loop_depth;
    int fn_depth;
} qx_parser;

/* Parses a whole program into a QN_BLOCK.  Returns NULL when there were
 * syntax errors (described in *errors, one per line). */
qx_node *qx_parse(const char *src, size_t n, const char *name, q_arena *arena,
                  q_strbuf *errors);

/* ======================================================================
 * Values
 * ====================================================================== */

typedef enum qv_type {
    QV_NIL, QV_BOOL, QV_NUM, QV_STR, QV_LIST, QV_FN, QV_BUILTIN
} qv_type;

typedef struct qx_obj qx_obj;

typedef struct qx_value {
    qv_type type;
    union {
        int b;
        double n;
        qx_obj *o;
    } as;
} qx_value;

struct qx_obj {
    qx_obj *next;           /* every object, for freeing at the end */
    qv_type type;
};

typedef struct qx_string {
    qx_obj hdr;
    size_t len;
    uint32_t hash;
    char chars[];           /* len bytes plus a NUL */
} qx_string;

typedef struct qx_list {
    qx_obj hdr;
    qx_value *items;
    size_t len, cap;
} qx_list;

struct qx_env;
struct qx_interp;

typedef struct qx_function {
    qx_obj hdr;
    const qx_node *decl;    /* QN_FNDEF or QN_LAMBDA */
    struct qx_env *closure;
} qx_function;

typedef qx_value (*qx_native_fn)(struct qx_interp *in, int argc,
                                 qx_value *argv, int line);

typedef struct qx_builtin {
    qx_obj hdr;
    const char *name;
    int min_args, max_args;     /* max_args < 0: variadic */
    qx_native_fn fn;
} qx_builtin;

#define QV_IS_STR(v)  ((v).type == QV_STR)
#define QV_AS_STR(v)  ((qx_string *)(v).as.o)
#define QV_AS_LIST(v) ((qx_list *)(v).as.o)
#define QV_AS_FN(v)   ((qx_function *)(v).as.o)
#define QV_AS_BUILTIN(v) ((qx_builtin *)(v).as.o)

qx_value qv_nil(void);
qx_value qv_bool(int b);
qx_value qv_num(double n);
qx_value qv_obj(qx_obj *o);

qx_string *qx_string_new(struct qx_interp *in, const char *s, size_t n);
qx_value qv_str(struct qx_interp *in, const char *s, size_t n);
qx_value qv_cstr(struct qx_interp *in, const char *s);
qx_list *qx_list_new(struct qx_interp *in, size_t cap);
void qx_list_push(qx_list *l, qx_value v);
qx_value qx_list_pop(qx_list *l);
qx_function *qx_function_new(struct qx_interp *in, const qx_node *decl,
                             struct qx_env *closure);
qx_builtin *qx_builtin_new(struct qx_interp *in, const char *name,
                           int min_args, int max_args, qx_native_fn fn);
void qx_obj_free(qx_obj *o);

const char *qv_type_name(qv_type t);
int qv_truthy(qx_value v);
int qv_equal(qx_value a, qx_value b);
/* Orders numbers, strings and lists; *ok is cleared for other types. */
int qv_compare(qx_value a, qx_value b, int *ok);
/* Appends a printable form: repr != 0 quotes strings. */
void qv_format(q_strbuf *out, qx_value v, int repr);
void qv_format_number(q_strbuf *out, double n);

/* ======================================================================
 * Interpreter
 * ====================================================================== */

typedef struct qx_env {
    struct qx_env *parent;
    struct qx_env *next_all;    /* kept environments, for freeing */
    q_htab vars;                /* name -> qx_value* */
    int captured;               /* a closure refers to it: keep it */
} qx_env;

typedef enum qx_status {
    QX_RUN, QX_RETURN, QX_BREAK, QX_CONTINUE, QX_ERROR
} qx_status;

typedef struct qx_interp {
    qx_obj *objects;
    size_t nobjects;
    size_t bytes_allocated;
    qx_env *envs;               /* environments kept until the end */
    qx_env *globals;
    q_arena ast;                /* syntax trees: functions point into them */
    FILE *out;
    qx_status status;
    qx_value ret;               /* value of a pending return */
    q_strbuf error;             /* message of a runtime error */
    int error_line;
    int depth, max_depth;
    unsigned long steps, step_limit;
    unsigned long calls;
    const char *builtin_name;   /* the builtin being run, for messages */
} qx_interp;

void qx_interp_init(qx_interp *in, FILE *out);
void qx_interp_free(qx_interp *in);

qx_env *qx_env_new(qx_interp *in, qx_env *parent);
void qx_env_define(qx_env *env, const char *name, qx_value v);
qx_value *qx_env_find(qx_env *env, const char *name);

void qx_runtime_error(qx_interp *in, int line, const char *fmt, ...) Q_PRINTF(3, 4);

/* Runs a parsed program.  Returns 0, or -1 after a runtime error. */
int qx_run(qx_interp *in, const qx_node *program);
qx_value qx_eval(qx_interp *in, const qx_node *n, qx_env *env);
qx_value qx_call(qx_interp *in, qx_value callee, int argc, qx_value *argv,
                 int line);

/* Parses and runs source text; errors are printed to `err`. */
int qx_run_source(qx_interp *in, const char *src, size_t n, const char *name,
                  FILE *err, int dump_ast);

/* builtins.c */
void qx_install_builtins(qx_interp *in);
size_t qx_builtin_count(void);
const char *qx_builtin_name(size_t i);

#endif /* QUILL_LANG_H */
