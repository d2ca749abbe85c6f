"""blas_info.py: which BLAS library a process has loaded, and which of
OpenBLAS's kernels it runs. Read from /proc/self/maps and OpenBLAS's own
functions; importing it changes nothing (no variable set, no library
loaded), so the pinned golden scripts and the benchmarks both use it.

Imported by the scripts beside it (not a script itself).
"""
import ctypes


def blas_libs():
    """The paths of the BLAS libraries loaded into this process, sorted."""
    try:
        with open("/proc/self/maps") as f:
            return sorted({line.split()[-1] for line in f
                           if "blas" in line and ".so" in line and line.split()[-1].startswith("/")})
    except OSError:
        return []


def _openblas_call(name):
    """OpenBLAS's function NAME (returning a string) called in the first
    loaded library that has it, or None."""
    for lib in blas_libs():
        try:
            f = getattr(ctypes.CDLL(lib), name)
        except (OSError, AttributeError):
            continue
        f.restype = ctypes.c_char_p
        return f().decode()
    return None


def openblas_core():
    """The kernels the loaded OpenBLAS runs ("Haswell", "Prescott"), or None."""
    return _openblas_call("openblas_get_corename")


def blas_name():
    """The loaded BLAS as the benchmarks print it: OpenBLAS's version and
    kernels ("OpenBLAS 0.3.21 (Cooperlake kernels)"), or the library's file
    name when it is not OpenBLAS."""
    config, core = _openblas_call("openblas_get_config"), openblas_core()
    if config:
        return " ".join(config.split()[:2]) + (f" ({core} kernels)" if core else "")
    libs = blas_libs()
    return libs[0].rsplit("/", 1)[-1] if libs else "no BLAS"
