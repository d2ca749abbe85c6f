// clock.c: wall-clock time. See clock.h.
#define _POSIX_C_SOURCE 200809L
#include "core/clock.h"

#include <stdlib.h>
#include <time.h>

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void min_median(double *x, size_t n, double *min, double *median) {
    qsort(x, n, sizeof *x, compare_doubles);
    *min = x[0];
    *median = n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}
