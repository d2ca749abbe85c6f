"""goldenfile.py: write tensors in the format tests/golden.h reads.

Imported by the *_golden.py scripts beside it (not a script itself):

    # comment lines
    section <name> <kind> <count>
    <count> values, up to 8 per line

kind f32: float32 values in the shortest decimal that reads back (strtof)
to exactly the same float (compact_section: positional or scientific,
whichever is shorter); i64: integers.
"""
import numpy as np
import torch


def f32_text(values, compact=False):
    """Shortest round-trip decimal of each float32 value, positional; with
    compact, the shorter of its positional and scientific forms (gradients
    can be small: 1.5e-07, not 0.00000015)."""
    out = []
    for v in np.asarray(values, dtype=np.float32).ravel():
        a = np.format_float_positional(v, unique=True, trim="-")
        if compact:
            b = np.format_float_scientific(v, unique=True, trim="-")
            a = a if len(a) <= len(b) else b
        out.append(a)
    return out


def i64_text(values):
    return [str(int(v)) for v in np.asarray(values, dtype=np.int64).ravel()]


def section(out, name, tensor, compact=False):
    """Append section `name` holding `tensor` to the list of lines `out`
    (floats compact or not, as f32_text writes them)."""
    t = tensor.detach()
    if t.dtype == torch.float32:
        kind, words = "f32", f32_text(t.numpy(), compact)
    elif t.dtype == torch.int64:
        kind, words = "i64", i64_text(t.numpy())
    else:
        raise TypeError(f"{name}: unexpected dtype {t.dtype}")
    out.append(f"section {name} {kind} {len(words)}")
    for i in range(0, len(words), 8):
        out.append(" ".join(words[i:i + 8]))


def compact_section(out, name, tensor):
    """section() with compact floats, for files of gradients."""
    section(out, name, tensor, compact=True)


def write(path, lines):
    """The lines (a golden file's: comments, then sections) into path."""
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {path}")
