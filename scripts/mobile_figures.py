#!/usr/bin/python3
"""Seed 004's Figures 5-7 (docs/mobile.md, "Figures 5-7"), simulated by pipesim.

usage: scripts/mobile_figures.py [--pipesim build/pipesim] [--out docs/mobile]
                                 [--figures 5,6,7] [--microbatches 100] [--sets 5] [--jobs 2]

Every point is one `pipesim run PLATFORM WORKLOAD --json` of the `split`
schedule; the script writes figN.png and figN.csv into --out and prints the
tables of docs/mobile.md (Markdown). Runs /usr/bin/python3 (Debian's
python3-matplotlib); no network.

Workloads: PipeDream's V100 profiles (workloads/profiles/, MIT licence),
imported by `pipesim import`; Inception-v3 stands in for GoogLeNet (no
GoogLeNet profile is public). The profiled milliseconds become flops at a
V100's sustained fp32 rate, 7.85 Tflop/s (15.7 Tflop/s peak of a V100 SXM2,
halved as the shipped mobile platforms halve their peaks), and are scaled
from the profiled batch (AlexNet 256, Inception-v3 128 samples, as the
input tensor implies) to SAMPLES samples per micro-batch, as are the
activations (weights stay). Layers with no forward or no backward time
(view, dropout) are merged into the layer before them: eq. 1's model needs
both passes on every layer. An epoch is MICROBATCHES micro-batches.

Platforms: scripts/make_platform.py's mobile devices, each figure over
Wi-Fi (25 MB/s, 2 ms per device to one access point) and over 10 Gbit/s
Ethernet (1.25 GB/s, 0.1 ms), where communication is nearly hidden.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_platform  # noqa: E402  (the shipped platforms' generator, same folder)

ROOT = pathlib.Path(__file__).resolve().parent.parent
V100_SUSTAINED = 7.85e12  # flop/s: 15.7 Tflop/s fp32 peak, halved
SAMPLES = 32              # samples per micro-batch
MODELS = {  # name: (profile, profiled batch, label)
    "alexnet": ("workloads/profiles/alexnet/graph.txt", 256, "AlexNet"),
    "inception_v3": ("workloads/profiles/inception_v3/graph.txt", 128, "Inception-v3 (for GoogLeNet)"),
}
KINDS = ["laptop-i7", "laptop-i5", "pi"]  # Fig. 7's device kinds
FIG6_BETAS = [round(0.05 * i, 2) for i in range(1, 20)]
FIG6_DEPTHS = [1, 2, 4]
FIG7_WORKERS = 4
FIG7_DEVICES = range(4, 13)
METHODS = ["algorithm2", "brute-force", "sorting"]
NETWORKS = {"wifi": "Wi-Fi", "10gbe": "10 Gbit/s"}
LAYER = re.compile(r"- \{name: ([^,]+), forward: ([\d.]+)ms, backward: ([\d.]+)ms, activation: (\d+), weights: (\d+)(?:, operator_activations: \d+)?\}")


def chain(pipesim, model):
    """(input bytes, [[name, forward flops, backward flops, activation, weights]]) of one micro-batch."""
    profile, batch, _ = MODELS[model]
    text = subprocess.run([pipesim, "import", str(ROOT / profile)], capture_output=True, text=True, check=True).stdout
    scale = SAMPLES / batch
    layers = []
    for m in LAYER.finditer(text):
        name, f, b, a, w = m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4)), float(m.group(5))
        if (f == 0 or b == 0) and layers:  # merged into the previous layer, whose output it becomes
            last = layers[-1]
            last[0] += "+" + name
            last[1] += f
            last[2] += b
            last[3] = a
            last[4] += w
        else:
            layers.append([name, f, b, a, w])
    input_bytes = float(re.search(r"^input: (\S+)", text, re.M).group(1)) * scale
    flops = [[n, f / 1000 * V100_SUSTAINED * scale, b / 1000 * V100_SUSTAINED * scale, a * scale, w]
             for n, f, b, a, w in layers]
    if any(l[1] <= 0 or l[2] <= 0 for l in flops):
        raise SystemExit(f"mobile_figures: {model}: a layer without forward or backward time is left")
    return input_bytes, flops


def write_workload(path, model, input_bytes, layers, microbatches):
    with open(path, "w") as out:
        out.write(f"# {MODELS[model][2]}: {MODELS[model][0]} at {SAMPLES} samples per micro-batch, "
                  f"flops at {V100_SUSTAINED / 1e12} Tflop/s (scripts/mobile_figures.py)\n")
        out.write(f"name: {model}\nmicrobatches: {microbatches}\nmicrobatch_size: {SAMPLES}\n"
                  f"input: {input_bytes:.0f}\nlayers:\n")
        for n, f, b, a, w in layers:
            out.write(f"  - {{name: '{n}', forward: {f / 1e9:.6f}Gf, backward: {b / 1e9:.6f}Gf, "
                      f"activation: {a:.0f}, weights: {w:.0f}}}\n")
        out.write("schedule: split\n")


def write_platform(path, models, network):
    pathlib.Path(path).write_text(make_platform.mobile(models, network))


def run(pipesim, platform, workload, params):
    """The JSON report of one run (params: schedule parameters)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    try:
        cmd = [pipesim, "run", platform, workload, "--quiet", "--json", out]
        for k, v in params.items():
            cmd += ["--schedule-param", f"{k}={v}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        report = None
        if r.returncode in (0, 1) and os.path.getsize(out) > 0:
            with open(out) as f:
                report = json.load(f)
        # Exit 1 with a complete run: over a device's memory, which the paper does not model; kept, and counted.
        if report is None or not report["completed"]:
            raise SystemExit(f"mobile_figures: {' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
        return report
    finally:
        os.unlink(out)


def point(report):
    return {"epoch_s": report["makespan"], "steady_s": report["time_per_microbatch"],
            "eq1_s": report["split"]["period"], "valid": report["valid"]}


def theorem1_beta(layers, first=0, last=None):
    """Theorem 1's beta = c / (c + 1), c = F / G, for layers first..last when every
    resource runs both passes at one speed (the shipped devices)."""
    part = layers[first:None if last is None else last + 1]
    f, g = sum(l[1] for l in part), sum(l[2] for l in part)
    return f / (f + g)


def write_csv(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.9g}" if isinstance(v, float) else
                            " ".join(x if isinstance(x, str) else f"{x:.6g}" for x in v) if isinstance(v, list) else v)
                        for k, v in r.items()})


