/*
 * seccomp.c -- a seccomp filter installed in this process, as a container
 * runtime installs one before it starts a container's program: a list of
 * system calls denied (EPERM), every other call allowed.  `rules` is the
 * number of comparisons in the list; 0 is a filter that allows everything
 * (the kernel still takes its seccomp path on every call).
 *
 * A filter cannot be removed.  benchlib installs one only in a measuring
 * worker made for it, which is thrown away afterwards.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define MAX_RULES 64

/* Calls no benchmark makes; a list longer than this repeats them. */
static const int denied[] = {
#ifdef SYS_kexec_load
    SYS_kexec_load,
#endif
    SYS_init_module,  SYS_delete_module, SYS_acct,          SYS_swapon,
    SYS_swapoff,      SYS_reboot,        SYS_settimeofday,  SYS_pivot_root,
    SYS_sethostname,  SYS_setdomainname, SYS_quotactl,      SYS_umount2,
};

int bl_install_seccomp_filter(int rules)
{
    if (rules < 0 || rules > MAX_RULES) {
        bl_set_error("a seccomp filter here has 0 to %d rules; got %d", MAX_RULES, rules);
        return BL_EINVAL;
    }
    struct sock_filter prog[2 * MAX_RULES + 2];
    int k = 0;
    if (rules > 0)
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                                 offsetof(struct seccomp_data, nr));
    int n_denied = (int)(sizeof denied / sizeof denied[0]);
    for (int r = 0; r < rules; r++) {
        /* equal: fall through to the deny just below; else skip it */
        prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
                                                 (unsigned)denied[r % n_denied], 0, 1);
        prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                                 SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog fprog = {(unsigned short)k, prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return bl_sys_error("prctl(PR_SET_NO_NEW_PRIVS)");
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0)
        return bl_sys_error("prctl(PR_SET_SECCOMP)");
    return BL_OK;
}
