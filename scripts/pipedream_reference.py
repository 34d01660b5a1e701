#!/usr/bin/python3
"""PipeDream's own partitions of pipesim's ResNet chains: the expected values
of tests/schedules/pipedream/test_pipedream_planner.cpp.

Usage: scripts/pipedream_reference.py PIPEDREAM_DIR [--unmodified RUNS]

PIPEDREAM_DIR holds msr-fiddle/pipedream at 7db6a1c (its optimizer/ and
graph/ folders, e.g. `git archive 7db6a1c optimizer graph | tar -x -C DIR`).
Its optimizer_graph_hierarchical.py runs unmodified under this python3; its
graph.py imports graphviz only to draw, so a stub graphviz module is written
to a temporary folder (never the repository) put on PYTHONPATH.

The chain: each profile imported as `pipesim import` does (docs/import.md:
Input sources and __getitem__ sinks dropped, Kahn's order with ties by node
number, seed 000 section 7's greedy cuts), written as a PipeDream graph.txt
whose antichain DAG is that chain. Node l + 1 is layer l with
  forward_compute_time = the milliseconds whose / 1000 is the layer's
      forward + backward seconds as pipesim computes them (the nearest double
      when none is exact: one layer of ResNet-18 and one of ResNet-50),
      backward_compute_time = 0;
  activation_size = the bytes the layer sends to the next one, PipeDream's
      output_activation_size of that cut in the profile's own graph;
  parameter_size = weights + every operator's activation_size - activation,
      so activation + parameter sums over a stage are what PipeDream's memory
      estimate sums over the profile's operators (with --straight_pipeline,
      parameter_size is used nowhere else).

Default mode: each case runs once with Python sets of graph nodes iterating
in chain order (graph.Node hashed by the number ending its id; the file is
not changed). Unchanged, they iterate in memory-address order, which varies
between runs: the optimizer's loop over split points breaks ties in that
order and sums compute times in it, so it returns any one of several equally
good partitions. Prints the C++ table of the test.

--unmodified RUNS: runs each case RUNS times exactly as shipped and prints
every partition seen with its time per stage, beside the chain-order one.
"""
import heapq
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NETS = ["resnet18", "resnet50", "resnet101"]
MACHINES = [4, 8]
GIB = [0, 1, 1.5, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64]  # 0: no memory constraint
BANDWIDTH = 12.5e9  # platforms/complete-P.xml

ORDERED = """
import re, runpy, sys
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/optimizer"]
import graph.graph
graph.graph.Node.__hash__ = lambda self: int(re.search(r"(\\d+)$", self.node_id).group(1))
script = sys.argv[2]
sys.argv = [script] + sys.argv[3:]
runpy.run_path(script, run_name="__main__")
"""


def read_profile(path):
    nodes, order, edges = {}, [], []
    for line in open(path).read().strip().split("\n"):
        if not line.strip():
            continue
        if line[0] in "\t ":
            a, b = line.strip().split(" -- ")
            edges.append((a, b))
            continue
        tok = line.strip().split(" -- ")
        f = dict(kv.split("=") for kv in tok[2].split(", "))
        act = f["activation_size"]
        act = sum(float(x) for x in act.strip("[]").split("; ")) if "[" in act else float(act)
        nodes[tok[0]] = dict(desc=tok[1], fwd=float(f["forward_compute_time"]), bwd=float(f["backward_compute_time"]),
                             act=act, par=float(f["parameter_size"]), pos=len(order))
        order.append(tok[0])
    return nodes, order, edges


def chain(path):
    """pipesim's layers: [dict(name, t seconds, ops, w, b bytes)]."""
    nodes, order, edges = read_profile(path)
    indeg = {n: 0 for n in order}
    outdeg = {n: 0 for n in order}
    for a, b in edges:
        outdeg[a] += 1
        indeg[b] += 1
    skip = {n for n in order if (indeg[n] == 0 and nodes[n]["desc"].startswith("Input"))
            or (outdeg[n] == 0 and nodes[n]["desc"].startswith("__getitem__"))}
    succ = {n: [] for n in order}
    wait = {n: 0 for n in order}
    for a, b in edges:
        if a not in skip and b not in skip:
            succ[a].append(b)
            wait[b] += 1

    def key(n):
        m = re.fullmatch(r"node(\d+)", n)
        return (int(m.group(1)) if m else 1 << 62, nodes[n]["pos"])
    ready = [key(n) + (n,) for n in order if n not in skip and wait[n] == 0]
    heapq.heapify(ready)
    topo = []
    while ready:
        u = heapq.heappop(ready)[2]
        topo.append(u)
        for v in succ[u]:
            wait[v] -= 1
            if wait[v] == 0:
                heapq.heappush(ready, key(v) + (v,))
    pos = {n: i for i, n in enumerate(topo)}
    groups, cur, before, reach = [], [], -1, -1
    for i, u in enumerate(topo):
        cur.append(u)
        for v in succ[u]:
            reach = max(reach, pos[v])
        if before <= i:
            groups.append(cur)
            cur = []
            before = max(before, reach)
    if cur:
        groups.append(cur)
    gid = {u: l for l, g in enumerate(groups) for u in g}
    layers = []
    for l, g in enumerate(groups):
        fwd = bwd = ops = w = b = 0.0
        for u in g:
            n = nodes[u]
            fwd += n["fwd"]
            bwd += n["bwd"]
            ops += n["act"]
            w += n["par"]
            sends = any(gid[v] != l for v in succ[u]) if l + 1 < len(groups) else not succ[u]
            if sends:
                b += n["act"]
        layers.append(dict(name=g[0] if len(g) == 1 else g[0] + "-" + g[-1], t=fwd / 1000 + bwd / 1000,
                           ops=ops, w=w, b=b))
    return layers


