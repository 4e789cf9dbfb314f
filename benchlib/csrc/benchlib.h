/*
 * benchlib.h -- the public C API of benchlib: what cffi sees, nothing else.
 * What the C files share among themselves is in internal.h.
 *
 * Every timed loop of the project lives in C.  Python fills a bl_opts,
 * passes arrays for the samples, and gets back one figure per sample:
 * nanoseconds per iteration (and TSC ticks per iteration where the CPU
 * has a time-stamp counter).  What an "iteration" is depends on the
 * benchmark: one system call, one pipe round trip, one memcpy of the
 * block, one dependent load.
 *
 * The part between BEGIN CDEF and END CDEF is read by benchlib/_build.py
 * and handed to cffi, so it must stay plain declarations (no macros, no
 * includes, no inline code).
 */
#ifndef BENCHLIB_H
#define BENCHLIB_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* BEGIN CDEF */

/* Return codes (0 is success). */
enum {
    BL_OK = 0,
    BL_EINTR = -1,      /* interrupted by SIGINT: samples so far are kept */
    BL_ESYS = -2,       /* a system call failed: see bl_last_error() */
    BL_EINVAL = -3,     /* bad parameter: see bl_last_error() */
    BL_ENOMEM = -4      /* could not allocate the buffers */
};

/* How to measure: filled by the Python harness from the profile. */
typedef struct {
    int n_samples;            /* timed samples wanted (length of the arrays) */
    int n_warmup;             /* samples run at the final count and discarded */
    double target_sample_ns;  /* calibrate so one sample lasts at least this */
    int64_t iterations;       /* > 0: exactly this many per sample, no calibration */
    int64_t max_iterations;   /* calibration never goes above this */
    double max_total_ns;      /* stop taking samples after this (>= 1 sample kept) */
    int cpu;                  /* >= 0: pin the measuring thread to this CPU */
    int helper_cpu;           /* >= 0: pin a helper process to this CPU */
    int subtract_overhead;    /* subtract the benchmark's empty-loop cost */
    double *clock_ghz;        /* non-NULL: per-sample core clock (GHz), probed
                                 just before and after each sample */
    /* The adaptive stop (bl_measure's samples; 0: off): after each sample,
     * stop once the median's interval, the order statistics k and n-k+1 of
     * the n samples so far with the stop_prior_n earlier ones (ascending,
     * ns, in time order; k = stop_ranks[n]; 0: no interval from n), is
     * within stop_rel_ci of the median, in the benchmark's unit
     * (stop_reciprocal: a unit inversely proportional to the time, as
     * MB/s), and the samples' two halves agree (bl_halves_agree).
     * bl_rel_halfwidth is the rule. */
    double stop_rel_ci;
    int stop_reciprocal;
    const int *stop_ranks;    /* stop_prior_n + n_samples + 1 entries */
    const double *stop_prior;
    int stop_prior_n;
} bl_opts;

/* What happened: filled by the C side. */
typedef struct {
    int64_t iterations;        /* iterations in each timed sample */
    int n_samples;             /* samples actually written */
    double clock_resolution_ns;/* smallest step CLOCK_MONOTONIC showed */
    double overhead_ns;        /* per-iteration cost subtracted: the median of
                                  the overhead runs timed beside each sample
                                  (0 if none) */
    int cpu_first;             /* CPU of the measuring thread, first sample */
    int cpu_last;              /* CPU of the measuring thread, last sample */
    int cpu_migrations;        /* samples whose CPU differed from the previous */
    int helper_cpu;            /* CPU the helper process was pinned to, or -1 */
    int has_ticks;             /* 1 if ticks[] holds TSC ticks per iteration */
    double calibration_ns;     /* wall time spent calibrating and warming up */
    double huge_bytes;         /* memory benchmarks: bytes backed by huge pages */
    double calibrated_sample_ns;/* calibration's confirmed time of one sample at the
                                  final count (the least of up to three readings) */
    int warmup_runs;           /* runs of the body at the sample count before the
                                  first sample: calibration's readings at its final
                                  count, then warm-ups up to n_warmup (0 where a
                                  benchmark runs a loop of its own) */
    double setup_ns;           /* wall time building what is measured before the
                                  calibration: buffers mapped and filled, a file
                                  written, untimed settle passes (0 where a
                                  benchmark does not say) */
    double settle_ns;          /* of setup_ns, the untimed settle passes */
} bl_info;

