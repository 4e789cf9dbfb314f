/*
 * cpu.c -- the processor itself.
 *
 * cpu_clock: a chain of dependent integer adds.  Each add needs the result
 * of the one before, so the chain runs at the adder's latency: one add per
 * core clock cycle on current x86 and Arm cores.  Timing it gives the
 * clock frequency the core actually ran at, which a virtual machine
 * cannot read from cpufreq and which the TSC (constant rate) does not show.
 */
#include "benchlib.h"

static int add_chain_body(void *ctx, int64_t iters)
{
    uint64_t x = (uint64_t)(uintptr_t)ctx;
    for (int64_t i = 0; i < iters; i++) {
        /* 100 dependent adds (benchmarks.py's ADDS_PER_ITERATION); the asm
         * keeps the compiler from folding them */
#define A1 __asm__ __volatile__("add $1, %0" : "+r"(x));
#define A10 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
        A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#undef A10
#undef A1
    }
    BL_KEEP(x);
    return BL_OK;
}

int bl_add_chain(int64_t iters) { return add_chain_body((void *)1, iters); }

int bl_cpu_clock(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    info->helper_cpu = -1;
    return bl_measure(add_chain_body, NULL, (void *)1, o, ns, ticks, info);
}
