/*
 * checksum.h - checksums and message digests.
 *
 * All algorithms have an incremental interface (init / update / final)
 * so that files can be processed in blocks, plus one-shot helpers.
 * The classic UNIX sum(1) algorithms (BSD and System V) are included
 * because their results are easy to check by hand against other tools.
 */
#ifndef QUILL_CHECKSUM_H
#define QUILL_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320). */
uint32_t q_crc32_update(uint32_t crc, const void *data, size_t len);
uint32_t q_crc32(const void *data, size_t len);

/* CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF). */
uint16_t q_crc16_update(uint16_t crc, const void *data, size_t len);
uint16_t q_crc16(const void *data, size_t len);

/* Adler-32 as used by zlib. */
uint32_t q_adler32_update(uint32_t adler, const void *data, size_t len);
uint32_t q_adler32(const void *data, size_t len);

/* Fowler-Noll-Vo, variant 1a. */
#define Q_FNV32_INIT  0x811c9dc5u
#define Q_FNV64_INIT  0xcbf29ce484222325ull
uint32_t q_fnv1a32_update(uint32_t h, const void *data, size_t len);
uint64_t q_fnv1a64_update(uint64_t h, const void *data, size_t len);

/* sum(1): BSD rotating checksum and System V additive checksum. */
typedef struct q_sum_state {
    uint32_t bsd;
    uint32_t sysv;
    uint64_t bytes;
} q_sum_state;
void q_sum_init(q_sum_state *st);
void q_sum_update(q_sum_state *st, const void *data, size_t len);
unsigned q_sum_bsd_final(const q_sum_state *st);
unsigned q_sum_sysv_final(const q_sum_state *st);

/* SHA-1 (FIPS 180-4).  Not for security; used to fingerprint files. */
typedef struct q_sha1 {
    uint32_t h[5];
    uint64_t length;        /* message length in bytes */
    unsigned char block[64];
    size_t fill;
} q_sha1;
void q_sha1_init(q_sha1 *s);
void q_sha1_update(q_sha1 *s, const void *data, size_t len);
void q_sha1_final(q_sha1 *s, unsigned char digest[20]);

/* Algorithm table used by the command line. */
typedef enum q_cksum_kind {
    Q_CK_CRC32,
    Q_CK_CRC16,
    Q_CK_ADLER32,
    Q_CK_FNV32,
    Q_CK_FNV64,
    Q_CK_BSD,
    Q_CK_SYSV,
    Q_CK_SHA1,
    Q_CK_COUNT
} q_cksum_kind;

typedef struct q_cksum {
    q_cksum_kind kind;
    union {
        uint32_t u32;
        uint16_t u16;
        uint64_t u64;
        q_sum_state sum;
        q_sha1 sha1;
    } st;
    uint64_t bytes;
} q_cksum;

const char *q_cksum_name(q_cksum_kind kind);
int q_cksum_lookup(const char *name, q_cksum_kind *kind);
void q_cksum_init(q_cksum *ck, q_cksum_kind kind);
void q_cksum_update(q_cksum *ck, const void *data, size_t len);
/* Writes the result as text (hex, or "sum blocks" for sum(1)). */
void q_cksum_format(const q_cksum *ck, char *out, size_t size);

/* Runs the built-in test vectors; returns the number of failures and
 * prints a line for each failure to `report` when it is not NULL. */
int q_cksum_selftest(FILE *report);

#endif /* QUILL_CHECKSUM_H */
