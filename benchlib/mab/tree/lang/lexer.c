/*
 * lexer.c - turns qx source text into tokens.
 *
 * Tokens point into the source, which must outlive them.  Comments run
 * from '#' to the end of the line.  Numbers are decimal with an optional
 * fraction and exponent, or hexadecimal with a 0x prefix; an underscore
 * may separate digits ("1_000_000").  Strings are delimited by double or
 * single quotes and may contain the escapes \n \t \r \0 \\ \" \' \xHH
 * and \u{HHHH}.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "textio.h"

static const char *const tok_names[QT_KIND_COUNT] = {
    "end of input", "error",
    "number", "string", "identifier",
    "'let'", "'fn'", "'if'", "'else'", "'while'", "'for'", "'in'", "'return'",
    "'break'", "'continue'", "'true'", "'false'", "'nil'", "'and'", "'or'",
    "'not'", "'print'",
    "'+'", "'-'", "'*'", "'/'", "'%'", "'^'",
    "'=='", "'!='", "'<'", "'<='", "'>'", "'>='",
    "'='", "'+='", "'-='", "'*='", "'/='",
    "'('", "')'", "'{'", "'}'", "'['", "']'",
    "','", "';'", "'..'"
};

const char *qx_tok_name(qx_tok_kind kind)
{
    return (unsigned)kind < QT_KIND_COUNT ? tok_names[kind] : "?";
}

struct keyword {
    const char *word;
    qx_tok_kind kind;
};

/* sorted for binary search */
static const struct keyword keywords[] = {
    { "and", QT_AND },       { "break", QT_BREAK },   { "continue", QT_CONTINUE },
    { "else", QT_ELSE },     { "false", QT_FALSE },   { "fn", QT_FN },
    { "for", QT_FOR },       { "if", QT_IF },         { "in", QT_IN },
    { "let", QT_LET },       { "nil", QT_NIL },       { "not", QT_NOT },
    { "or", QT_OR },         { "print", QT_PRINT },   { "return", QT_RETURN },
    { "true", QT_TRUE },     { "while", QT_WHILE }
};

static qx_tok_kind keyword_kind(const char *s, size_t n)
{
    size_t lo = 0, hi = Q_ARRAY_LEN(keywords);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *k = keywords[mid].word;
        size_t klen = strlen(k);
        int c = strncmp(s, k, n < klen ? n : klen);
        if (c == 0)
            c = (n > klen) - (n < klen);
        if (c == 0)
            return keywords[mid].kind;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return QT_IDENT;
}

void qx_lexer_init(qx_lexer *lx, const char *src, size_t n, const char *name)
{
    lx->src = src;
    lx->p = src;
    lx->end = src + n;
    lx->line_start = src;
    lx->name = name ? name : "<input>";
    lx->line = 1;
    lx->message[0] = '\0';
    /* skip a UTF-8 byte order mark and a "#!" line */
    if (n >= 3 && (unsigned char)src[0] == 0xEF && (unsigned char)src[1] == 0xBB
        && (unsigned char)src[2] == 0xBF)
        lx->p += 3;
}

static qx_token make(qx_lexer *lx, qx_tok_kind kind, const char *start)
{
    qx_token t;
    t.kind = kind;
    t.start = start;
    t.len = (size_t)(lx->p - start);
    t.line = lx->line;
    t.col = (int)(start - lx->line_start) + 1;
    t.number = 0.0;
    return t;
}

static qx_token error_token(qx_lexer *lx, const char *start, const char *msg)
{
    qx_token t = make(lx, QT_ERROR, start);
    snprintf(lx->message, sizeof lx->message, "%s", msg);
    return t;
}

static void skip_space(qx_lexer *lx)
{
    while (lx->p < lx->end) {
        char c = *lx->p;
        if (c == '\n') {
            lx->p++;
            lx->line++;
            lx->line_start = lx->p;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            lx->p++;
        } else if (c == '#') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else {
            break;
        }
    }
}

static int peek_is(const qx_lexer *lx, size_t ahead, char c)
{
    return lx->p + ahead < lx->end && lx->p[ahead] == c;
}

