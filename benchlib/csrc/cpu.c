/*
 * cpu.c -- the processor itself.
 *
 * cpu_clock: a chain of dependent integer adds.  Each add needs the result
 * of the one before, so the chain runs at the adder's latency: one add per
 * core clock cycle on every current x86 and Arm core.  Timing it gives the
 * clock frequency the core actually ran at, which a virtual machine
 * cannot read from cpufreq and which the TSC (constant rate) does not show.
 *
 * The chain itself is in add_chain.c (the clock probe of timing.c uses it too).
 */
#include "internal.h"

int bl_cpu_clock(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    info->helper_cpu = -1;
    return bl_measure(bl_add_chain_body, NULL, (void *)1, o, ns, ticks, info);
}

/*
 * integer_speed: a small integer program in the style of the early
 * synthetic integer benchmarks (the kind a 1990 MIPS rating rested on):
 * tokenising a line of text, hashing words into a table, sorting a small
 * array, walking and updating a linked list of records, and calls to small
 * functions.  Every repetition starts from the same input, so it executes
 * exactly the same instructions each time; bl_count_instructions counts
 * them by single-stepping one repetition under ptrace (no hardware counter
 * needed, which a VM often lacks).  Native MIPS = instructions / time.
 *
 * No libc calls inside: a libc routine may use string instructions that
 * single-step once per element, and its code differs between machines.
 */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define INT_WORDS 16
#define INT_SORT 24
#define INT_TABLE 64
#define INT_RECORDS 12

static const char int_text[] =
    "open read write close select fork exec wait pipe socket bind listen "
    "accept connect send recv mmap munmap brk stat fstat lseek dup kill";

static const int32_t int_unsorted[INT_SORT] = {
    907, -12, 33, 5120, 77, 1, -400, 256, 89, 13, 2048, -7,
    610, 44, 999, 3, -88, 144, 21, 700, 55, -1, 377, 8};

typedef struct int_record {
    struct int_record *next;
    int32_t key, count;
    char name[12];
} int_record;

typedef struct {
    uint32_t table[INT_TABLE];
    int32_t sorted[INT_SORT];
    int_record records[INT_RECORDS];
    char copy[sizeof int_text];
    uint64_t checksum;
} int_state;

