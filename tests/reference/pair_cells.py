#!/usr/bin/env python3
"""pair_cells.py: a chapter program's output beside its PyTorch twin's.

    python3 tests/reference/pair_cells.py C_OUTPUT TWIN_OUTPUT NAME \\
        --tolerance T --beside FILE --summary FILE

Both outputs are made of blocks that start with a header line
`[LABEL] title` (a notebook cell such as [T23], or a block of the program's
own such as [P8.4]). Every block the twin prints is paired with the C
program's block of the same label, and every number in the two bodies is
read (the header lines are left out: their titles may differ), in order,
along with the words True and False. When the twin's block prints tensors,
only the numbers inside the tensors, `tensor(...)`, are read from both,
tensor by tensor: the program may say more around them (its random seed,
a table of the same weights). A pair fails when the twin has a
label the program lacks, when the two bodies hold a different count of
numbers or different truth values, or when two numbers differ by more than
the tolerance; the script then says which and exits with status 1, after
writing both files, so that the book is not built on a disagreement.

--beside gets each paired block with the program's output and the twin's
side by side when both fit in WIDTH characters (93, what quote.lua lets an
output line have), one above the other otherwise, and the largest
difference under them. --summary gets one line a block. Python only, no
PyTorch: the twin's output is read from its file.
"""
import argparse
import os
import re
import sys

HEADER = re.compile(r"^\[([A-Z]\d+|P\d+\.\d+|\d+)\] (.*)$")
# A number that is not part of a name (x_0, W_q, d_k) nor of another number.
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
TRUTH = re.compile(r"\b(True|False)\b")
GAP = " | "


def blocks(path):
    """{label: (title, body lines)} in the file's order."""
    out, label = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = HEADER.match(line)
            if m:
                label = m.group(1)
                if label in out:
                    sys.exit(f"pair_cells: {path} has two blocks [{label}]")
                out[label] = (m.group(2), [])
            elif label is not None:
                out[label][1].append(line.rstrip())
    for title, body in out.values():
        while body and not body[-1]:
            body.pop()
    return out


def tensors(text):
    """The texts of the `tensor(...)` in text, in order."""
    out, start = [], text.find("tensor(")
    while start >= 0:
        depth, i = 0, start + len("tensor")
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        out.append(text[start + len("tensor"):i + 1])
        start = text.find("tensor(", i)
    return out


def numbers(lines, tensors_only):
    """The numbers, and the words True and False, of a block's body. With
    tensors_only, the numbers of each tensor, and their count per tensor."""
    text = "\n".join(lines)
    truths = TRUTH.findall(text)
    parts = tensors(text) if tensors_only else [text]
    values = [[float(t) for t in NUMBER.findall(part)] for part in parts]
    return [v for part in values for v in part], [len(v) for v in values], truths


def compare(c_body, t_body, tolerance):
    """(count, largest difference, problem or None)."""
    tensors_only = any("tensor(" in line for line in t_body)
    c_values, c_counts, c_truths = numbers(c_body, tensors_only)
    t_values, t_counts, t_truths = numbers(t_body, tensors_only)
    if c_counts != t_counts:
        what = "tensors of " if tensors_only else ""
        return len(c_values), None, (f"C prints {what}{c_counts} numbers, "
                                     f"PyTorch {t_counts}")
    count = len(c_values) + len(c_truths)
    if c_truths != t_truths:
        at = next((i for i, (a, b) in enumerate(zip(c_truths, t_truths)) if a != b),
                  min(len(c_truths), len(t_truths)))
        return count, None, (f"C prints {len(c_truths)} truth values, PyTorch "
                             f"{len(t_truths)}; they differ from value {at + 1} on")
    largest = max((abs(a - b) for a, b in zip(c_values, t_values)), default=0.0)
    if largest > tolerance:
        return count, largest, (f"a difference of {largest:.3g} "
                                f"(tolerance {tolerance:g})")
    return count, largest, None


def beside(label, title, c_body, t_body, names, width):
    c_name, t_name = names
    left = max((len(l) for l in c_body), default=0)
    left = max(left, len(c_name))
    right = max((len(l) for l in t_body), default=0)
    out = [f"[{label}] {title}"]
    if left + len(GAP) + right <= width:
        out.append(f"{c_name:<{left}}{GAP}{t_name}")
        for i in range(max(len(c_body), len(t_body))):
            a = c_body[i] if i < len(c_body) else ""
            b = t_body[i] if i < len(t_body) else ""
            out.append(f"{a:<{left}}{GAP}{b}".rstrip())
    else:
        out += [c_name + ":"] + c_body + [t_name + ":"] + t_body
    return out


def difference_text(count, largest):
    if largest is None:
        return "not compared"
    if largest == 0:
        return "0"
    return f"{largest:.1e}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("c_output")
    p.add_argument("twin_output")
    p.add_argument("name", help="the twin's name, for the summary")
    p.add_argument("--tolerance", type=float, default=1e-4)
    p.add_argument("--width", type=int, default=93)
    p.add_argument("--beside", required=True)
    p.add_argument("--summary", required=True)
    a = p.parse_args()

    c_blocks, t_blocks = blocks(a.c_output), blocks(a.twin_output)
    program = os.path.splitext(os.path.basename(a.c_output))[0]
    names = (f"C, ./{program}", f"PyTorch, {a.name}")
    if not t_blocks:
        sys.exit(f"pair_cells: {a.twin_output} has no block [LABEL]")
    beside_lines, rows, problems = [], [], []
    for label, (t_title, t_body) in t_blocks.items():
        if label not in c_blocks:
            problems.append(f"[{label}]: PyTorch prints it, {a.c_output} has no such block")
            continue
        c_title, c_body = c_blocks[label]
        count, largest, problem = compare(c_body, t_body, a.tolerance)
        if problem:
            problems.append(f"[{label}]: {problem}")
        if beside_lines:
            beside_lines.append("")
        beside_lines += beside(label, c_title, c_body, t_body, names, a.width)
        beside_lines.append(f"largest difference: {difference_text(count, largest)}"
                            f" over {count} values")
        rows.append((label, count, difference_text(count, largest)))

    summary = [f"{a.name} beside ./{program}, block by block",
               f"{'block':<7}{'values':>8}   largest difference"]
    summary += [f"{label:<7}{count:>8}   {diff}" for label, count, diff in rows]
    if problems:
        summary.append("DISAGREE: " + "; ".join(problems))
    else:
        summary.append(f"values: numbers and truth values read from both; 0: every printed "
                       f"digit agrees;")
        summary.append(f"every number within {a.tolerance:.0e} of PyTorch's (the tolerance)")
    for path, lines in ((a.beside, beside_lines), (a.summary, summary)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    if problems:
        for problem in problems:
            print(f"pair_cells: {a.name}: {problem}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
