/*
 * utf8.c - decoding, encoding, validation, display width and simple case
 * mapping of UTF-8 text.
 *
 * The decoder is strict: it rejects overlong forms, surrogates, code
 * points above U+10FFFF and truncated sequences.  Callers that want to
 * carry on after an invalid byte treat it as U+FFFD and advance by one.
 */
#include <stddef.h>
#include <stdint.h>

#include "textio.h"

long q_utf8_decode(const unsigned char *s, size_t n, size_t *adv)
{
    unsigned c;
    uint32_t cp, min;
    size_t need, i;

    *adv = 1;
    if (n == 0)
        return -1;
    c = s[0];
    if (c < 0x80)
        return (long)c;
    if (c < 0xC2)
        return -1;                      /* continuation byte or overlong */
    if (c < 0xE0) {
        need = 1;
        cp = c & 0x1F;
        min = 0x80;
    } else if (c < 0xF0) {
        need = 2;
        cp = c & 0x0F;
        min = 0x800;
    } else if (c < 0xF5) {
        need = 3;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return -1;
    }
    if (n < need + 1)
        return -1;
    for (i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return -1;
    *adv = need + 1;
    return (long)cp;
}

size_t q_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        o[0] = (unsigned char)(0xF0 | (cp >> 18));
        o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (unsigned char)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}

size_t q_utf8_length(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t count = 0, i = 0, adv;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
        } else {
            q_utf8_decode(p + i, n - i, &adv);
            i += adv;
        }
        count++;
    }
    return count;
}

size_t q_utf8_validate(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, adv;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        if (q_utf8_decode(p + i, n - i, &adv) < 0)
            return i;
        i += adv;
    }
    return n;
}

/* ---- display width ----------------------------------------------------- */

struct cp_range {
    uint32_t lo, hi;
};

static const struct cp_range zero_width[] = {
    { 0x0300, 0x036F }, { 0x0483, 0x0489 }, { 0x0591, 0x05BD },
    { 0x0610, 0x061A }, { 0x064B, 0x065F }, { 0x0E31, 0x0E31 },
    { 0x0E34, 0x0E3A }, { 0x1AB0, 0x1AFF }, { 0x1DC0, 0x1DFF },
    { 0x200B, 0x200F }, { 0x20D0, 0x20FF }, { 0xFE00, 0xFE0F },
    { 0xFE20, 0xFE2F }, { 0xFEFF, 0xFEFF }
};

static const struct cp_range double_width[] = {
    { 0x1100, 0x115F }, { 0x2E80, 0x303E }, { 0x3041, 0x33FF },
    { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF }, { 0xA000, 0xA4CF },
    { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE30, 0xFE4F },
    { 0xFF00, 0xFF60 }, { 0xFFE0, 0xFFE6 }, { 0x1F300, 0x1F64F },
    { 0x1F900, 0x1F9FF }, { 0x20000, 0x2FFFD }, { 0x30000, 0x3FFFD }
};

static int in_table(uint32_t cp, const struct cp_range *t, size_t n)
{
    size_t lo = 0, hi = n;
    if (cp < t[0].lo || cp > t[n - 1].hi)
        return 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < t[mid].lo)
            hi = mid;
        else if (cp > t[mid].hi)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}

int q_utf8_width(uint32_t cp)
{
    if (cp == 0)
        return 0;
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0))
        return 0;
    if (cp < 0x300)
        return 1;
    if (in_table(cp, zero_width, Q_ARRAY_LEN(zero_width)))
        return 0;
    if (in_table(cp, double_width, Q_ARRAY_LEN(double_width)))
        return 2;
    return 1;
}

size_t q_utf8_display_width(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, adv, width = 0;
    while (i < n) {
        long cp;
        if (p[i] < 0x80) {
            if (p[i] == '\t')
                width = (width + 8) & ~(size_t)7;
            else if (p[i] >= 0x20 && p[i] != 0x7F)
                width++;
            i++;
            continue;
        }
        cp = q_utf8_decode(p + i, n - i, &adv);
        width += cp < 0 ? 1 : (size_t)q_utf8_width((uint32_t)cp);
        i += adv;
    }
    return width;
}

/* ---- case mapping ------------------------------------------------------ */

/* Upper-case letters lo..hi (every `step`-th one) map to cp + delta. */
struct case_range {
    uint32_t lo, hi;
    uint32_t delta;
    uint32_t step;
};

static const struct case_range case_ranges[] = {
    { 0x0041, 0x005A, 32, 1 },      /* ASCII */
    { 0x00C0, 0x00D6, 32, 1 },      /* Latin-1 */
    { 0x00D8, 0x00DE, 32, 1 },
    { 0x0100, 0x012F, 1, 2 },       /* Latin Extended-A */
    { 0x0132, 0x0137, 1, 2 },
    { 0x0139, 0x0148, 1, 2 },
    { 0x014A, 0x0177, 1, 2 },
    { 0x0179, 0x017E, 1, 2 },
    { 0x0391, 0x03A1, 32, 1 },      /* Greek */
    { 0x03A3, 0x03AB, 32, 1 },
    { 0x0400, 0x040F, 80, 1 },      /* Cyrillic */
    { 0x0410, 0x042F, 32, 1 },
    { 0x0460, 0x0481, 1, 2 },
    { 0x048A, 0x04BF, 1, 2 },
    { 0x1E00, 0x1E95, 1, 2 },       /* Latin Extended Additional */
    { 0xFF21, 0xFF3A, 32, 1 }       /* fullwidth */
};

uint32_t q_utf8_tolower(uint32_t cp)
{
    size_t i;
    if (cp < 0x80)
        return (cp >= 'A' && cp <= 'Z') ? cp + 32 : cp;
    if (cp == 0x0178)
        return 0x00FF;
    for (i = 0; i < Q_ARRAY_LEN(case_ranges); i++) {
        const struct case_range *r = &case_ranges[i];
        if (cp < r->lo)
            break;
        if (cp <= r->hi && (cp - r->lo) % r->step == 0)
            return cp + r->delta;
    }
    return cp;
}

uint32_t q_utf8_toupper(uint32_t cp)
{
    size_t i;
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') ? cp - 32 : cp;
    if (cp == 0x00FF)
        return 0x0178;
    for (i = 0; i < Q_ARRAY_LEN(case_ranges); i++) {
        const struct case_range *r = &case_ranges[i];
        uint32_t lo = r->lo + r->delta, hi = r->hi + r->delta;
        if (cp >= lo && cp <= hi && (cp - lo) % r->step == 0)
            return cp - r->delta;
    }
    return cp;
}

void q_utf8_fold(q_strbuf *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, adv;
    char enc[4];
    while (i < n) {
        long cp;
        if (p[i] < 0x80) {
            q_sb_putc(out, (p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
            i++;
            continue;
        }
        cp = q_utf8_decode(p + i, n - i, &adv);
        if (cp < 0) {
            q_sb_putc(out, p[i]);
        } else {
            size_t len = q_utf8_encode(q_utf8_tolower((uint32_t)cp), enc);
            q_sb_appendn(out, enc, len);
        }
        i += adv;
    }
}