/* Build and library facts. */
const char *bl_version(void);
const char *bl_compiler(void);
const char *bl_cflags(void);
const char *bl_last_error(void);
double bl_clock_resolution_ns(void);
double bl_tsc_ticks_per_ns(void);   /* measured against CLOCK_MONOTONIC; 0 if no TSC */
int bl_online_cpus(void);

/* The adaptive stop's rule: half the median's interval over the median for
 * n sorted ns values (ascending), the interval's ranks k and n-k+1, in a
 * unit proportional to the time or (reciprocal) inversely; INFINITY when
 * k < 1 or the median is 0 (or, reciprocal, a value is not positive).
 * benchlib.stats.summary.rel_ci_halfwidth on the same values, in C. */
double bl_rel_halfwidth(const double *sorted, int n, int k, int reciprocal);

/* The adaptive stop's guard against drift: 1 when the medians of the first
 * and the last n/2 of n samples (in time order) differ by at most 2 rel of
 * the median of all, in the unit (reciprocal as above), else 0: iid
 * samples whose interval has just reached rel pass it 95 % of the time, a
 * run still settling (its first samples faster or slower than its later
 * ones) does not.  benchlib.stats.summary.halves_agree, in C. */
int bl_halves_agree(const double *x, int n, double rel, int reciprocal);