def pct(a, b):
    return 100 * (a - b) / a


def fig5(ctx):
    """Epoch time against pipeline depth 1-8 on i7 laptops, optimal allocation and beta = 0.5."""
    depths = list(range(1, 9))
    jobs = [((net, m, d, a), ctx.platform(["laptop-i7"] * d, net), ctx.workload[m], {"allocation": a})
            for net in NETWORKS for m in MODELS for d in depths for a in ("optimal", "none")]
    res = ctx.run_all(jobs)
    write_csv(ctx.out / "fig5.csv", [{"network": net, "model": m, "depth": d, "allocation": a, **p}
                                     for (net, m, d, a), p in res.items()])
    print("\n### Fig. 5: epoch time against pipeline depth (i7 + GTX 1650 laptops)\n")
    print("| network | model | depth | optimal: epoch | steady | stages | beta = 0.5: epoch | steady "
          "| improvement (epoch) | (steady) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for net in NETWORKS:
        for m in MODELS:
            for d in depths:
                o, n = res[(net, m, d, "optimal")], res[(net, m, d, "none")]
                print(f"| {NETWORKS[net]} | {MODELS[m][2]} | {d} | {o['epoch_s']:.2f} s | {o['steady_s'] * 1e3:.1f} ms "
                      f"| {len(o['stage_betas'])} | {n['epoch_s']:.2f} s | {n['steady_s'] * 1e3:.1f} ms "
                      f"| {pct(n['epoch_s'], o['epoch_s']):.1f} % | {pct(n['steady_s'], o['steady_s']):.1f} % |")
    ctx.plot(5, "Fig. 5: pipeline depth (i7 + GTX 1650 laptops)", "pipeline depth (workers)",
             [[(f"{MODELS[m][2]}, {NETWORKS[net]}",
                [(label, depths, [res[(net, m, d, a)]["epoch_s"] for d in depths], style)
                 for a, label, style in (("optimal", "resource allocation (optimal)", "o-"),
                                         ("none", "no allocation (beta = 0.5)", "s--"))])
               for m in MODELS] for net in NETWORKS],
             f"epoch ({ctx.microbatches} micro-batches of {SAMPLES}), s")


def fig6(ctx):
    """Epoch time against a common beta on homogeneous i7 laptops; Theorem 1's beta marked."""
    star = {m: theorem1_beta(ctx.layers[m]) for m in MODELS}
    jobs = []
    for net in NETWORKS:
        for m in MODELS:
            for d in FIG6_DEPTHS:
                plat = ctx.platform(["laptop-i7"] * d, net)
                for beta in FIG6_BETAS + [star[m]]:
                    jobs.append(((net, m, d, beta), plat, ctx.workload[m], {"allocation": "none", "beta": repr(beta)}))
                jobs.append(((net, m, d, "optimal"), plat, ctx.workload[m], {"allocation": "optimal"}))
    res = ctx.run_all(jobs)
    write_csv(ctx.out / "fig6.csv", [{"network": net, "model": m, "depth": d, "beta": b, **p}
                                     for (net, m, d, b), p in res.items()])
    print("\n### Fig. 6: epoch time against a common beta (homogeneous i7 + GTX 1650 laptops)\n")
    print("| network | model | depth | Theorem 1's beta (whole chain) | grid argmin | epoch at grid min "
          "| at Theorem 1's beta | optimal allocation | its stage betas | check |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for net in NETWORKS:
        for m in MODELS:
            for d in FIG6_DEPTHS:
                grid = {b: res[(net, m, d, b)] for b in FIG6_BETAS}
                argmin = min(grid, key=lambda b: (grid[b]["epoch_s"], b))
                at_star = res[(net, m, d, star[m])]
                opt = res[(net, m, d, "optimal")]
                betas = ", ".join(f"{b:.3f}" for b in opt["stage_betas"])
                # The optimal allocation gives each stage Theorem 1's c/(c+1) (both resources run both passes
                # at one speed: a common ratio) and an eq. 1 period no common beta beats; at depth 1 that is
                # the whole chain's beta, which no grid point beats in simulated time either.
                stage_star = [theorem1_beta(ctx.layers[m], *map(int, r.split("-"))) for r in opt["stage_layers"]]
                ok = all(abs(b - t) < 1e-6 for b, t in zip(opt["stage_betas"], stage_star))
                ok = ok and all(opt["eq1_s"] <= g["eq1_s"] * (1 + 1e-9) for g in grid.values())
                if d == 1:
                    ok = ok and abs(at_star["epoch_s"] / opt["epoch_s"] - 1) < 1e-6 and all(
                        at_star["epoch_s"] <= g["epoch_s"] * (1 + 1e-9) for g in grid.values())
                print(f"| {NETWORKS[net]} | {MODELS[m][2]} | {d} | {star[m]:.4f} | {argmin:.2f} "
                      f"| {grid[argmin]['epoch_s']:.3f} s | {at_star['epoch_s']:.3f} s | {opt['epoch_s']:.3f} s "
                      f"| {betas} | {'ok' if ok else 'FAILED'} |")
                ctx.failed |= not ok
    ctx.plot(6, "Fig. 6: one beta for every resource, homogeneous i7 + GTX 1650 laptops",
             "beta (share of every resource given to the forward pass)",
             [[(f"{MODELS[m][2]}, {NETWORKS[net]}",
                [(f"depth {d}", FIG6_BETAS, [res[(net, m, d, b)]["epoch_s"] for b in FIG6_BETAS], "o-")
                 for d in FIG6_DEPTHS], star[m])
               for m in MODELS] for net in NETWORKS],
             f"epoch ({ctx.microbatches} micro-batches of {SAMPLES}), s", log=True)


def fig7(ctx):
    """Epoch time against the number of devices n with q = 4 groups, per grouping method."""
    jobs = []
    for n in FIG7_DEVICES:
        for s in range(ctx.sets):
            rng = random.Random(7000 + 100 * n + s)
            devices = [rng.choice(KINDS) for _ in range(n)]
            for net in NETWORKS:
                plat = ctx.platform(devices, net)
                for m in MODELS:
                    for meth in METHODS:
                        jobs.append(((net, m, n, s, meth), plat, ctx.workload[m],
                                     {"grouping": meth, "workers": str(FIG7_WORKERS)}))
    res = ctx.run_all(jobs)
    write_csv(ctx.out / "fig7.csv", [{"network": net, "model": m, "devices": n, "set": s, "method": meth, **p}
                                     for (net, m, n, s, meth), p in res.items()])

    def mean(net, m, n, meth, key="epoch_s"):
        return sum(res[(net, m, n, s, meth)][key] for s in range(ctx.sets)) / ctx.sets

    def ratio(net, m, n, meth):  # to brute force, on the grouping's objective
        return sum(res[(net, m, n, s, meth)]["grouping_s"] / res[(net, m, n, s, "brute-force")]["grouping_s"]
                   for s in range(ctx.sets)) / ctx.sets

    print(f"\n### Fig. 7: n random devices in q = {FIG7_WORKERS} workers (mean of {ctx.sets} sets)\n")
    print("| network | model | n | Algorithm 2: epoch | brute force | sorting "
          "| objective: Algorithm 2 / BF | sorting / BF |")
    print("|---|---|---|---|---|---|---|---|")
    ns = list(FIG7_DEVICES)
    for net in NETWORKS:
        for m in MODELS:
            for n in ns:
                print(f"| {NETWORKS[net]} | {MODELS[m][2]} | {n} | {mean(net, m, n, 'algorithm2'):.2f} s "
                      f"| {mean(net, m, n, 'brute-force'):.2f} s | {mean(net, m, n, 'sorting'):.2f} s "
                      f"| {ratio(net, m, n, 'algorithm2'):.4f} | {ratio(net, m, n, 'sorting'):.4f} |")
    epoch = f"epoch ({ctx.microbatches} micro-batches of {SAMPLES}), s"
    ctx.plot(7, f"Fig. 7: n random devices (i7 laptop, i5 laptop, Raspberry Pi 4B) in {FIG7_WORKERS} workers, "
                f"mean of {ctx.sets} sets", "devices n",
             [[(f"{MODELS[m][2]}, {NETWORKS[net]}",
                [(label, ns, [mean(net, m, n, meth) for n in ns], style)
                 for meth, label, style in (("algorithm2", "Algorithm 2", "o-"), ("brute-force", "brute force", "s--"),
                                            ("sorting", "sorting", "^:"))])
               for m in MODELS] for net in NETWORKS]
             + [[(f"{MODELS[m][2].split(' ')[0]}: grouping objective",
                  [(label, ns, [ratio("wifi", m, n, meth) for n in ns], style)
                   for meth, label, style in (("algorithm2", "Algorithm 2 / brute force", "o-"),
                                              ("sorting", "sorting / brute force", "^:"))]) for m in MODELS]],
             [epoch] * len(NETWORKS) + ["slowest worker / brute force's"])


class Context:
    def __init__(self, args, tmp):
        self.pipesim, self.out, self.microbatches, self.sets, self.jobs = (
            args.pipesim, pathlib.Path(args.out), args.microbatches, args.sets, args.jobs)
        self.tmp = pathlib.Path(tmp)
        self.failed = False  # a Fig. 6 check did not hold
        self.platforms = {}
        self.layers, self.workload = {}, {}
        for model in MODELS:
            input_bytes, layers = chain(self.pipesim, model)
            self.layers[model] = layers
            self.workload[model] = str(self.tmp / f"{model}.yaml")
            write_workload(self.workload[model], model, input_bytes, layers, self.microbatches)

    def platform(self, models, network):
        key = network + ":" + ",".join(models)
        if key not in self.platforms:
            path = str(self.tmp / f"platform-{len(self.platforms)}.xml")
            write_platform(path, models, network)
            self.platforms[key] = path
        return self.platforms[key]

    def run_all(self, jobs):
        """{key: point} for jobs [(key, platform, workload, params)], `self.jobs` runs at a time."""
        def one(job):
            key, plat, wl, params = job
            report = run(self.pipesim, plat, wl, params)
            p = point(report)
            p["grouping_s"] = report["split"]["grouping"]["period"]
            p["stage_betas"] = [next(iter(st["beta"].values())) for st in report["split"]["stages"]]
            p["stage_layers"] = [f"{st['first_layer']}-{st['last_layer']}" for st in report["split"]["stages"]]
            return key, p
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            res = dict(pool.map(one, jobs))
        over = sum(not p["valid"] for p in res.values())
        if over:
            print(f"\n{over} of {len(res)} runs exceed a device's memory (kept: the paper does not model memory; "
                  "column valid of the CSV)")
        return res

    def plot(self, number, title, xlabel, panels, ylabel, log=False):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        rows, cols = len(panels), len(panels[0])
        fig, axes = plt.subplots(rows, cols, figsize=(5.6 * cols, 4 * rows), squeeze=False)
        for ax, panel in zip(axes.flat, [p for row in panels for p in row]):
            name, lines = panel[0], panel[1]
            for label, xs, ys, style in lines:
                ax.plot(xs, ys, style, label=label, markersize=4)
            if len(panel) > 2:  # Theorem 1's beta
                ax.axvline(panel[2], color="grey", linestyle=":", label=f"Theorem 1: beta = {panel[2]:.3f}")
            if log:
                ax.set_yscale("log")
            ax.set_title(name)
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel if isinstance(ylabel, str) else ylabel[list(axes.flat).index(ax) // cols])
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8)
        fig.suptitle(title)
        fig.tight_layout()
        # Fixed metadata so that the same numbers give the same bytes.
        fig.savefig(self.out / f"fig{number}.png", dpi=100, metadata={"Software": None})
        plt.close(fig)


def main(argv):
    parser = argparse.ArgumentParser(prog="mobile_figures.py", description=__doc__.split("\n")[0])
    parser.add_argument("--pipesim", default=str(ROOT / "build" / "pipesim"))
    parser.add_argument("--out", default=str(ROOT / "docs" / "mobile"))
    parser.add_argument("--figures", default="5,6,7", help="comma-separated subset of 5,6,7")
    parser.add_argument("--microbatches", type=int, default=100, help="micro-batches per epoch (default 100)")
    parser.add_argument("--sets", type=int, default=5, help="Fig. 7: random device sets per n (default 5)")
    parser.add_argument("--jobs", type=int, default=2, help="pipesim runs at a time (default 2)")
    args = parser.parse_args(argv)
    figures = {"5": fig5, "6": fig6, "7": fig7}
    chosen = args.figures.split(",")
    if any(f not in figures for f in chosen) or args.microbatches < 1 or args.sets < 1 or args.jobs < 1:
        parser.error("--figures takes 5, 6, 7; --microbatches, --sets and --jobs are >= 1")
    pathlib.Path(args.out).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        ctx = Context(args, tmp)
        for f in chosen:
            figures[f](ctx)
    return 1 if ctx.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
