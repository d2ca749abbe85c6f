"""torch_timing.py: what the PyTorch benchmarks (bench_torch.py,
bench_torch8.py, bench_torch9.py, bench_torch10.py) share: OpenMP's threads
asked to wait asleep, glibc asked to keep large blocks, the BLAS
libraries loaded and their thread count, and the lines the C benchmarks
read (tests/bench/bench.h, run_torch).

Imported by the scripts beside it (not a script itself).
"""
import ctypes
import ctypes.util
import os
import statistics

# OpenMP's threads wait for work by spinning, by default; on two cores,
# torch's spinning threads then take turns with OpenBLAS's own threads, and
# a step on 2 threads can take ten times as long as on 1. Waiting asleep
# gives PyTorch its 2 threads' worth. libgomp reads the variable when torch
# loads, so the scripts import this module before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def keep_large_blocks():
    """glibc: no mmap for large blocks, and no giving memory back: freed
    blocks are reused, their pages already mapped. Returns whether it took."""
    M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"))
        big = 1 << 30
        options = (M_MMAP_THRESHOLD, M_TRIM_THRESHOLD, M_TOP_PAD)
        return all(libc.mallopt(opt, big) == 1 for opt in options)
    except (OSError, AttributeError):
        return False


def blas_libs():
    """The paths of the BLAS libraries loaded into this process, sorted."""
    try:
        with open("/proc/self/maps") as f:
            return sorted({line.split()[-1] for line in f if "blas" in line and ".so" in line})
    except OSError:
        return []


def set_blas_threads(threads):
    """The thread count of the OpenBLAS loaded into this process, if any."""
    for lib in blas_libs():
        try:
            ctypes.CDLL(lib).openblas_set_num_threads(threads)
        except (OSError, AttributeError):
            pass


def print_runs(model, threads, runs, repeats, steps):
    """One measurement: every repeat's ms per step."""
    print(f"torch {model} threads {threads} ms_per_step min {min(runs):.4f} "
          f"median {statistics.median(runs):.4f} repeats {repeats} steps {steps} "
          f"runs {','.join(f'{r:.4f}' for r in runs)}", flush=True)


def print_version(torch_version, blas, kept):
    """The last line: torch <version> with <BLAS>[, large blocks kept]."""
    print(f"torch {torch_version} with {blas}" + (", large blocks kept" if kept else ""))
