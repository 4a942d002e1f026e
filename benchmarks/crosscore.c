/*
 * crosscore.c - the round trip of a flag between CPUs 0 and 1: how far apart the two CPUs
 * of a shared (virtual) machine are at the moment. An RNN step ends in a barrier and hands
 * its h to the other thread, so the distance enters every 2-thread timing; on one AMD EPYC
 * host it measured 61-85 ns in some hours and 320-340 ns in others. run.sh records it
 * before and after its runs, to be read beside the timings.
 *
 *   crosscore            Prints  CROSSCORE <ns>  (median of 9 runs of 100000 round trips)
 *
 * Build: cc -std=c99 -O2 -Wall -Wextra -Werror -pthread benchmarks/crosscore.c -o crosscore
 */
#define _GNU_SOURCE

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { TRIPS = 100000, RUNS = 9 };

/* The flag, on a cache line of its own: odd values from CPU 0, even ones from CPU 1. */
static struct {
    int value;
    char pad[60];
} flag __attribute__((aligned(64)));

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Pins the calling thread to `cpu` (best effort: a machine with one CPU measures itself). */
static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void wait_for(int value) {
    while (__atomic_load_n(&flag.value, __ATOMIC_ACQUIRE) != value) {
    }
}

static void *answer(void *arg) {
    (void)arg;
    pin(1);
    for (int i = 0; i < TRIPS; i++) {
        wait_for(2 * i + 1);
        __atomic_store_n(&flag.value, 2 * i + 2, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void) {
    pin(0);
    double ns[RUNS];
    for (int r = 0; r < RUNS; r++) {
        __atomic_store_n(&flag.value, 0, __ATOMIC_RELEASE);
        pthread_t t;
        if (pthread_create(&t, NULL, answer, NULL)) {
            perror("pthread_create");
            return 1;
        }
        const double t0 = now_s();
        for (int i = 0; i < TRIPS; i++) {
            __atomic_store_n(&flag.value, 2 * i + 1, __ATOMIC_RELEASE);
            wait_for(2 * i + 2);
        }
        ns[r] = (now_s() - t0) / TRIPS * 1e9;
        pthread_join(t, NULL);
    }
    qsort(ns, RUNS, sizeof ns[0], cmp);
    printf("CROSSCORE %.0f\n", ns[RUNS / 2]);
    return 0;
}
