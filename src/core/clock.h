// clock.h: wall-clock time, and the summary of repeated measurements.
#ifndef ATTN_CLOCK_H
#define ATTN_CLOCK_H

#include <stddef.h>

// Seconds on the monotonic clock (from an arbitrary start).
double now_seconds(void);

// The smallest and the median of x (n > 0), which is sorted in place.
// Timings on a shared machine only ever come out too slow, never too fast:
// the minimum is the best estimate of the cost, the median says how noisy
// the runs were.
void min_median(double *x, size_t n, double *min, double *median);

#endif
