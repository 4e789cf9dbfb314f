/*
 * checksum.c - CRC-32, CRC-16, Adler-32, FNV-1a, sum(1) and SHA-1.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "checksum.h"
#include "quill.h"

/* ---- CRC-32 ------------------------------------------------------------ */

static uint32_t crc32_table[256];
static int crc32_ready;

static void crc32_init_table(void)
{
    uint32_t i, j, c;
    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc32_table[i] = c;
    }
    crc32_ready = 1;
}

uint32_t q_crc32_update(uint32_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    if (!crc32_ready)
        crc32_init_table();
    crc = ~crc;
    while (len >= 4) {
        crc = crc32_table[(crc ^ p[0]) & 0xff] ^ (crc >> 8);
        crc = crc32_table[(crc ^ p[1]) & 0xff] ^ (crc >> 8);
        crc = crc32_table[(crc ^ p[2]) & 0xff] ^ (crc >> 8);
        crc = crc32_table[(crc ^ p[3]) & 0xff] ^ (crc >> 8);
        p += 4;
        len -= 4;
    }
    while (len-- > 0)
        crc = crc32_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

uint32_t q_crc32(const void *data, size_t len)
{
    return q_crc32_update(0, data, len);
}

/* ---- CRC-16/CCITT ------------------------------------------------------ */

uint16_t q_crc16_update(uint16_t crc, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t i;
    int b;
    for (i = 0; i < len; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (b = 0; b < 8; b++) {
            if (crc & 0x8000)
                crc = (uint16_t)((crc << 1) ^ 0x1021);
            else
                crc = (uint16_t)(crc << 1);
        }
    }
    return crc;
}

uint16_t q_crc16(const void *data, size_t len)
{
    return q_crc16_update(0xFFFF, data, len);
}

/* ---- Adler-32 ---------------------------------------------------------- */

#define ADLER_MOD  65521u
#define ADLER_NMAX 5552     /* largest n with 255n(n+1)/2 + (n+1)(MOD-1) < 2^32 */

uint32_t q_adler32_update(uint32_t adler, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (len > 0) {
        size_t n = len < ADLER_NMAX ? len : ADLER_NMAX;
        len -= n;
        while (n-- > 0) {
            a += *p++;
            b += a;
        }
        a %= ADLER_MOD;
        b %= ADLER_MOD;
    }
    return (b << 16) | a;
}

uint32_t q_adler32(const void *data, size_t len)
{
    return q_adler32_update(1, data, len);
}

/* ---- FNV-1a ------------------------------------------------------------ */

uint32_t q_fnv1a32_update(uint32_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len-- > 0) {
        h ^= *p++;
        h *= 0x01000193u;
    }
    return h;
}

