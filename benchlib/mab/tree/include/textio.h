/*
 * textio.h - reading text: lines, words, UTF-8, glob patterns, and
 * paragraph filling.
 */
#ifndef QUILL_TEXTIO_H
#define QUILL_TEXTIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "quill.h"
#include "strbuf.h"

/* ---- textio.c: line reader -------------------------------------------- */

typedef struct q_reader {
    FILE *fp;
    const char *name;       /* for diagnostics; "-" is standard input */
    int owns_fp;            /* close fp in q_reader_close */
    unsigned long lineno;   /* number of the line last returned */
    unsigned long bytes;    /* bytes consumed so far */
    int had_cr;             /* last line ended in CR LF */
    int error;
    q_strbuf line;
} q_reader;

/* Opens a file, or standard input for "-" or NULL.  Returns 0 / -1. */
int q_reader_open(q_reader *r, const char *path);
void q_reader_from_stream(q_reader *r, FILE *fp, const char *name);
/* Reads the next line without its terminator into r->line.
 * Returns 1 when a line was read, 0 at end of input, -1 on error. */
int q_reader_next(q_reader *r);
void q_reader_close(q_reader *r);

/* A growable array of owned C strings, e.g. all lines of a file. */
typedef struct q_strvec {
    char **items;
    size_t len, cap;
} q_strvec;

void q_strvec_init(q_strvec *v);
void q_strvec_push(q_strvec *v, char *owned);
void q_strvec_push_copy(q_strvec *v, const char *s, size_t n);
void q_strvec_free(q_strvec *v);
/* Appends every line of a file; returns 0, or -1 when it can't be read. */
int q_strvec_read_lines(q_strvec *v, const char *path);
/* Splits s on sep (or on runs of blanks when sep is 0). */
void q_strvec_split(q_strvec *v, const char *s, char sep);
char *q_strvec_join(const q_strvec *v, const char *sep);

/* ---- textio.c: words --------------------------------------------------- */

typedef enum q_word_mode {
    Q_WORDS_ALNUM,      /* letters, digits, apostrophes inside words */
    Q_WORDS_BLANK,      /* anything between blanks */
    Q_WORDS_IDENT       /* C identifiers */
} q_word_mode;

typedef struct q_words {
    const char *p, *end;
    q_word_mode mode;
} q_words;

void q_words_init(q_words *w, const char *s, size_t n, q_word_mode mode);
/* Finds the next word; returns 0 when there is none. */
int q_words_next(q_words *w, const char **word, size_t *len);

/* Statistics collected by "quill count". */
typedef struct q_text_stats {
    unsigned long lines, words, bytes, chars, blank_lines;
    unsigned long longest_line, invalid_utf8;
} q_text_stats;

void q_text_stats_init(q_text_stats *st);
void q_text_stats_add_line(q_text_stats *st, const char *line, size_t len);

/* ---- utf8.c ------------------------------------------------------------ */

#define Q_UTF8_REPLACEMENT 0xFFFDu

/* Decodes one code point from s[0..n); stores its length in *adv (at
 * least 1).  Returns the code point, or -1 for an invalid sequence. */
long q_utf8_decode(const unsigned char *s, size_t n, size_t *adv);
/* Encodes cp into out (at least 4 bytes); returns the length, 0 if invalid. */
size_t q_utf8_encode(uint32_t cp, char *out);
/* Number of code points; invalid bytes count one each. */
size_t q_utf8_length(const char *s, size_t n);
/* Returns the offset of the first invalid byte, or n when valid. */
size_t q_utf8_validate(const char *s, size_t n);
/* Display width in columns: combining marks 0, East Asian wide 2. */
int q_utf8_width(uint32_t cp);
size_t q_utf8_display_width(const char *s, size_t n);
/* Simple case mapping for Latin, Greek and Cyrillic letters. */
uint32_t q_utf8_tolower(uint32_t cp);
uint32_t q_utf8_toupper(uint32_t cp);
void q_utf8_fold(q_strbuf *out, const char *s, size_t n);

/* ---- glob.c ------------------------------------------------------------ */

enum {
    Q_GLOB_FOLD = 1,        /* case-insensitive (ASCII) */
    Q_GLOB_PATHNAME = 2,    /* '*' and '?' do not match '/' */
    Q_GLOB_NOESCAPE = 4     /* backslash is an ordinary character */
};

/* Returns 1 when the whole string matches the pattern, 0 when not,
 * and -1 when the pattern is malformed (an unterminated bracket). */
int q_glob_match(const char *pattern, const char *s, int flags);
/* Finds the first substring of s that matches; returns its offset or -1
 * and its length in *len.  Leftmost, then longest. */
long q_glob_search(const char *pattern, const char *s, int flags, size_t *len);
int q_glob_has_magic(const char *pattern);

/* ---- textio.c: filling paragraphs -------------------------------------- */

typedef struct q_fill_opts {
    size_t width;           /* target line width in columns */
    size_t indent;          /* spaces before every line */
    int justify;            /* pad lines to exactly width */
    int two_spaces;         /* two spaces after a sentence end */
} q_fill_opts;

void q_fill_opts_init(q_fill_opts *o);
/* Fills the words of one paragraph into out (ends with a newline). */
void q_fill_paragraph(q_strbuf *out, const char *text, size_t n,
                      const q_fill_opts *o);

#endif /* QUILL_TEXTIO_H */
