// parallel.h: optional threads, through OpenMP.
//
// Built with -fopenmp (the default; `make OMP=0` leaves it out) a loop marked
// PARALLEL_FOR(condition) is shared among the threads when the condition
// holds (OMP_NUM_THREADS sets how many), an iteration at a time to whichever
// thread is free; built without, the marks vanish and the loops run as
// written. PARALLEL_CRITICAL marks a block that one thread at a time runs.
//
// Threads are used only where the work splits into large independent
// pieces (chapter 7's models, each trained on one thread): each piece is
// computed the same way whatever thread takes it, no sum is ever split
// between threads, so the results are the same to the last bit with one
// thread or with many. Splitting one training step among threads would
// make them wait for each other a dozen times a step, and on a machine
// that runs other work too, a thread that is not scheduled stalls the others.
// Generation's one position at a time is the exception
// (models/gpt_generate.c): its products read every weight for a few
// operations each, more weights than one core's own cache holds, and each
// of two threads keeps its share of them in its own.
#ifndef ATTN_PARALLEL_H
#define ATTN_PARALLEL_H

#ifdef _OPENMP
#include <omp.h>
#define PARALLEL_PRAGMA(x) _Pragma(#x)
#define PARALLEL_FOR(condition) PARALLEL_PRAGMA(omp parallel for schedule(dynamic, 1) if (condition))
#define PARALLEL_CRITICAL PARALLEL_PRAGMA(omp critical)
// A block that n threads run at once (PARALLEL_REGION(n) { ... }), one
// thread when n is 1; each knows its number, parallel_thread(). Inside it,
// PARALLEL_SINGLE marks a statement one thread runs while the others wait
// at its end, and PARALLEL_BARRIER where each waits for all.
#define PARALLEL_REGION(n) PARALLEL_PRAGMA(omp parallel num_threads(n) if ((n) > 1))
#define PARALLEL_SINGLE PARALLEL_PRAGMA(omp single)
#define PARALLEL_BARRIER PARALLEL_PRAGMA(omp barrier)
static inline int parallel_thread(void) { return omp_get_thread_num(); }
// How many threads a marked loop runs on; setting it (a benchmark does)
// changes nothing but the speed.
static inline int parallel_threads(void) { return omp_get_max_threads(); }
static inline void parallel_set_threads(int n) { omp_set_num_threads(n); }
#else
#define PARALLEL_FOR(condition)
#define PARALLEL_CRITICAL
#define PARALLEL_REGION(n)
#define PARALLEL_SINGLE
#define PARALLEL_BARRIER
static inline int parallel_thread(void) { return 0; }
static inline int parallel_threads(void) { return 1; }
static inline void parallel_set_threads(int n) { (void)n; }
#endif

#endif