uint64_t q_fnv1a64_update(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    while (len-- > 0) {
        h ^= *p++;
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ---- sum(1) ------------------------------------------------------------ */

void q_sum_init(q_sum_state *st)
{
    st->bsd = 0;
    st->sysv = 0;
    st->bytes = 0;
}

void q_sum_update(q_sum_state *st, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t bsd = st->bsd, sysv = st->sysv;
    size_t i;
    for (i = 0; i < len; i++) {
        bsd = (bsd >> 1) + ((bsd & 1) << 15);
        bsd = (bsd + p[i]) & 0xffff;
        sysv += p[i];
    }
    st->bsd = bsd;
    st->sysv = sysv;
    st->bytes += len;
}

unsigned q_sum_bsd_final(const q_sum_state *st)
{
    return (unsigned)st->bsd;
}

unsigned q_sum_sysv_final(const q_sum_state *st)
{
    uint32_t r = (st->sysv & 0xffff) + (st->sysv >> 16);
    return (unsigned)((r & 0xffff) + (r >> 16));
}

/* ---- SHA-1 ------------------------------------------------------------- */

#define ROL32(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

static void sha1_block(q_sha1 *s, const unsigned char *blk)
{
    uint32_t w[80];
    uint32_t a, b, c, d, e, f, k, t;
    int i;

    for (i = 0; i < 16; i++) {
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16
             | (uint32_t)blk[4 * i + 2] << 8 | (uint32_t)blk[4 * i + 3];
    }
    for (i = 16; i < 80; i++) {
        t = w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16];
        w[i] = ROL32(t, 1);
    }
    a = s->h[0];
    b = s->h[1];
    c = s->h[2];
    d = s->h[3];
    e = s->h[4];
    for (i = 0; i < 80; i++) {
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        t = ROL32(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = ROL32(b, 30);
        b = a;
        a = t;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

void q_sha1_init(q_sha1 *s)
{
    s->h[0] = 0x67452301u;
    s->h[1] = 0xEFCDAB89u;
    s->h[2] = 0x98BADCFEu;
    s->h[3] = 0x10325476u;
    s->h[4] = 0xC3D2E1F0u;
    s->length = 0;
    s->fill = 0;
}

void q_sha1_update(q_sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->length += len;
    if (s->fill > 0) {
        size_t take = 64 - s->fill;
        if (take > len)
            take = len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill < 64)
            return;
        sha1_block(s, s->block);
        s->fill = 0;
    }
    while (len >= 64) {
        sha1_block(s, p);
        p += 64;
        len -= 64;
    }
    if (len > 0) {
        memcpy(s->block, p, len);
        s->fill = len;
    }
}

void q_sha1_final(q_sha1 *s, unsigned char digest[20])
{
    uint64_t bits = s->length * 8;
    unsigned char pad[72];
    size_t padlen;
    int i;

    memset(pad, 0, sizeof pad);
    pad[0] = 0x80;
    padlen = (s->fill < 56) ? 56 - s->fill : 120 - s->fill;
    for (i = 0; i < 8; i++)
        pad[padlen + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    /* update() would count the padding in s->length; bits is saved above */
    q_sha1_update(s, pad, padlen + 8);
    for (i = 0; i < 5; i++) {
        digest[4 * i] = (unsigned char)(s->h[i] >> 24);
        digest[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        digest[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        digest[4 * i + 3] = (unsigned char)s->h[i];
    }
}

/* ---- algorithm table --------------------------------------------------- */

static const char *const cksum_names[Q_CK_COUNT] = {
    "crc32", "crc16", "adler32", "fnv32", "fnv64", "bsd", "sysv", "sha1"
};

const char *q_cksum_name(q_cksum_kind kind)
{
    return (unsigned)kind < Q_CK_COUNT ? cksum_names[kind] : "?";
}

int q_cksum_lookup(const char *name, q_cksum_kind *kind)
{
    int i;
    for (i = 0; i < Q_CK_COUNT; i++) {
        if (q_strcasecmp(name, cksum_names[i]) == 0) {
            *kind = (q_cksum_kind)i;
            return 0;
        }
    }
    if (q_strcasecmp(name, "crc") == 0) {
        *kind = Q_CK_CRC32;
        return 0;
    }
    if (q_strcasecmp(name, "sum") == 0) {
        *kind = Q_CK_BSD;
        return 0;
    }
    return -1;
}

void q_cksum_init(q_cksum *ck, q_cksum_kind kind)
{
    memset(ck, 0, sizeof *ck);
    ck->kind = kind;
    switch (kind) {
    case Q_CK_CRC32:   ck->st.u32 = 0; break;
    case Q_CK_CRC16:   ck->st.u16 = 0xFFFF; break;
    case Q_CK_ADLER32: ck->st.u32 = 1; break;
    case Q_CK_FNV32:   ck->st.u32 = Q_FNV32_INIT; break;
    case Q_CK_FNV64:   ck->st.u64 = Q_FNV64_INIT; break;
    case Q_CK_BSD:
    case Q_CK_SYSV:    q_sum_init(&ck->st.sum); break;
    case Q_CK_SHA1:    q_sha1_init(&ck->st.sha1); break;
    default:           break;
    }
}

void q_cksum_update(q_cksum *ck, const void *data, size_t len)
{
    ck->bytes += len;
    switch (ck->kind) {
    case Q_CK_CRC32:
        ck->st.u32 = q_crc32_update(ck->st.u32, data, len);
        break;
    case Q_CK_CRC16:
        ck->st.u16 = q_crc16_update(ck->st.u16, data, len);
        break;
    case Q_CK_ADLER32:
        ck->st.u32 = q_adler32_update(ck->st.u32, data, len);
        break;
    case Q_CK_FNV32:
        ck->st.u32 = q_fnv1a32_update(ck->st.u32, data, len);
        break;
    case Q_CK_FNV64:
        ck->st.u64 = q_fnv1a64_update(ck->st.u64, data, len);
        break;
    case Q_CK_BSD:
    case Q_CK_SYSV:
        q_sum_update(&ck->st.sum, data, len);
        break;
    case Q_CK_SHA1:
        q_sha1_update(&ck->st.sha1, data, len);
        break;
    default:
        break;
    }
}

void q_cksum_format(const q_cksum *ck, char *out, size_t size)
{
    unsigned long blocks;
    switch (ck->kind) {
    case Q_CK_CRC32:
    case Q_CK_ADLER32:
    case Q_CK_FNV32:
        snprintf(out, size, "%08lx", (unsigned long)ck->st.u32);
        break;
    case Q_CK_CRC16:
        snprintf(out, size, "%04x", (unsigned)ck->st.u16);
        break;
    case Q_CK_FNV64:
        snprintf(out, size, "%016llx", (unsigned long long)ck->st.u64);
        break;
    case Q_CK_BSD:
        blocks = (unsigned long)((ck->bytes + 1023) / 1024);
        snprintf(out, size, "%05u %5lu", q_sum_bsd_final(&ck->st.sum), blocks);
        break;
    case Q_CK_SYSV:
        blocks = (unsigned long)((ck->bytes + 511) / 512);
        snprintf(out, size, "%u %lu", q_sum_sysv_final(&ck->st.sum), blocks);
        break;
    case Q_CK_SHA1: {
        q_sha1 copy = ck->st.sha1;
        unsigned char d[20];
        size_t i;
        q_sha1_final(&copy, d);
        for (i = 0; i < 20 && 2 * i + 2 < size; i++)
            snprintf(out + 2 * i, 3, "%02x", d[i]);
        break;
    }
    default:
        snprintf(out, size, "?");
        break;
    }
}

/* ---- self test --------------------------------------------------------- */

struct vector {
    q_cksum_kind kind;
    const char *input;
    const char *expect;
};

static const struct vector vectors[] = {
    { Q_CK_CRC32, "123456789", "cbf43926" },
    { Q_CK_CRC32, "", "00000000" },
    { Q_CK_CRC16, "123456789", "29b1" },
    { Q_CK_ADLER32, "Wikipedia", "11e60398" },
    { Q_CK_ADLER32, "", "00000001" },
    { Q_CK_FNV32, "", "811c9dc5" },
    { Q_CK_FNV32, "a", "e40c292c" },
    { Q_CK_FNV64, "a", "af63dc4c8601ec8c" },
    { Q_CK_SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709" },
    { Q_CK_SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d" },
    { Q_CK_SHA1, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "84983e441c3bd26ebaae4aa1f95129e5e54670f1" },
};

int q_cksum_selftest(FILE *report)
{
    size_t i;
    int failures = 0;
    char got[64];
    for (i = 0; i < Q_ARRAY_LEN(vectors); i++) {
        q_cksum ck;
        q_cksum_init(&ck, vectors[i].kind);
        q_cksum_update(&ck, vectors[i].input, strlen(vectors[i].input));
        q_cksum_format(&ck, got, sizeof got);
        if (strcmp(got, vectors[i].expect) != 0) {
            failures++;
            if (report != NULL)
                fprintf(report, "%s(\"%s\") = %s, expected %s\n",
                        q_cksum_name(vectors[i].kind), vectors[i].input, got,
                        vectors[i].expect);
        }
    }
    return failures;
}