static qx_token lex_number(qx_lexer *lx, const char *start)
{
    char buf[128];
    size_t k = 0;
    char *endp;
    qx_token t;
    int hex = 0;

    if (*lx->p == '0' && lx->p + 1 < lx->end && (lx->p[1] == 'x' || lx->p[1] == 'X')) {
        hex = 1;
        buf[k++] = '0';
        buf[k++] = 'x';
        lx->p += 2;
        while (lx->p < lx->end && (isxdigit((unsigned char)*lx->p) || *lx->p == '_')) {
            if (*lx->p != '_' && k < sizeof buf - 1)
                buf[k++] = *lx->p;
            lx->p++;
        }
        if (k == 2)
            return error_token(lx, start, "hexadecimal number without digits");
    } else {
        while (lx->p < lx->end && (isdigit((unsigned char)*lx->p) || *lx->p == '_')) {
            if (*lx->p != '_' && k < sizeof buf - 1)
                buf[k++] = *lx->p;
            lx->p++;
        }
        /* a fraction, but not the range operator "1..5" */
        if (lx->p + 1 < lx->end && *lx->p == '.' && lx->p[1] != '.') {
            buf[k++] = *lx->p++;
            while (lx->p < lx->end && (isdigit((unsigned char)*lx->p) || *lx->p == '_')) {
                if (*lx->p != '_' && k < sizeof buf - 1)
                    buf[k++] = *lx->p;
                lx->p++;
            }
        }
        if (lx->p < lx->end && (*lx->p == 'e' || *lx->p == 'E')) {
            const char *save = lx->p;
            size_t ksave = k;
            if (k < sizeof buf - 1)
                buf[k++] = *lx->p;
            lx->p++;
            if (lx->p < lx->end && (*lx->p == '+' || *lx->p == '-')) {
                if (k < sizeof buf - 1)
                    buf[k++] = *lx->p;
                lx->p++;
            }
            if (lx->p >= lx->end || !isdigit((unsigned char)*lx->p)) {
                /* not an exponent after all: "2e" is 2 then identifier e */
                lx->p = save;
                k = ksave;
            } else {
                while (lx->p < lx->end && isdigit((unsigned char)*lx->p)) {
                    if (k < sizeof buf - 1)
                        buf[k++] = *lx->p;
                    lx->p++;
                }
            }
        }
    }
    if (lx->p < lx->end && (isalpha((unsigned char)*lx->p) || *lx->p == '_'))
        return error_token(lx, start, "malformed number");
    buf[k] = '\0';
    t = make(lx, QT_NUMBER, start);
    if (hex)
        t.number = (double)strtoul(buf, &endp, 16);
    else
        t.number = strtod(buf, &endp);
    return t;
}

static qx_token lex_string(qx_lexer *lx, const char *start)
{
    char quote = *lx->p++;
    int start_line = lx->line;
    const char *start_ls = lx->line_start;
    qx_token t;
    while (lx->p < lx->end && *lx->p != quote) {
        if (*lx->p == '\\' && lx->p + 1 < lx->end) {
            if (lx->p[1] == '\n') {
                lx->line++;
                lx->line_start = lx->p + 2;
            }
            lx->p += 2;
            continue;
        }
        if (*lx->p == '\n') {
            lx->line++;
            lx->line_start = lx->p + 1;
        }
        lx->p++;
    }
    if (lx->p >= lx->end) {
        t = error_token(lx, start, "unterminated string");
    } else {
        lx->p++;
        t = make(lx, QT_STRING, start);
    }
    /* report the position where the string began */
    t.line = start_line;
    t.col = (int)(start - start_ls) + 1;
    return t;
}

