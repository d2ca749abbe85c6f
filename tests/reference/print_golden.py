#!/usr/bin/env python3
"""print_golden.py: how PyTorch prints tensors, for tests/test_print.c.

    /usr/bin/python3 tests/reference/print_golden.py tests/golden

writes print_cases.txt: for each case, its values and the exact text
print(tensor) writes, so that src/core/print.c can be held to it.

Format:
    case <name> <f32|i64|bool> <ndim> <dim>...
    <values on one line>
    <the printed lines>
    endcase
"""
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch
from goldenfile import f32_text, i64_text, write


def cases():
    g = torch.Generator().manual_seed(5)
    yield "z3_like", torch.randn(32, generator=g)
    yield "matrix_fixed", torch.randn(5, 10, generator=g)
    yield "matrix_sci", torch.tensor([[6.3379e-02, 4.6831e-01, 4.6831e-01],
                                      [6.0337e-06, 9.8201e-01, 1.7986e-02],
                                      [2.9539e-04, 8.8054e-01, 1.1917e-01]])
    yield "whole_numbers", torch.tensor([[2., 4., 4.], [4., 16., 12.], [4., 12., 10.]])
    yield "masked_row", torch.tensor([43.661, -1e10, -1e10, -1e10, -1e10, -1e10, -1e10, -1e10])
    yield "ones_not_exact", torch.tensor([1.0, 0.99999994, 1.0000001, 1.0])
    yield "small_and_large", torch.tensor([0.5, 1234.5678, -3.25])
    yield "batch_of_one", torch.randn(1, 3, 4, generator=g)
    yield "scores_8x8", torch.randn(8, 8, generator=g) * 20
    yield "zeros", torch.zeros(3)
    yield "negative_zero_and_one", torch.tensor([-0.0, 1.0, -2.0])
    yield "ids", torch.tensor([10277, 18871, 14910, 13181, 2829, 19980, 9604, 10053])
    yield "ids_2d", torch.tensor([[9, 8, 4, 2, 3]])
    yield "mask", torch.triu(torch.full((4, 4), True), diagonal=1)
    yield "all_true", torch.ones(3, dtype=torch.bool)


def values(t):
    if t.dtype == torch.bool:
        return " ".join("1" if v else "0" for v in t.numpy().ravel())
    text = f32_text if t.dtype == torch.float32 else i64_text
    return " ".join(text(t.numpy()))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: print_golden.py OUTPUT_DIR")
    kinds = {torch.float32: "f32", torch.int64: "i64", torch.bool: "bool"}
    out = [f"# written by tests/reference/print_golden.py, torch {torch.__version__}"]
    for name, t in cases():
        shape = " ".join(str(s) for s in t.shape)
        out.append(f"case {name} {kinds[t.dtype]} {t.dim()} {shape}")
        out.append(values(t))
        out.append(str(t))
        out.append("endcase")
    write(os.path.join(sys.argv[1], "print_cases.txt"), out)


if __name__ == "__main__":
    main()