static __attribute__((noinline)) uint32_t int_hash(const char *s, int n)
{
    uint32_t h = 2166136261u;          /* FNV-1a */
    for (int i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

static __attribute__((noinline)) int int_compare(const char *a, const char *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static __attribute__((noinline)) void int_insert(uint32_t *table, uint32_t h)
{
    uint32_t slot = h & (INT_TABLE - 1);
    while (table[slot] != 0 && table[slot] != h)   /* linear probing */
        slot = (slot + 1) & (INT_TABLE - 1);
    table[slot] = h;
}

static uint64_t int_once(int_state *s)
{
    uint64_t sum = 0;
    /* 1. copy the line byte by byte, then tokenise and hash the words */
    for (int i = 0; i < (int)sizeof int_text; i++)
        s->copy[i] = int_text[i];
    for (int i = 0; i < INT_TABLE; i++)
        s->table[i] = 0;
    int start = 0, words = 0;
    for (int i = 0; i < (int)sizeof int_text; i++) {
        char c = s->copy[i];
        if (c == ' ' || c == '\0') {
            if (i > start) {
                uint32_t h = int_hash(s->copy + start, i - start);
                int_insert(s->table, h);
                sum += h;
                words++;
            }
            start = i + 1;
        }
    }
    /* 2. insertion sort of a small array */
    for (int i = 0; i < INT_SORT; i++)
        s->sorted[i] = int_unsorted[i];
    for (int i = 1; i < INT_SORT; i++) {
        int32_t v = s->sorted[i];
        int j = i - 1;
        while (j >= 0 && s->sorted[j] > v) {
            s->sorted[j + 1] = s->sorted[j];
            j--;
        }
        s->sorted[j + 1] = v;
    }
    sum += (uint64_t)(uint32_t)s->sorted[INT_SORT / 2];
    /* 3. a linked list of records: build, name, compare, update */
    for (int i = 0; i < INT_RECORDS; i++) {
        int_record *r = &s->records[i];
        r->next = i + 1 < INT_RECORDS ? &s->records[i + 1] : NULL;
        r->key = s->sorted[i * 2];
        r->count = 0;
        for (int k = 0; k < 11; k++)
            r->name[k] = int_text[(i * 5 + k) % (int)(sizeof int_text - 1)];
        r->name[11] = '\0';
    }
    for (int_record *r = s->records; r != NULL; r = r->next) {
        for (int_record *q = r->next; q != NULL; q = q->next)
            if (int_compare(r->name, q->name, 11) < 0)
                r->count++;
            else
                q->count += r->key & 1;
        sum = sum * 31 + (uint64_t)r->count;
    }
    return sum + (uint64_t)words;
}

static int integer_body(void *ctx, int64_t iters)
{
    int_state *s = ctx;
    for (int64_t i = 0; i < iters; i++) {
        s->checksum += int_once(s);
        BL_CLOBBER();   /* the next repetition may not reuse this one's work */
    }
    BL_KEEP(s->checksum);
    return BL_OK;
}

uint64_t bl_integer_checksum(int64_t reps)
{
    int_state s = {0};
    integer_body(&s, reps);
    return s.checksum;
}

int bl_integer_speed(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    static int_state s;
    info->helper_cpu = -1;
    return bl_measure(integer_body, NULL, &s, o, ns, ticks, info);
}

/* Single-step a child through `reps` repetitions; *steps = instructions
 * from its first stop to its exit (the repetitions plus a fixed amount of
 * entry and exit code, which the caller cancels by differencing). */
static int single_step_count(int64_t reps, int64_t max_steps, int64_t *steps)
{
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0)
        return bl_sys_error("fork");
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        signal(SIGINT, SIG_IGN);
        if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
            _exit(4);
        raise(SIGSTOP);
        int_state s = {0};
        integer_body(&s, reps);
        _exit(0);
    }
    int status, rc = BL_OK;
    int64_t n = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            rc = bl_sys_error("waitpid");
            goto out;
        }
    if (WIFEXITED(status)) {
        bl_set_error(WEXITSTATUS(status) == 4
                         ? "cannot count instructions: ptrace is not permitted here "
                           "(kernel.yama.ptrace_scope or a seccomp policy)"
                         : "the instruction-counting child exited early");
        rc = BL_ESYS;
        goto out;
    }
    for (;;) {
        if (bl_interrupted()) {
            rc = BL_EINTR;
            goto out;
        }
        if (n >= max_steps) {
            bl_set_error("instruction count exceeded %lld steps", (long long)max_steps);
            rc = BL_ESYS;
            goto out;
        }
        if (ptrace(PTRACE_SINGLESTEP, child, NULL, NULL) != 0) {
            rc = bl_sys_error("ptrace(PTRACE_SINGLESTEP)");
            goto out;
        }
        while (waitpid(child, &status, 0) < 0)
            if (errno != EINTR) {
                rc = bl_sys_error("waitpid");
                goto out;
            }
        if (WIFEXITED(status) || WIFSIGNALED(status))
            break;
        n++;
    }
    *steps = n;
    return BL_OK;
out:
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    return rc;
}

int bl_count_instructions(int64_t *per_repetition, int64_t *fixed)
{
    int64_t one = 0, two = 0, three = 0;
    bl_guard_begin();
    int rc = single_step_count(1, 10000000, &one);
    if (rc == BL_OK)
        rc = single_step_count(2, 10000000, &two);
    if (rc == BL_OK)
        rc = single_step_count(3, 10000000, &three);
    bl_guard_end();
    if (rc != BL_OK)
        return rc;
    if (three - two != two - one) {
        bl_set_error("repetitions executed different instruction counts (%lld, %lld)",
                     (long long)(two - one), (long long)(three - two));
        return BL_ESYS;
    }
    *per_repetition = two - one;
    *fixed = one - (two - one);
    return BL_OK;
}
