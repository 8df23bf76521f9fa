#!/usr/bin/env python3
"""Summarizes a compare_driver table (run.sh --zoo writes one) into one row
per model: ONNX Runtime's minimum at 1 and 2 threads, and each tfn engine's
minimum over ORT's at the same thread count; then the geometric mean of each
ratio column, how many models are at or under ORT, and which are not.

usage: summarize.py RESULTS.md
"""
import math
import re
import sys

UNITS = {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1e3}
COLUMNS = [("ORT", "1"), ("tfn runtime", "1"), ("tfn AOT", "1"),
           ("ORT", "2"), ("tfn runtime", "2"), ("tfn AOT", "2")]


def milliseconds(cell):
    m = re.fullmatch(r"([0-9.]+) (ns|µs|ms|s)", cell.strip())
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def read(path):
    """{model: {(engine, threads): ms or None}}, {model: agreement note}, in file order."""
    times, notes = {}, {}
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 11 or cells[0] in ("model", "---"):
            continue
        model, engine, threads, minimum, agreement = cells[0], cells[4], cells[5], cells[6], cells[10]
        engine = "ORT" if engine.startswith("ORT") else engine
        for t in threads.split(","):
            times.setdefault(model, {})[(engine, t.strip())] = milliseconds(minimum)
        if engine != "ORT" and not agreement.startswith(("ok", "reference")):
            notes[model] = "%s: %s" % (engine, agreement)
    return times, notes


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    times, notes = read(sys.argv[1])
    print("| model | ORT 1t | runtime / ORT 1t | AOT / ORT 1t | ORT 2t | runtime / ORT 2t | AOT / ORT 2t |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    ratios = {c: [] for c in COLUMNS if c[0] != "ORT"}
    slower = []
    for model, t in times.items():
        row = []
        for engine, threads in COLUMNS:
            v = t.get((engine, threads))
            if engine == "ORT":
                row.append("%.2f ms" % v if v else "—")
                continue
            ort = t.get(("ORT", threads))
            if v is None or not ort:
                row.append("—")
                slower.append("%s (%s %st: not run)" % (model, engine, threads))
                continue
            r = v / ort
            ratios[(engine, threads)].append(r)
            row.append("%.2f" % r)
            if r > 1.0:
                slower.append("%s (%s %st: %.2f)" % (model, engine, threads, r))
        print("| %s | %s |" % (model, " | ".join(row)))
    geo = []
    for engine, threads in COLUMNS:
        if engine == "ORT":
            geo.append("")
            continue
        r = ratios[(engine, threads)]
        geo.append("**%.2f**" % math.exp(sum(map(math.log, r)) / len(r)) if r else "—")
    print("| geomean | %s |" % " | ".join(geo))
    print()
    print("%d models. At or under ORT: %s." % (len(times), ", ".join(
        "%s %st %d/%d" % (e, t, sum(x <= 1.0 for x in ratios[(e, t)]), len(ratios[(e, t)]))
        for e, t in COLUMNS if e != "ORT")))
    if slower:
        print("Slower than ORT (or not run): " + "; ".join(slower) + ".")
    for model, note in notes.items():
        print("OUTPUTS DISAGREE: %s (%s)" % (model, note))


if __name__ == "__main__":
    main()
