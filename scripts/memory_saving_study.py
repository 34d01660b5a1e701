#!/usr/bin/env python3
"""Time per micro-batch against the GPU memory, with seed 002's memory
saving on every pipeline stage (docs/memory-saving.md, "Study").

For GPT-2 XL (workloads/examples/gpt2-xl-layers.yaml) and ResNet-50 (imported from
workloads/profiles/resnet50/graph.txt, 16 micro-batches) on copies of
platforms/a100-8gpu-pcie-host.xml whose GPUs have less memory, 1F1B: runs
`pipesim run` without saving and with `memory_saving: {policy: P, limit:
fit}` for P in remat, offload, both, at GPU memories from the least at which
both runs (the least of all policies) to 5 % above what keeping everything
peaks at. Writes OUT/points.csv and OUT/plot.svg (matplotlib, from
Debian's python3-matplotlib). Usage:

    python3 scripts/memory_saving_study.py [--build build] [--out docs/memory-saving-study] [--points 12]
"""
import argparse
import csv
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PLATFORM = ROOT / "platforms" / "a100-8gpu-pcie-host.xml"
POLICIES = ("remat", "offload", "both")
GIB = 1024.0 ** 3


def run(pipesim, workload_text, policy, memory, tmp):
    """(exit code, time per micro-batch of a valid run or None, JSON or None) with GPUs of `memory` bytes."""
    text = workload_text
    if policy != "none":
        text += f"memory_saving: {{policy: {policy}, limit: fit}}\n"
    workload = tmp / "w.yaml"
    workload.write_text(text)
    platform = tmp / "p.xml"
    platform.write_text(PLATFORM.read_text().replace('value="80GiB"', f'value="{int(memory)}"'))
    report = tmp / "r.json"
    if report.exists():
        report.unlink()
    done = subprocess.run([pipesim, "run", str(platform), str(workload), "--quiet", "--json", str(report)],
                          capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"memory_saving_study.py: pipesim failed: {done.stderr}")
    data = json.loads(report.read_text()) if report.exists() else None
    time = data["iteration_time_per_microbatch"] if data and data["valid"] else None
    return done.returncode, time, data


def study(pipesim, name, text, points, tmp):
    """GPU memories from the least at which both runs to 5 % above what keeping everything peaks at."""
    _, _, data = run(pipesim, text, "none", 80 * 1024 ** 3, tmp)
    top = max(d["peak_memory"] for d in data["devices"]) * 1.05
    low, high = top / 16, top  # bisection on a valid both run (monotone in the memory)
    for _ in range(30):
        middle = (low + high) / 2
        low, high = (low, middle) if run(pipesim, text, "both", middle, tmp)[0] == 0 else (middle, high)
    rows = []
    for i in range(points):
        memory = high * (top / high) ** (i / (points - 1))
        for policy in ("none",) + POLICIES:
            code, time, _ = run(pipesim, text, policy, memory, tmp)
            status = "valid" if code == 0 else ("infeasible" if time is None and policy != "none" else "out of memory")
            rows.append({"workload": name, "policy": policy, "gpu_memory_bytes": round(memory),
                         "time_per_microbatch": "" if time is None else time, "status": status})
    return rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "pipesim"  # deterministic ids
    import matplotlib.pyplot as plt
    names = list(dict.fromkeys(r["workload"] for r in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(6 * len(names), 4.2))
    styles = {"none": ("black", "s", "none (keep everything)"), "remat": ("tab:blue", "o", "remat"),
              "offload": ("tab:green", "v", "offload alone (PCIe 25 GB/s)"),
              "both": ("tab:red", "^", "both (the faster offloading program)")}
    for ax, name in zip(axes, names):
        for policy, (colour, marker, label) in styles.items():
            pts = [(r["gpu_memory_bytes"] / GIB, r["time_per_microbatch"] * 1e3) for r in rows
                   if r["workload"] == name and r["policy"] == policy and r["time_per_microbatch"] != ""]
            if pts:
                ax.plot(*zip(*pts), color=colour, marker=marker, label=label, linewidth=1.2, markersize=4)
        ax.set_title(f"{name}, 1F1B on 8 A100", fontsize=10)
        ax.set_xlabel("GPU memory (GiB); memory_saving limit: fit on every stage")
        ax.set_ylabel("time per micro-batch (ms)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})


def main(argv):
    parser = argparse.ArgumentParser(prog="memory_saving_study.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(ROOT / "build"), help="the build directory (default build/)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "memory-saving-study"), help="output directory")
    parser.add_argument("--points", type=int, default=12, help="limits per workload (default 12)")
    args = parser.parse_args(argv)
    pipesim = str(pathlib.Path(args.build) / "pipesim")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        gpt2 = (ROOT / "workloads" / "examples" / "gpt2-xl-layers.yaml").read_text()
        subprocess.run([pipesim, "import", str(ROOT / "workloads" / "profiles" / "resnet50" / "graph.txt"),
                        "-o", str(tmp / "resnet50.yaml"), "--microbatches", "16"], check=True, capture_output=True)
        resnet = (tmp / "resnet50.yaml").read_text()
        rows = study(pipesim, "GPT-2 XL", gpt2, args.points, tmp) + study(pipesim, "ResNet-50", resnet, args.points, tmp)
    with open(out / "points.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["workload", "policy", "gpu_memory_bytes", "time_per_microbatch", "status"],
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, out / "plot.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
