/*
 * exec_env.c -- what an environment costs an exec.
 *
 * A peer's exec test runs its program with an empty environment (a
 * NULL envp); benchlib's process_creation op=fork_exec_exit passes its own
 * by default (environment=inherit).  This program forks and execs the
 * program given, interleaving the two environments exec by exec (so that a
 * slow stretch of the host falls on both alike), timing each whole process
 * from fork to waitpid, and prints each one's 10th, 50th and 90th
 * percentiles.
 *
 * usage: exec_env PROGRAM [EXECS]     (PROGRAM must exit 0 at once)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

extern char **environ;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [EXECS]\n", argv[0]);
        return 2;
    }
    int n = argc > 2 ? atoi(argv[2]) : 1500;
    char *none[1] = {NULL};
    char **envs[2] = {environ, none};
    const char *names[2] = {"inherited environment", "empty environment"};
    double *t[2] = {malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    if (n < 10 || !t[0] || !t[1])
        return 2;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 2; j++) {
            int k = (i + j) % 2; /* alternate which goes first */
            char *av[2] = {argv[1], NULL};
            double t0 = now_us();
            pid_t p = fork();
            if (p == 0) {
                execve(argv[1], av, envs[k]);
                _exit(127);
            }
            int st;
            if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "exec_env: %s did not run and exit 0\n", argv[1]);
                return 1;
            }
            t[k][i] = now_us() - t0;
        }
    }
    for (int k = 0; k < 2; k++) {
        qsort(t[k], n, sizeof(double), cmp);
        printf("%-22s us per process: p10 %.1f  median %.1f  p90 %.1f\n", names[k],
               t[k][n / 10], t[k][n / 2], t[k][9 * n / 10]);
    }
    return 0;
}
