/*
 * add_chain.c -- a chain of dependent integer adds, one add per core clock
 * cycle: the workload of the cpu_clock benchmark (cpu.c) and of the clock
 * probe that runs around every measurement (timing.c).  Both depend on this
 * file and it on neither, so the C files call each other without a cycle.
 *
 * The addend is a register whose value the compiler cannot see (it passes
 * through an empty asm), never an immediate: Intel cores from Golden Cove
 * on fold chains of "add $imm, reg" in the renamer and retire several per
 * cycle, which read as a 20+ GHz "clock".  An add of an unknown register
 * cannot be folded.  The empty asm after each add makes every add a
 * separate instruction (the compiler cannot merge x += y; x += y into one
 * x += 2y) without tying the code to one instruction set.
 */
#include "internal.h"

int bl_add_chain_body(void *ctx, int64_t iters)
{
    uint64_t x = (uint64_t)(uintptr_t)ctx, y = 1;
    __asm__ __volatile__("" : "+r"(y));
    for (int64_t i = 0; i < iters; i++) {
        /* 100 dependent adds (benchmarks.py's ADDS_PER_ITERATION) */
#define A1 x += y; __asm__ __volatile__("" : "+r"(x));
#define A10 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
        A10 A10 A10 A10 A10 A10 A10 A10 A10 A10
#undef A10
#undef A1
    }
    BL_KEEP(x);
    return BL_OK;
}

int bl_add_chain(int64_t iters) { return bl_add_chain_body((void *)1, iters); }