def milliseconds(t):
    """The double whose / 1000 is t, else the nearest."""
    best = ms = t * 1000
    for _ in range(8):
        if ms / 1000 == t:
            return ms
        if abs(ms / 1000 - t) < abs(best / 1000 - t):
            best = ms
        ms = math.nextafter(ms, math.inf if ms / 1000 < t else -math.inf)
    return best


def chain_graph(layers):
    lines = ["node%d -- Layer%d %s -- forward_compute_time=%r, backward_compute_time=0.0, activation_size=%.1f, "
             "parameter_size=%.1f" % (l + 1, l, x["name"], milliseconds(x["t"]), x["b"], x["w"] + x["ops"] - x["b"])
             for l, x in enumerate(layers)]
    lines += ["\tnode%d -- node%d" % (l, l + 1) for l in range(1, len(layers))]
    return "\n".join(lines) + "\n"


def run(pipedream, stub, chain_file, P, gib, comm, fewer, ordered):
    args = ["-f", chain_file, "-n", str(P), "--straight_pipeline", "-b", repr(BANDWIDTH)]
    if gib:
        args += ["--use_memory_constraint", "-s", repr(gib * 2.0**30)]
    if comm:
        args += ["--activation_compression_ratio", "1"]
    if fewer:
        args += ["--use_fewer_machines"]
    optimizer = os.path.join(pipedream, "optimizer")
    if ordered:
        cmd = ["/usr/bin/python3", "-c", ORDERED, pipedream, os.path.join(optimizer, "optimizer_graph_hierarchical.py")]
    else:
        cmd = ["/usr/bin/python3", "optimizer_graph_hierarchical.py"]
    r = subprocess.run(cmd + args, cwd=optimizer, env=dict(os.environ, PYTHONPATH=stub), capture_output=True,
                       text=True)
    if r.returncode != 0:  # nothing fits: analyze_partitioning formats None as a number
        if "NoneType" in r.stderr.strip().split("\n")[-1]:
            return "infeasible", None
        raise RuntimeError(r.stderr)
    table = r.stdout.split("(Split start, split end)")[1]
    stages = [(int(a), int(b) - 1) for a, b in re.findall(r"^\((\d+), (\d+)\) \S+ 1$", table, re.M)]
    time = float(re.search(r"Time per stage in pipeline: (\S+)", r.stdout).group(1))
    return "|".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in stages), time


def main():
    pipedream = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[2] == "--unmodified" else 0
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "graphviz.py"), "w") as f:
            f.write("class Digraph(object):\n    pass  # PipeDream draws with it; the optimizer without -o does not\n")
        for net in NETS:
            chain_file = os.path.join(tmp, net + ".txt")
            with open(chain_file, "w") as f:
                f.write(chain_graph(chain(os.path.join(ROOT, "workloads/profiles", net, "graph.txt"))))
            for P in MACHINES:
                for comm in (False, True):
                    for fewer in (False, True):
                        for gib in GIB:
                            stages, time = run(pipedream, tmp, chain_file, P, gib, comm, fewer, True)
                            case = '{"%s", %d, %s, %s, %g, "%s", %s},' % (
                                net, P, str(comm).lower(), str(fewer).lower(), gib, stages,
                                "%.17g" % time if time is not None else "0")
                            if not runs:
                                print(case)
                                continue
                            seen = {}
                            for _ in range(runs):
                                s, t = run(pipedream, tmp, chain_file, P, gib, comm, fewer, False)
                                seen[s] = t
                            same = all(t == time or (t and time and abs(t - time) <= 1e-12 * time)
                                       for t in seen.values())
                            print(case, "unmodified:", seen, "same time per stage" if same else "DIFFERENT TIME")
                            sys.stdout.flush()


if __name__ == "__main__":
    main()
