#!/usr/bin/python3
"""Plots a sweep's results (pipesim sweep SPEC -o DIR; docs/whatif.md).

`plot_sweep.py DIR [--x COLUMN] [-o FILE]` reads DIR/results.csv and writes
DIR/plot.svg (or FILE; .png also works): throughput, worst bubble fraction
and peak memory (beside the device's capacity) against one swept variable,
one series per combination of the other swept columns. The x column is the
one given, else the last swept column whose values are all numbers, else the
last swept column. Runs without metrics (failed ones) are left out. Same CSV,
same SVG bytes. Runs on Debian's python3 (/usr/bin/python3), where
python3-matplotlib (scripts/setup.sh) is installed.
"""
import argparse
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pipesim-sweep"  # stable element ids
import matplotlib.pyplot as plt  # noqa: E402

FIXED = {"id", "status", "exit_code", "error"}


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def label(column, value):
    if column in ("platform", "workload"):
        value = pathlib.Path(value).stem
    return f"{column.removeprefix('set.')}={value}"


def main(argv):
    parser = argparse.ArgumentParser(prog="plot_sweep.py", description=__doc__.splitlines()[0])
    parser.add_argument("dir", metavar="DIR", help="a sweep's output folder (with results.csv)")
    parser.add_argument("--x", metavar="COLUMN", help="the swept column on the x axis")
    parser.add_argument("-o", "--output", metavar="FILE", help="default: DIR/plot.svg")
    args = parser.parse_args(argv)
    path = pathlib.Path(args.dir) / "results.csv"
    if not path.is_file():
        parser.error(f"{path}: no such file (run pipesim sweep SPEC -o {args.dir} first)")
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        rows = [r for r in reader if r.get("throughput")]
    inputs = header[1:header.index("status")]
    swept = [c for c in inputs if len({r[c] for r in rows}) > 1] or inputs[-1:]
    if not rows:
        parser.error(f"{path}: no run with metrics to plot")
    if args.x:
        if args.x not in inputs:
            parser.error(f"--x: '{args.x}' is not one of the swept columns: {', '.join(inputs)}")
        x = args.x
    else:
        numeric = [c for c in swept if all(number(r[c]) is not None for r in rows)]
        x = (numeric or swept)[-1]
    others = [c for c in swept if c != x]
    xs = sorted({r[x] for r in rows}, key=lambda v: (number(v) is None, number(v) or 0, v))
    series = {}
    for r in rows:  # in the CSV's (grid) order: deterministic legends
        series.setdefault(tuple(r[c] for c in others), []).append(r)

    panels = [("throughput", "throughput (samples/s)", 1.0),
              ("worst_bubble_fraction", "worst bubble fraction", 1.0),
              ("max_peak_memory", "peak memory (GiB)", 2.0 ** -30)]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, (column, title, scale) in zip(axes, panels):
        for key, points in series.items():
            points = sorted(points, key=lambda r: xs.index(r[x]))
            px = [xs.index(r[x]) for r in points]
            py = [float(r[column]) * scale if r[column] else float("nan") for r in points]
            name = ", ".join(label(c, v) for c, v in zip(others, key)) or "all"
            ax.plot(px, py, marker="o", label=name)
        if column == "max_peak_memory":
            capacity = {float(r["memory_capacity"]) * scale for r in rows if r["memory_capacity"]}
            for c in sorted(capacity):
                ax.axhline(c, color="grey", linestyle="--", linewidth=1)
                ax.annotate(f"capacity {c:g} GiB", (0, c), fontsize=8, va="bottom", color="grey")
        ax.set_xticks(range(len(xs)))
        ax.set_xticklabels([pathlib.Path(v).stem if x in ("platform", "workload") else v for v in xs],
                           rotation=20 if x in ("platform", "workload") else 0)
        ax.set_xlabel(x.removeprefix("set."))
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    out = pathlib.Path(args.output) if args.output else pathlib.Path(args.dir) / "plot.svg"
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
