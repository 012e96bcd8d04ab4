#!/usr/bin/env python3
"""Merges the Markdown rows of several cgm-bench runs (stdin or files): per table and row, the median
p50, floor p50 and ratio over the runs, and how many runs met the 1.5x target. Rows are matched by
their section title, client count and operation name."""
import re
import statistics
import sys

rows, order, section = {}, [], ""
for line in (open(f) for f in sys.argv[1:]) if len(sys.argv) > 1 else [sys.stdin]:
    for l in line:
        if l.startswith("#"):
            section = re.sub(r", \d+ client\(s\):?$", "", l.strip().rstrip(":"))
            continue
        cells = [c.strip() for c in l.strip().split("|")[1:]]
        if len(cells) < 10 or not cells[0].isdigit() or not cells[7].endswith("x"):
            continue
        key = (section, int(cells[0]), cells[1])
        if key not in rows:
            rows[key] = []
            order.append(key)
        errors = int(cells[10].split()[-1]) if len(cells) > 10 and "ERRORS" in cells[10] else 0
        rows[key].append((float(cells[3]), float(cells[6]), float(cells[7][:-1]), cells[5], float(cells[8][:-1]), errors))

last = None
for key in order:
    section, clients, op = key
    if (section, clients) != last:
        print(f"\n{section}, {clients} client(s), median of {len(rows[key])} runs:\n")
        print("| clients | operation | p50 µs | floor | floor p50 µs | ratio p50 | ratio mean | runs within 1.5x | errors |")
        print("| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        last = (section, clients)
    v = rows[key]
    p50 = statistics.median(x[0] for x in v)
    fl = statistics.median(x[1] for x in v)
    ratio = statistics.median(x[2] for x in v)
    mean = statistics.median(x[4] for x in v)
    ok = sum(1 for x in v if x[2] <= 1.5)
    errors = sum(x[5] for x in v)
    print(f"| {clients} | {op} | {p50:.1f} | {v[0][3]} | {fl:.1f} | {ratio:.2f}x {'ok' if ratio <= 1.5 else 'MISS'} "
          f"| {mean:.2f}x | {ok}/{len(v)} | {errors or ''} |")