qx_token qx_lexer_next(qx_lexer *lx)
{
    const char *start;
    char c;

    skip_space(lx);
    start = lx->p;
    if (lx->p >= lx->end)
        return make(lx, QT_EOF, start);
    c = *lx->p;
    if (isalpha((unsigned char)c) || c == '_') {
        while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
            lx->p++;
        return make(lx, keyword_kind(start, (size_t)(lx->p - start)), start);
    }
    if (isdigit((unsigned char)c))
        return lex_number(lx, start);
    if (c == '.' && lx->p + 1 < lx->end && isdigit((unsigned char)lx->p[1]))
        return lex_number(lx, start);
    if (c == '"' || c == '\'')
        return lex_string(lx, start);

    lx->p++;
    switch (c) {
    case '+':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_PLUS_ASSIGN, start); }
        return make(lx, QT_PLUS, start);
    case '-':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_MINUS_ASSIGN, start); }
        return make(lx, QT_MINUS, start);
    case '*':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_STAR_ASSIGN, start); }
        if (peek_is(lx, 0, '*')) { lx->p++; return make(lx, QT_CARET, start); }
        return make(lx, QT_STAR, start);
    case '/':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_SLASH_ASSIGN, start); }
        return make(lx, QT_SLASH, start);
    case '%': return make(lx, QT_PERCENT, start);
    case '^': return make(lx, QT_CARET, start);
    case '=':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_EQ, start); }
        return make(lx, QT_ASSIGN, start);
    case '!':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_NE, start); }
        return make(lx, QT_NOT, start);
    case '<':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_LE, start); }
        return make(lx, QT_LT, start);
    case '>':
        if (peek_is(lx, 0, '=')) { lx->p++; return make(lx, QT_GE, start); }
        return make(lx, QT_GT, start);
    case '&':
        if (peek_is(lx, 0, '&')) { lx->p++; return make(lx, QT_AND, start); }
        break;
    case '|':
        if (peek_is(lx, 0, '|')) { lx->p++; return make(lx, QT_OR, start); }
        break;
    case '.':
        if (peek_is(lx, 0, '.')) { lx->p++; return make(lx, QT_DOTDOT, start); }
        break;
    case '(': return make(lx, QT_LPAREN, start);
    case ')': return make(lx, QT_RPAREN, start);
    case '{': return make(lx, QT_LBRACE, start);
    case '}': return make(lx, QT_RBRACE, start);
    case '[': return make(lx, QT_LBRACKET, start);
    case ']': return make(lx, QT_RBRACKET, start);
    case ',': return make(lx, QT_COMMA, start);
    case ';': return make(lx, QT_SEMI, start);
    default:
        break;
    }
    {
        char msg[64];
        if (isprint((unsigned char)c))
            snprintf(msg, sizeof msg, "unexpected character '%c'", c);
        else
            snprintf(msg, sizeof msg, "unexpected byte 0x%02x", (unsigned char)c);
        return error_token(lx, start, msg);
    }
}

static int hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int qx_unescape(const char *s, size_t n, q_strbuf *out)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i++];
        if (c != '\\') {
            q_sb_putc(out, c);
            continue;
        }
        if (i >= n)
            return -1;
        c = s[i++];
        switch (c) {
        case 'n': q_sb_putc(out, '\n'); break;
        case 't': q_sb_putc(out, '\t'); break;
        case 'r': q_sb_putc(out, '\r'); break;
        case '0': q_sb_putc(out, '\0'); break;
        case 'e': q_sb_putc(out, 0x1b); break;
        case '\\': case '"': case '\'':
            q_sb_putc(out, c);
            break;
        case '\n':
            /* backslash-newline continues a string on the next line */
            break;
        case 'x': {
            int hi, lo;
            if (i + 2 > n)
                return -1;
            hi = hex_value((unsigned char)s[i]);
            lo = hex_value((unsigned char)s[i + 1]);
            if (hi < 0 || lo < 0)
                return -1;
            q_sb_putc(out, hi * 16 + lo);
            i += 2;
            break;
        }
        case 'u': {
            unsigned long cp = 0;
            int digits = 0;
            char enc[4];
            size_t len;
            if (i >= n || s[i] != '{')
                return -1;
            i++;
            while (i < n && s[i] != '}') {
                int h = hex_value((unsigned char)s[i]);
                if (h < 0 || ++digits > 6)
                    return -1;
                cp = cp * 16 + (unsigned long)h;
                i++;
            }
            if (i >= n || digits == 0)
                return -1;
            i++;
            len = q_utf8_encode((uint32_t)cp, enc);
            if (len == 0)
                return -1;
            q_sb_appendn(out, enc, len);
            break;
        }
        default:
            return -1;
        }
    }
    return 0;
}
