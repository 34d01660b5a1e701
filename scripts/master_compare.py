#!/usr/bin/env python3
"""Runs one workload under every scheme of schedule `master` (seed 003) and
prints the comparison table of docs/master-scheduler.md (Markdown).

usage: scripts/master_compare.py [PIPESIM] [PLATFORM] [WORKLOAD]
defaults: build/pipesim, platforms/nvswitch-8gpu.xml,
          workloads/examples/transformer-8.yaml

Each row is one `pipesim run ... --schedule-param KEY=VALUE ...`; an empty
VALUE removes the workload's parameter (G and R for the schemes without
groups). Time per batch is the latency L of the round (B micro-batches).
"""
import json
import pathlib
import re
import subprocess
import sys
import tempfile

ROWS = [
    ("DDP", "scheme=ddp G= R="),
    ("FSDP", "scheme=fsdp G= R="),
    ("GPipe", "scheme=gpipe G= R="),
    ("LPP G=2 R=4", "scheme=lpp G=2 R=4"),
    ("FSLPP G=2 R=4", "scheme=fslpp G=2 R=4"),
    # Variants
    ("FSDP, refetch for B", "scheme=fsdp G= R= refetch=true"),
    ("LPP G=2 R=4, breadth-first", "scheme=lpp G=2 R=4 priority=breadth-first"),
    ("LPP G=4 R=2", "scheme=lpp G=4 R=2"),
    ("FSLPP G=2 R=4, refetch for B", "scheme=fslpp G=2 R=4 refetch=true"),
]

GIB = 1024.0 ** 3


def run(pipesim, platform, workload, params):
    with tempfile.TemporaryDirectory() as tmp:
        report, workers = pathlib.Path(tmp, "r.json"), pathlib.Path(tmp, "w.txt")
        cmd = [pipesim, "run", platform, workload, "--quiet", "--json", str(report), "--workers", str(workers)]
        for p in params.split():
            cmd += ["--schedule-param", p]
        subprocess.run(cmd, check=True)
        return json.loads(report.read_text()), workers.read_text()


def main():
    args = sys.argv[1:] + [None] * 3
    pipesim = args[0] or "build/pipesim"
    platform = args[1] or "platforms/nvswitch-8gpu.xml"
    workload = args[2] or "workloads/examples/transformer-8.yaml"
    print("| scheme | W | time per batch L | rho | peak memory per worker (max) | weights + grads at peak "
          "| stashes at peak | activations + gradients moved | weights moved |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, params in ROWS:
        r, w = run(pipesim, platform, workload, params)
        used = [d for d in r["devices"] if d["tasks"] > 0]
        peak = max(used, key=lambda d: d["peak_memory"])
        b = peak["peak_breakdown"]
        rho = float(re.search(r"rho = work / \(W L\) = ([0-9.]+)", w).group(1))
        moved = re.search(r"moved: activations (.+?), gradients (.+?), weights (.+)", w)
        print(f"| {name} | {len(used)} | {r['makespan'] * 1e3:.2f} ms | {rho:.4f} "
              f"| {peak['peak_memory'] / GIB:.2f} GiB | {(b['weights'] + b['gradients']) / GIB:.2f} GiB "
              f"| {b['activations'] / GIB:.2f} GiB | {moved.group(1)} + {moved.group(2)} | {moved.group(3)} |")


if __name__ == "__main__":
    main()
