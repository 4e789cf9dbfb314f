/*
 * glob.c - shell-style wildcard matching.
 *
 *   *        any run of characters (not '/' with Q_GLOB_PATHNAME)
 *   ?        any one character
 *   [abc]    one of the listed characters; ranges "a-z"; "[!x]" or
 *            "[^x]" negates; classes "[[:alpha:]]", "[[:digit:]]", ...
 *   \c       the character c itself (unless Q_GLOB_NOESCAPE)
 *
 * The matcher is iterative.  It remembers only the most recent '*' and
 * on a mismatch lets that star swallow one more character.  Earlier stars
 * never need to be revisited: whatever they could swallow, the last star
 * can swallow as well, so matching takes O(len(pattern) * len(string)).
 */
#include <ctype.h>
#include <string.h>
#include <stdlib.h>

#include "textio.h"

struct char_class {
    const char *name;
    int (*test)(int c);
};

static int is_blank(int c)
{
    return c == ' ' || c == '\t';
}

static const struct char_class classes[] = {
    { "alnum", isalnum }, { "alpha", isalpha }, { "blank", is_blank },
    { "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
    { "lower", islower }, { "print", isprint }, { "punct", ispunct },
    { "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit }
};

static int fold_char(int c, int flags)
{
    return (flags & Q_GLOB_FOLD) ? tolower(c) : c;
}

/* Tries to read "[:name:]" at p.  On success stores the class and returns
 * the position after it; otherwise returns NULL. */
static const char *read_class(const char *p, const struct char_class **cls)
{
    const char *end;
    size_t len, i;
    if (p[0] != '[' || p[1] != ':')
        return NULL;
    end = strstr(p + 2, ":]");
    if (end == NULL)
        return NULL;
    len = (size_t)(end - (p + 2));
    for (i = 0; i < Q_ARRAY_LEN(classes); i++) {
        if (strlen(classes[i].name) == len && strncmp(classes[i].name, p + 2, len) == 0) {
            *cls = &classes[i];
            return end + 2;
        }
    }
    return NULL;
}

/* *pp points just after '['.  Returns 1 (match), 0 (no match) or -1 for a
 * malformed bracket expression, and leaves *pp after the closing ']'. */
static int match_bracket(const char **pp, unsigned char c, int flags)
{
    const char *p = *pp;
    int negate = 0, matched = 0, first = 1;
    int fc = fold_char(c, flags);

    if (*p == '!' || *p == '^') {
        negate = 1;
        p++;
    }
    for (;;) {
        const struct char_class *cls = NULL;
        const char *after;
        int lo, hi;

        if (*p == '\0')
            return -1;
        if (*p == ']' && !first) {
            p++;
            break;
        }
        first = 0;
        after = read_class(p, &cls);
        if (after != NULL) {
            if (cls->test(c) || ((flags & Q_GLOB_FOLD) && cls->test(fc)))
                matched = 1;
            p = after;
            continue;
        }
        if (*p == '\\' && !(flags & Q_GLOB_NOESCAPE) && p[1] != '\0')
            p++;
        lo = (unsigned char)*p++;
        hi = lo;
        if (p[0] == '-' && p[1] != ']' && p[1] != '\0') {
            p++;
            if (*p == '\\' && !(flags & Q_GLOB_NOESCAPE) && p[1] != '\0')
                p++;
            hi = (unsigned char)*p++;
        }
        if (lo <= c && c <= hi) {
            matched = 1;
        } else if (flags & Q_GLOB_FOLD) {
            int up = toupper(c);
            if ((lo <= fc && fc <= hi) || (lo <= up && up <= hi))
                matched = 1;
        }
    }
    *pp = p;
    if ((flags & Q_GLOB_PATHNAME) && c == '/')
        return 0;
    return matched != negate;
}

int q_glob_match(const char *pattern, const char *s, int flags)
{
    const char *p = pattern;
    const char *star_p = NULL, *star_s = NULL;

    for (;;) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star_p = p;
            star_s = s;
            continue;
        }
        if (*s == '\0')
            return *p == '\0';
        if (*p != '\0') {
            switch (*p) {
            case '?':
                if (!((flags & Q_GLOB_PATHNAME) && *s == '/')) {
                    p++;
                    s++;
                    continue;
                }
                break;
            case '[': {
                const char *q = p + 1;
                int r = match_bracket(&q, (unsigned char)*s, flags);
                if (r < 0)
                    return -1;
                if (r > 0) {
                    p = q;
                    s++;
                    continue;
                }
                break;
            }
            case '\\':
                if (!(flags & Q_GLOB_NOESCAPE) && p[1] != '\0') {
                    if (fold_char((unsigned char)p[1], flags) ==
                        fold_char((unsigned char)*s, flags)) {
                        p += 2;
                        s++;
                        continue;
                    }
                    break;
                }
                /* fall through: a trailing backslash is literal */
            default:
                if (fold_char((unsigned char)*p, flags) ==
                    fold_char((unsigned char)*s, flags)) {
                    p++;
                    s++;
                    continue;
                }
                break;
            }
        }
        /* mismatch: let the last star swallow one more character */
        if (star_p == NULL || *star_s == '\0')
            return 0;
        if ((flags & Q_GLOB_PATHNAME) && *star_s == '/')
            return 0;
        star_s++;
        s = star_s;
        p = star_p;
    }
}

long q_glob_search(const char *pattern, const char *s, int flags, size_t *len)
{
    size_t n = strlen(s), start, end;
    char *buf;
    long found = -1;

    buf = q_strndup(s, n);
    for (start = 0; start <= n && found < 0; start++) {
        for (end = n + 1; end-- > start;) {
            char saved = buf[end];
            int r;
            buf[end] = '\0';
            r = q_glob_match(pattern, buf + start, flags);
            buf[end] = saved;
            if (r < 0) {
                free(buf);
                return -1;
            }
            if (r > 0) {
                found = (long)start;
                *len = end - start;
                break;
            }
        }
    }
    free(buf);
    return found;
}

int q_glob_has_magic(const char *pattern)
{
    const char *p;
    for (p = pattern; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == '*' || *p == '?' || *p == '[')
            return 1;
    }
    return 0;
}
