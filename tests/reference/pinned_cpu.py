"""pinned_cpu.py: make PyTorch compute the same bits on any x86-64 machine.

Imported first by every *_golden.py script (not a script itself), before
torch. PyTorch picks its kernels by processor at run time, in three places,
and each choice can change the last bits of a float32 result:

  OpenBLAS   matrix products (nn.Linear, torch.mm): one kernel per processor
             family, chosen from CPUID unless OPENBLAS_CORETYPE names one.
             Haswell's is the AVX2 kernel every x86-64 processor since 2013
             runs.
  ATen       element-wise and reduction loops (softmax, sums, exp), compiled
             for "default", AVX2 and AVX-512, chosen unless
             ATEN_CPU_CAPABILITY names one. AVX2 is pinned rather than
             "default" because src/core/rng.c reproduces the AVX2 build of
             randn's Box-Muller step for 16 or more values.
  oneDNN     convolutions and some matrix paths, chosen up to
             ONEDNN_MAX_CPU_ISA; also switched off below.

Threads split sums into different orders, so everything runs on one.
check() stops a script whose pins did not take (a processor without AVX2,
or a variable set after torch was loaded): goldens written then would differ
from the committed ones for reasons that have nothing to do with the code.
"""
import os

from blas_info import openblas_core  # the kernels the loaded OpenBLAS runs

PINS = {
    "OPENBLAS_CORETYPE": "Haswell",
    "ATEN_CPU_CAPABILITY": "avx2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "DNNL_MAX_CPU_ISA": "AVX2",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
os.environ.update(PINS)

import torch  # noqa: E402  (after the variables, which torch reads on load)

torch.set_num_threads(1)
torch.backends.mkldnn.enabled = False


def check():
    """Stop unless OpenBLAS runs Haswell's kernels and ATen its AVX2 ones."""
    torch.ones(2, 2) @ torch.ones(2, 2)  # loads OpenBLAS if it is not yet
    core = openblas_core()
    capability = [line for line in torch.__config__.show().splitlines()
                  if "CPU capability usage" in line]
    problems = []
    if core != "Haswell":
        problems.append(f"OpenBLAS runs {core!r} kernels, not 'Haswell' "
                        "(is libopenblas0-pthread installed?)")
    if not capability or not capability[0].strip().endswith("AVX2"):
        problems.append(f"ATen reports {capability}, not AVX2")
    if problems:
        raise SystemExit("pinned_cpu: the goldens would depend on this processor: "
                         + "; ".join(problems)
                         + ". They need an x86-64 processor with AVX2.")


check()