/* syscall.c: kernel entry and exit, one call of `op` per iteration. */
enum {
    BL_SYSCALL_GETPID = 0,   /* getpid via syscall(2) (libc may cache the pid) */
    BL_SYSCALL_WRITE = 1,    /* write one byte to /dev/null */
    BL_SYSCALL_GETPPID = 2,  /* getppid via syscall(2) */
    BL_SYSCALL_READ = 3,     /* read one byte from /dev/zero */
    BL_SYSCALL_STAT = 4,     /* stat("/dev/null") */
    BL_SYSCALL_FSTAT = 5     /* fstat of an open fd */
};
int bl_syscall_latency(int op, const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* ipc.c: one-byte round trip between this process and a forked child
 * over two pipes.  o->cpu pins this process, o->helper_cpu the child. */
int bl_pipe_latency(const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* ipc.c: the parts of a round trip.  pipe_self: write one byte into a
 * pipe and read it back in this process (no switch).  yield_switch: this
 * process and a child pinned to o->cpu call sched_yield in turn; one
 * iteration is a yield in each; *child_per_parent is the child's yields
 * per parent yield (1.0 when the two really alternated). */
int bl_pipe_self(const bl_opts *o, double *ns, double *ticks, bl_info *info);
int bl_yield_switch(const bl_opts *o, double *child_per_parent, double *ns, double *ticks,
                    bl_info *info);

/* ipc.c: select() (call 0), poll() (1) or epoll_wait() (2) with a zero
 * timeout over `pipes` pipes (1-1000), empty (full 0) or each holding one
 * byte (full 1).  One iteration is one call. */
int bl_select_latency(int pipes, int full, int call, int files, const bl_opts *o, double *ns,
                      double *ticks, bl_info *info);

/* fs.c: every call works in a fresh mkdtemp directory inside `directory`
 * and removes it.  open_close: open+close of "foo" (depth 1) or
 * "a/b/c/foo" (depth 4).  create_delete: create, write file_bytes, [fsync],
 * close, open, read, close, unlink [, fsync the directory].  file_read:
 * read a file_bytes file from the page cache in block_bytes reads into one
 * buffer; one iteration is one pass over the file.  The file is made just
 * before, in write() calls of write_bytes (its folios in the page cache). */
int bl_open_close(const char *directory, int depth, const bl_opts *o, double *ns, double *ticks,
                  bl_info *info);
int bl_create_delete(const char *directory, size_t file_bytes, int sync, const bl_opts *o,
                     double *ns, double *ticks, bl_info *info);
int bl_file_read(const char *directory, size_t file_bytes, size_t block_bytes, size_t write_bytes,
                 const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* fs.c: reread a cached file of file_bytes and sum it, by read() in
 * block_bytes calls into one buffer (use_mmap 0), through a fresh mmap()
 * per pass (1), or through one mapping made before the timing (2).  One
 * iteration is one pass over the file, made as bl_file_read's. */
int bl_file_reread(const char *directory, size_t file_bytes, size_t block_bytes,
                   size_t write_bytes, int use_mmap, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info);

/* fs.c: create n_files files of file_bytes in one directory, then delete
 * them; `batches` times.  create_ns[b], delete_ns[b]: ns per file. */
int bl_fs_latency(const char *directory, size_t file_bytes, int n_files, int batches,
                  double *create_ns, double *delete_ns, bl_info *info);

/* fs.c: block_bytes reads (write 0) or writes (1) at sequential (random 0)
 * or random block-aligned offsets of a file_bytes file, with O_DIRECT when
 * direct is 1 (a clear BL_EINVAL where the file system refuses it).  One
 * iteration is one transfer. */
int bl_disk_io(const char *directory, size_t file_bytes, size_t block_bytes, int write, int random,
               int direct, const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* andrew.c: the Modified Andrew Benchmark on `tree` (which holds FILES and
 * BUILD lists), `runs` times, in a private directory inside `directory`.
 * total_ns[runs]; phase_ns[runs * 5]: make dirs, copy, stat, read, compile.
 * copy_with_cp 1: one /bin/cp per file, as the original benchmark did. */
int bl_andrew(const char *tree, const char *directory, int copy_with_cp, int runs,
              double *total_ns, double *phase_ns, bl_info *info);

/* memory.c: memcpy of size_bytes from one buffer to another. */
int bl_bcopy(size_t size_bytes, size_t src_offset, size_t dst_offset, const bl_opts *o,
             double *ns, double *ticks, bl_info *info);

/* memory.c: dependent loads chasing a pointer ring over size_bytes, one slot
 * every stride_bytes.  pattern BL_CHASE_STRIDE: slot i -> i+1 (prefetchers
 * see a stride); BL_CHASE_RANDOM: random order, page by page, each page's
 * slots in random order; BL_CHASE_WALK: a random walk, not a ring: every
 * slot holds 8 pointers (stride_bytes >= 64), pointer j of slot i leads to
 * slot perm_j(i) for 8 random permutations, and each load takes the pointer
 * a register xorshift names, so lines are revisited at random intervals and
 * any replacement policy keeps ways/n of a set that n lines share (the ring
 * makes an LRU set of n > ways lines miss every time).
 * huge_pages 1 asks for transparent huge pages, 0 refuses them.
 * loop_loads (1, 16 or 100; the ring's patterns): load instructions in the
 * chase's loop, each taking every loop_loads-th load of the chain, so that a
 * per-instruction stride prefetcher sees loop_loads x stride_bytes (which
 * value matches which peer: docs/peers.md).  window_bytes (random only): the
 * slots are shuffled inside windows of that many bytes, the windows in
 * random order (0: one window, the whole buffer, so that nearly every load
 * goes to another page).  One iteration is one load. */
enum { BL_CHASE_STRIDE = 0, BL_CHASE_RANDOM = 1, BL_CHASE_WALK = 2 };
int bl_mem_latency(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                   int loop_loads, size_t window_bytes, const bl_opts *o, double *ns,
                   double *ticks, bl_info *info);
/* The same chase with `spin_adds` dependent adds after each load: every line
 * is revisited that much later (a shared cache's neighbours get longer to
 * evict it).  The adds are timed too: subtract them with a chase that hits L1. */
int bl_mem_latency_spin(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                        int spin_adds, const bl_opts *o, double *ns, double *ticks,
                        bl_info *info);

/* memory.c: a load to a random line then a dependent load distance_bytes
 * before it, in pages visited in random order.  One iteration is one pair. */
/* cpuid(leaf, subleaf) into out[4] = eax, ebx, ecx, edx; 0 on x86, -1 elsewhere. */
int bl_cpuid(unsigned leaf, unsigned subleaf, unsigned *out);
int bl_line_pair_latency(size_t size_bytes, size_t distance_bytes, const bl_opts *o,
                         double *ns, double *ticks, bl_info *info);

/* memory.c: a chase over `pages` lines, one per page (dense 0) or packed
 * together (dense 1), in random order.  One iteration is one load. */
int bl_tlb_latency(size_t pages, int dense, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info);

/* memory.c: op (BL_BANDWIDTH_*) over size_bytes, touching one 8-byte word
 * every stride_bytes (copies and memset: dense only).  One iteration is one
 * pass over the buffer. */
enum {
    BL_BANDWIDTH_READ = 0,           /* read (sum) */
    BL_BANDWIDTH_WRITE = 1,
    BL_BANDWIDTH_RMW = 2,            /* read-modify-write */
    BL_BANDWIDTH_COPY_UNROLLED = 3,  /* copy by an unrolled loop */
    BL_BANDWIDTH_MEMSET = 4,
    BL_BANDWIDTH_COPY_LIBC = 5       /* memcpy */
};
int bl_mem_bandwidth(int op, size_t size_bytes, size_t stride_bytes, const bl_opts *o,
                     double *ns, double *ticks, bl_info *info);
/* What op's timed body stores, untimed: `passes` passes over a buffer of
 * `words` 8-byte words (filled as the measurement fills it), out[2i] the
 * first word and out[2i+1] the last after pass i.  A check for tests, not
 * a measurement. */
int bl_mem_bandwidth_stored(int op, size_t words, int passes, uint64_t *out);
/* The untimed passes op makes over its freshly built buffer before the
 * calibration's (mem_bandwidth's extras.settle_passes; 0 for the copies,
 * bl_bcopy's among them). */
int bl_mem_bandwidth_settle_passes(int op);

/* cpu.c: one iteration is 100 dependent integer adds (100 core cycles). */
int bl_cpu_clock(const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* cpu.c: a small integer program (tokenise and hash a line, insertion
 * sort, a linked list of records, small calls); one iteration is one
 * repetition, each executing exactly the same instructions.
 * bl_count_instructions single-steps 1, 2 and 3 repetitions in a traced
 * child: *per_repetition instructions per repetition, *fixed the child's
 * own entry and exit.  bl_integer_checksum: result of `reps` repetitions. */
int bl_integer_speed(const bl_opts *o, double *ns, double *ticks, bl_info *info);
int bl_count_instructions(int64_t *per_repetition, int64_t *fixed);
uint64_t bl_integer_checksum(int64_t reps);

/* net_latency.c, net_bandwidth.c, rpc.c: IPC and networking between this
 * process and a forked helper ("bl-net-echo"), all on loopback 127.0.0.1.
 * transport is one of the BL_NET_* values (each function says which it
 * accepts). */
enum {
    BL_NET_PIPE = 0,
    BL_NET_UNIX = 1,    /* AF_UNIX SOCK_STREAM socketpair */
    BL_NET_TCP = 2,
    BL_NET_UDP = 3
};

/* ipc_latency: a 4-byte word sent to the helper and echoed back over unix,
 * tcp (TCP_NODELAY) or udp.  One iteration is one round trip.  o->cpu pins
 * this process, o->helper_cpu the helper. */
int bl_ipc_latency(int transport, const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* tcp_connect_latency: connect() to the helper's loopback listener, the
 * helper accepts and closes (abortively: no TIME_WAIT anywhere), we see
 * the close and close.  One iteration is one connection.  *port: the
 * listener's port, to check afterwards that nothing was left on it. */
int bl_tcp_connect_latency(const bl_opts *o, int *port, double *ns, double *ticks,
                           bl_info *info);

/* rpc_latency: a Sun RPC call (libtirpc) of a procedure that returns its
 * int argument, over tcp or udp, to a server in the helper that is not
 * registered with rpcbind.  bl_have_rpc: 1 if built with libtirpc (else
 * bl_rpc_latency fails with BL_EINVAL and says so). */
int bl_have_rpc(void);
int bl_rpc_latency(int transport, const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* ipc_bandwidth: this process writes transfer_bytes per call over pipe,
 * unix or tcp to the helper, which reads and discards; each sample ends
 * when the helper has acknowledged every byte.  buffer_bytes > 0 sets
 * SO_SNDBUF and SO_RCVBUF on both sockets (F_SETPIPE_SZ for a pipe); the
 * sizes actually obtained are returned in *send_buffer (our socket) and
 * *receive_buffer (the helper's).  One iteration is one transfer. */
int bl_ipc_bandwidth(int transport, size_t transfer_bytes, int buffer_bytes, const bl_opts *o,
                     int *send_buffer, int *receive_buffer, double *ns, double *ticks,
                     bl_info *info);
/* proc.c: signals.  BL_SIGNAL_INSTALL: one sigaction installing a SIGUSR1
 * handler; BL_SIGNAL_DELIVER: one SIGUSR1 sent to this thread and its
 * handler run (the handler counts; the loop checks the count).  One
 * iteration is one call / one signal delivered and handled. */
enum { BL_SIGNAL_INSTALL = 0, BL_SIGNAL_DELIVER = 1 };
/* Flags or-ed into op: install also returns the old action; deliver sends
 * with kill() to the process (not tgkill() to this thread); deliver less
 * the cost of sending signal 0 (the handler's cost alone). */
enum { BL_SIGNAL_SAVE_OLD = 0x100, BL_SIGNAL_KILL = 0x200, BL_SIGNAL_MINUS_SEND = 0x400 };
int bl_signal_latency(int op, const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* proc.c: one iteration is one process, fork to waitpid.
 * BL_PROCESS_FORK_EXIT: the child _exits at once; BL_PROCESS_FORK_EXEC_EXIT:
 * it execs `program` (an absolute path to a program that exits at once);
 * BL_PROCESS_FORK_SH_EXIT: it execs /bin/sh -c with program's bare name, the
 * program's directory appended to PATH. */
enum { BL_PROCESS_FORK_EXIT = 0, BL_PROCESS_FORK_EXEC_EXIT = 1, BL_PROCESS_FORK_SH_EXIT = 2 };
/* Or-ed into op: (fork_exit only) the child leaves with libc's exit()
 * (atexit handlers, stdio flushed) instead of _exit(); (fork_exec_exit
 * only) the program is exec'd with an empty environment, not this one. */
enum { BL_PROCESS_LIBC_EXIT = 0x100, BL_PROCESS_EMPTY_ENV = 0x200 };
int bl_process_creation(int op, const char *program, const bl_opts *o, double *ns,
                        double *ticks, bl_info *info);

/* proc.c: before a fork is timed, `pages` (0..BL_MAX_EXTRA_PAGES) pages
 * mapped in this process, each its own one-page shared anonymous mapping
 * (LEBench's big fork: 6,000; huge fork: 12,000), written once if touch;
 * bl_unmap_extra_pages removes them. */
enum { BL_MAX_EXTRA_PAGES = 100000 };
int bl_map_extra_pages(int pages, int touch);
void bl_unmap_extra_pages(void);

/* proc.c: one iteration is pthread_create of a thread that returns at
 * once, and pthread_join of it (default attributes). */
int bl_thread_creation(const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* proc.c: `processes` (2..64) processes in a ring of pipes pass a one-word
 * token; each sums a private array of process_bytes between receiving and
 * passing it.  One iteration is one trip round the ring (`processes` hops).
 * With o->subtract_overhead, info->overhead_ns is the same pipe write, read
 * and sum done `processes` times by this process alone.  o->cpu pins this
 * process, o->helper_cpu every child. */
int bl_context_switch(int processes, size_t process_bytes, const bl_opts *o, double *ns,
                      double *ticks, bl_info *info);

/* iowork.c: Chen and Patterson's synthetic I/O workload (see the file's
 * comment).  bl_io_fill_file creates `path` (which must not exist) with
 * `bytes` of incompressible data, on the device and out of the page cache.
 * bl_io_workload drops the file's cached pages, forks process_num workers
 * into cgroup_procs (if given), lets worker 0 read the last warm_bytes of
 * [0, unique_bytes) to fill the cache as a long run would have, then times
 * the requests of all workers for duration_s (or total_bytes in all). */
typedef struct {
    uint64_t unique_bytes;      /* the workload addresses [0, unique_bytes) of the file */
    double size_mean_bytes;     /* request sizes ~ Normal(mean, sd = mean), redrawn if <= 0 */
    double read_frac;           /* chance a request is a read (else a write) */
    double seq_frac;            /* chance a request starts where its process's last one ended */
    int process_num;            /* concurrent worker processes (1..64) */
    int direct;                 /* 1: O_DIRECT (4 KiB aligned offsets and sizes) */
    double duration_s;          /* > 0: every worker runs this long */
    uint64_t total_bytes;       /* else: the workers share this many bytes */
    uint64_t warm_bytes;        /* read before timing (0: start from a cold cache) */
    uint64_t seed;              /* the random stream (each worker derives its own) */
    const char *cgroup_procs;   /* NULL/"": none; else a cgroup.procs file to join */
} bl_io_workload_params;

typedef struct {
    double elapsed_ns;          /* first worker's start to last worker's end */
    uint64_t bytes, requests, reads, sequential;
    double response_ns_sum;     /* summed time of every request */
    double response_ns_max;
    double user_s, system_s;    /* the workers' CPU time over the timed part */
    double warm_ns;             /* time worker 0 took to warm the cache (untimed) */
    uint64_t max_request_bytes; /* the largest request size allowed */
} bl_io_workload_result;

int bl_io_fill_file(const char *path, uint64_t bytes);
int bl_io_workload(const char *path, const bl_io_workload_params *p, bl_io_workload_result *res);
/* call.c: a procedure call in this process against the same call served
 * by another process (the comp.os.mach "Mach performance?" thread's IPC
 * tests, 1989).  mode BL_CALLMODE_LOCAL: a direct call of a procedure the compiler
 * may not inline or analyse, arguments and results passed by value.
 * BL_CALLMODE_PROCESS: a forked server ("bl-call-server"); the client copies the
 * arguments into a request, one write and one read make the round trip
 * over transport (BL_NET_PIPE: two pipes; BL_NET_UNIX: a socketpair), and
 * the server copies them out, calls the same procedure and copies the
 * results into the reply.  One iteration is one call.  Ops BL_CALL_LOOP
 * (the loop alone) and BL_CALL_SYSCALL (getpid via syscall(2)) are local
 * only.  fixed_calls > 0: after the samples, exactly that many calls are
 * made once more and their elapsed time and the CPU time and context
 * switches of both processes (getrusage) are returned in *usage. */
enum {
    BL_CALL_LOOP = 0,
    BL_CALL_SYSCALL = 1,
    BL_CALL_NULL = 2,
    BL_CALL_ADD = 3,         /* add two 32-bit numbers */
    BL_CALL_STRING_IN = 4,   /* a 200-byte string passed in by value */
    BL_CALL_STRING_OUT = 5,  /* a 200-byte string returned by value */
    BL_CALL_STRING_INOUT = 6 /* both */
};
enum { BL_CALLMODE_LOCAL = 0, BL_CALLMODE_PROCESS = 1 };

typedef struct {
    int64_t calls;                 /* calls in the fixed run (0: not made) */
    double elapsed_ns;             /* CLOCK_MONOTONIC over the run */
    double client_user_ns;         /* the calling thread (RUSAGE_THREAD) */
    double client_system_ns;
    double server_user_ns;         /* the server over the run; -1 when local */
    double server_system_ns;
    int64_t client_voluntary_switches;   /* ru_nvcsw, ru_nivcsw over the run */
    int64_t client_involuntary_switches;
    int64_t server_voluntary_switches;   /* -1 when local */
    int64_t server_involuntary_switches;
} bl_call_usage;

int bl_procedure_call(int op, int mode, int transport, int64_t fixed_calls,
                      bl_call_usage *usage, const bl_opts *o, double *ns, double *ticks,
                      bl_info *info);

/* memory.c: the first write to each page of a fresh anonymous mapping
 * (small pages: MADV_NOHUGEPAGE): a page fault that allocates, zeroes and
 * maps a page, and the page's share of the munmap that frees it.  The
 * mmap and munmap of the same region untouched are measured and
 * subtracted (info->overhead_ns).  One iteration is one page. */
int bl_page_fault(const bl_opts *o, double *ns, double *ticks, bl_info *info);
/* fs.c: the small-file benchmark (Lai & Baker 1996).  One batch, in a
 * private directory inside `directory`: create n_files new empty files
 * (open O_CREAT|O_EXCL, close), write size_bytes to each (open, write,
 * close), read each back (open, read, close), delete them all.  o->n_warmup
 * batches are discarded, then up to o->n_samples are kept (fewer once
 * o->max_total_ns has passed); o->cpu pins this process.
 * phase_ns[b * 4 + k]: ns per file of phase k (0 create, 1 write, 2 read,
 * 3 delete) in kept batch b. */
int bl_small_file(const char *directory, size_t size_bytes, int n_files, const bl_opts *o,
                  double *phase_ns, bl_info *info);

/* net_bandwidth.c: udp_bandwidth.  This process sends datagrams of datagram_bytes
 * over loopback UDP to the helper, which counts what arrives.  A sample
 * ends with an end-marker datagram (resent every 10 ms until the helper
 * acknowledges it, with the bytes it received, over a stream socket; 5 s
 * without an answer is an error), so lost datagrams never hang the run.
 * delivered[i]: fraction of the bytes sent in sample i that arrived;
 * ns[i] and ticks[i] are per datagram *received*.  A sample holds at least
 * 16 datagrams and 1 MiB (calibrated here, then bl_measure with that count),
 * so the marker's round trip stays a small part of it.  buffer_bytes > 0 sets
 * SO_SNDBUF and SO_RCVBUF; the sizes obtained go to *send_buffer and
 * *receive_buffer. */
int bl_udp_bandwidth(size_t datagram_bytes, int buffer_bytes, const bl_opts *o,
                     int *send_buffer, int *receive_buffer, double *delivered, double *ns,
                     double *ticks, bl_info *info);

/* mapping.c: one call of `op` on a file of file_bytes in the page cache,
 * made in `directory` (LEBench's mmap, munmap and page-fault tests):
 * BL_MAPPING_MMAP: mmap of the whole file, read-only, MAP_PRIVATE;
 * BL_MAPPING_MUNMAP: munmap of a private mapping of it every page of which
 * was written; BL_MAPPING_PAGE_FAULT: the first read of a fresh read-only
 * mapping (one fault, fault-around included).  The set-up of each call is
 * left out of the timing.  One iteration is one call. */
enum { BL_MAPPING_MMAP = 0, BL_MAPPING_MUNMAP = 1, BL_MAPPING_PAGE_FAULT = 2 };
int bl_mapping_latency(int op, const char *directory, size_t file_bytes, const bl_opts *o,
                       double *ns, double *ticks, bl_info *info);

/* net_calls.c: one send (BL_SOCKCALL_SEND) or recv (BL_SOCKCALL_RECV) of
 * message_bytes on an AF_UNIX stream socketpair, non-blocking (LEBench's
 * send and recv tests); the other end is drained or filled outside the
 * timing, in batches.  One iteration is one call. */
enum { BL_SOCKCALL_SEND = 0, BL_SOCKCALL_RECV = 1 };
int bl_socket_call(int op, size_t message_bytes, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info);

/* seccomp.c: install in this process a seccomp filter of `rules` rules
 * (0..64), as a container runtime does: each rule compares the system
 * call's number with one the process never makes and denies it (EPERM);
 * every other call is allowed.  Sets no_new_privs first.  A filter cannot
 * be removed: only a process that is thrown away afterwards may call it. */
int bl_install_seccomp_filter(int rules);

/* Testing aid: a body that sleeps so the interrupt path can be exercised. */
int bl_sleep_loop(double sleep_us, const bl_opts *o, double *ns, double *ticks, bl_info *info);
int bl_stall_once_loop(double first_us, double then_us, const bl_opts *o, double *ns,
                       double *ticks, bl_info *info);
/* Testing aid: each iteration sleeps untimed_us inside bl_untimed_begin/end
 * (left out of the sample), then timed_us. */
int bl_untimed_sleep_loop(double untimed_us, double timed_us, const bl_opts *o, double *ns,
                          double *ticks, bl_info *info);

/* END CDEF */

#endif
