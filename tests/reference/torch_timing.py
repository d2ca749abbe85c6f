"""torch_timing.py: what the PyTorch benchmarks (bench_torch.py,
bench_torch8.py, bench_torch9.py, bench_torch10.py) share: OpenMP's threads
asked to wait asleep, OpenBLAS's kernels chosen for the CPU, glibc asked
to keep large blocks, the BLAS libraries loaded and their thread count,
and the lines the C benchmarks read (tests/bench/bench.h, run_torch).

Imported by the scripts beside it (not a script itself).
"""
import ctypes
import ctypes.util
import os
import statistics
import subprocess
import sys

from blas_info import blas_libs, blas_name

# OpenMP's threads wait for work by spinning, by default; on two cores,
# torch's spinning threads then take turns with OpenBLAS's own threads, and
# a step on 2 threads can take ten times as long as on 1. Waiting asleep
# gives PyTorch its 2 threads' worth. libgomp reads the variable when torch
# loads, so the scripts import this module before torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# OpenBLAS chooses its kernels when it loads, for the CPU it recognises. A
# CPU newer than the library gets the oldest it has: Debian 12's OpenBLAS
# 0.3.21 takes Intel's Emerald Rapids for a Prescott, whose kernels (SSE3)
# multiply a 2048 x 128 matrix by a 128 x 512 one at 28 GFLOP/s on one
# thread there, against 118 with the AVX-512 kernels the CPU runs. So
# before torch loads it, a child process asks OpenBLAS which kernels it
# would choose; when it falls back to one of those old cores,
# OPENBLAS_CORETYPE names the newest core whose instructions the CPU has.
OLD_CORES = {"prescott", "core2", "penryn", "dunnington", "nehalem", "atom"}
# The child loads the library torch would (libblas.so.3, which Debian's
# alternatives point at OpenBLAS) and asks it (blas_info.py).
PROBE = ("import ctypes, ctypes.util, blas_info\n"
         "ctypes.CDLL(ctypes.util.find_library('blas'))\n"
         "print(blas_info.openblas_core() or '')")


def openblas_core():
    """The kernels OpenBLAS chooses by itself here, or None (no OpenBLAS)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    here = os.path.dirname(os.path.abspath(__file__))
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        r = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                           timeout=60, env=env)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    return r.stdout.strip() or None


def best_core():
    """The newest OpenBLAS core whose instructions this CPU has, or None."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((set(line.split(":", 1)[1].split()) for line in f
                          if line.startswith("flags")), set())
    except OSError:
        return None
    skylakex = {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
    if skylakex | {"avx512_bf16"} <= flags:
        return "Cooperlake"
    if skylakex <= flags:
        return "SkylakeX"
    if {"avx2", "fma"} <= flags:
        return "Haswell"
    return None


CHOSEN_CORE = openblas_core()  # what OpenBLAS would run here by itself
CORE_NOTE = ""
if "OPENBLAS_CORETYPE" not in os.environ and CHOSEN_CORE and CHOSEN_CORE.lower() in OLD_CORES:
    better = best_core()
    if better:
        os.environ["OPENBLAS_CORETYPE"] = better
        CORE_NOTE = (f"OPENBLAS_CORETYPE={better} (OpenBLAS alone would run "
                     f"{CHOSEN_CORE}'s kernels here)")


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


def print_version(torch_version, kept):
    """The last lines: torch <version> with <BLAS> (blas_info.blas_name)[,
    large blocks kept], then, when the kernels were chosen here,
    torch_kernels <which>."""
    print(f"torch {torch_version} with {blas_name()}" + (", large blocks kept" if kept else ""))
    if CORE_NOTE:
        print(f"torch_kernels {CORE_NOTE}")
