/*
 * util.c - allocation wrappers, string helpers and diagnostics.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quill.h"

static const char *progname = QUILL_NAME;
static int quiet_mode;
static int warnings;

/* ---- memory ------------------------------------------------------------ */

static void out_of_memory(size_t size)
{
    fprintf(stderr, "%s: out of memory (wanted %lu bytes)\n", progname,
            (unsigned long)size);
    exit(Q_EXIT_FAILURE);
}

void *q_malloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        out_of_memory(size);
    return p;
}

void *q_calloc(size_t count, size_t size)
{
    void *p;
    if (count != 0 && size > (size_t)-1 / count)
        out_of_memory((size_t)-1);
    p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        out_of_memory(count * size);
    return p;
}

void *q_realloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p == NULL)
        out_of_memory(size);
    return p;
}

void *q_grow_array(void *ptr, size_t *cap, size_t need, size_t elem)
{
    size_t n = *cap;
    if (need <= n)
        return ptr;
    if (n < 8)
        n = 8;
    while (n < need) {
        if (n > (size_t)-1 / 2)
            out_of_memory((size_t)-1);
        n += n / 2 + 1;
    }
    if (n > (size_t)-1 / elem)
        out_of_memory((size_t)-1);
    ptr = q_realloc(ptr, n * elem);
    *cap = n;
    return ptr;
}

/* ---- strings ----------------------------------------------------------- */

char *q_strdup(const char *s)
{
    return q_strndup(s, strlen(s));
}

char *q_strndup(const char *s, size_t n)
{
    char *p;
    size_t len = 0;
    while (len < n && s[len] != '\0')
        len++;
    p = q_malloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

int q_strcasecmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    for (;;) {
        int cx = tolower(*x), cy = tolower(*y);
        if (cx != cy || cx == 0)
            return cx - cy;
        x++;
        y++;
    }
}

int q_strncasecmp(const char *a, const char *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    while (n-- > 0) {
        int cx = tolower(*x), cy = tolower(*y);
        if (cx != cy || cx == 0)
            return cx - cy;
        x++;
        y++;
    }
    return 0;
}

int q_has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

int q_has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return m <= n && memcmp(s + n - m, suffix, m) == 0;
}

char *q_trim(char *s)
{
    char *end;
    while (*s != '\0' && isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    return s;
}

const char *q_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return path;
    if (slash[1] == '\0') {
        /* "dir/": the name before the trailing slash */
        const char *p = slash;
        while (p > path && p[-1] != '/')
            p--;
        return p;
    }
    return slash + 1;
}

int q_parse_long(const char *s, long *out)
{
    char *end;
    long v;
    if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtol(s, &end, 0);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int q_parse_double(const char *s, double *out)
{
    char *end;
    double v;
    if (s == NULL || *s == '\0' || isspace((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtod(s, &end);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return -1;
    if (*end != '\0')
        return -1;
    *out = v;
    return 0;
}

char *q_human_size(double bytes, char *buf, size_t size)
{
    static const char units[] = "KMGTPE";
    int u = -1;
    if (bytes < 1024.0) {
        snprintf(buf, size, "%.0f", bytes);
        return buf;
    }
    while (bytes >= 1024.0 && u < (int)sizeof(units) - 2) {
        bytes /= 1024.0;
        u++;
    }
    if (bytes < 10.0)
        snprintf(buf, size, "%.1f%c", bytes, units[u]);
    else
        snprintf(buf, size, "%.0f%c", bytes, units[u]);
    return buf;
}

/* ---- diagnostics ------------------------------------------------------- */

void q_set_progname(const char *argv0)
{
    if (argv0 != NULL && *argv0 != '\0')
        progname = q_basename(argv0);
}

const char *q_progname(void)
{
    return progname;
}

void q_set_quiet(int quiet)
{
    quiet_mode = quiet;
}

void q_vwarn(const char *fmt, va_list ap)
{
    warnings++;
    if (quiet_mode)
        return;
    fflush(stdout);
    fprintf(stderr, "%s: ", progname);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void q_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    q_vwarn(fmt, ap);
    va_end(ap);
}

void q_die(const char *fmt, ...)
{
    va_list ap;
    quiet_mode = 0;
    va_start(ap, fmt);
    q_vwarn(fmt, ap);
    va_end(ap);
    exit(Q_EXIT_FAILURE);
}

int q_warning_count(void)
{
    return warnings;
}
