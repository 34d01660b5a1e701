#!/usr/bin/python3
"""Plots a plan's time/memory trade-off (pipesim plan PLATFORM WORKLOAD -o DIR; docs/plan.md).

`plot_plan.py DIR [-o FILE]` reads DIR/plan.csv and writes DIR/plot.svg (or
FILE; .png also works): every simulated run that fits as a point of
iteration time against peak memory, coloured by schedule, the front (no run
both faster and smaller) as a line with its ranks, the winner starred (the front's points carry their rank in plan.csv), and
the GPU's memory as a dashed line. Same CSV, same SVG bytes. Runs on
Debian's python3 (/usr/bin/python3) with python3-matplotlib (scripts/setup.sh).
"""
import argparse
import csv
import pathlib
import sys

import matplotlib

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "pipesim-plan"  # stable element ids
import matplotlib.pyplot as plt  # noqa: E402

GIB = 2.0 ** 30


def main(argv):
    parser = argparse.ArgumentParser(prog="plot_plan.py", description=__doc__.splitlines()[0])
    parser.add_argument("dir", metavar="DIR", help="a plan's output folder (with plan.csv)")
    parser.add_argument("-o", "--output", metavar="FILE", help="default: DIR/plot.svg")
    args = parser.parse_args(argv)
    path = pathlib.Path(args.dir) / "plan.csv"
    if not path.is_file():
        parser.error(f"{path}: no such file (run pipesim plan PLATFORM WORKLOAD -o {args.dir} first)")
    with path.open(newline="") as f:
        runs = [r for r in csv.DictReader(f) if r["rank"]]
    if not runs:
        parser.error(f"{path}: no simulated run fits: nothing to plot")
    runs.sort(key=lambda r: int(r["rank"]))

    def label(r):
        v = f" v{r['virtual_stages']}" if r["virtual_stages"] != "0" else f" k{r['k']}" if r["k"] != "0" else ""
        return f"{r['schedule']}{v}"

    fig, ax = plt.subplots(figsize=(8, 5.5))
    schedules = []
    for r in runs:  # in rank order: deterministic legend
        if label(r) not in schedules:
            schedules.append(label(r))
    for name in schedules:
        points = [r for r in runs if label(r) == name]
        ax.scatter([float(r["iteration_time"]) for r in points], [float(r["max_peak_memory"]) / GIB for r in points],
                   s=18, alpha=0.7, label=name)
    front = [r for r in runs if r["front"] == "yes"]
    ax.plot([float(r["iteration_time"]) for r in front], [float(r["max_peak_memory"]) / GIB for r in front],
            color="black", linewidth=1, drawstyle="steps-post", label="front")
    for r in front:
        ax.annotate(r["rank"],
                    (float(r["iteration_time"]), float(r["max_peak_memory"]) / GIB), fontsize=7,
                    xytext=(4, 4), textcoords="offset points")
    best = runs[0]
    ax.scatter([float(best["iteration_time"])], [float(best["max_peak_memory"]) / GIB], marker="*", s=160,
               color="gold", edgecolors="black", zorder=3, label="winner")
    capacity = float(best["memory_capacity"]) / GIB if best["memory_capacity"] else None
    if capacity:
        ax.axhline(capacity, color="grey", linestyle="--", linewidth=1)
        ax.annotate(f"GPU memory {capacity:g} GiB", (float(best["iteration_time"]), capacity), fontsize=8,
                    va="bottom", color="grey")
    ax.set_xlabel("iteration time (s)")
    ax.set_ylabel("peak memory of the fullest GPU (GiB)")
    ax.set_title(f"pipesim plan: {len(runs)} simulated runs that fit")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = pathlib.Path(args.output) if args.output else pathlib.Path(args.dir) / "plot.svg"
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
