#!/usr/bin/env python3
"""Writes the shipped SimGrid platforms: `make_platform.py --write-shipped platforms`
rewrites platforms/*.xml; run it again after editing this file.

Numbers: NVIDIA A100-SXM4-80GB, 312 TFLOP/s dense fp16 peak, of which a well
tuned transformer reaches about half (156 Tf, Megatron-LM reports 44-52 %);
third-generation NVLink through NVSwitch gives 300 GB/s per direction per GPU;
HDR InfiniBand 200 Gb/s = 25 GB/s per direction; PCIe 4.0 x16 is 16 GT/s x 16
lanes with 128b/130b coding = 31.5 GB/s per direction raw, of which pinned
host-device copies reach about 25 GB/s (taken as the effective figure).

Mobile devices (seed 004, docs/platform-format.md "Shipped platforms" has the
sources): FP32 peaks halved, as for the A100 (training reaches about half):
Intel i7-10750H 6 cores x 2.6 GHz x 32 flop/cycle (AVX2, 2 FMA) = 499 GFLOPS;
GTX 1650 Mobile 1024 CUDA cores x 1.56 GHz x 2 = 3.19 TFLOPS; Intel
i5-1135G7 4 cores x 2.4 GHz x 32 = 307 GFLOPS; Iris Xe (80 EU) 80 x 16 x
1.3 GHz = 1.66 TFLOPS; Raspberry Pi 4B 4 Cortex-A72 x 1.5 GHz x 8 (NEON
FMA) = 48 GFLOPS. Backward speed = forward speed (no public figure to
tell them apart). Wi-Fi 200 Mbit/s = 25 MB/s, 2 ms; LTE uplink 20 Mbit/s =
2.5 MB/s, 30 ms; one link per device to an access point.

Clusters (`make_platform.py cluster ...`, docs/platform-format.md
"Generated clusters"): GPU presets, sustained = half the dense fp16/bf16
tensor peak (as for the A100 above), memory, NVLink (or Infinity Fabric)
bandwidth per direction, PCIe per direction:
  A100-SXM4-80GB: 312 TFLOPS dense fp16 (NVIDIA A100 datasheet) -> 156 Tf;
    80 GiB HBM2e; NVLink 3: 600 GB/s total = 300 GB/s per direction;
    PCIe 4.0 x16, 25 GB/s effective (above).
  H100-SXM5-80GB: 989 TFLOPS dense bf16/fp16 (NVIDIA H100 datasheet lists
    1,979 with 2:4 sparsity) -> 495 Tf; 80 GiB HBM3; NVLink 4: 900 GB/s
    total = 450 GB/s per direction; PCIe 5.0 x16 (63 GB/s raw), taken as
    50 GB/s effective (twice PCIe 4.0's 25).
  H200-SXM-141GB: same compute as H100 (NVIDIA H200 datasheet: 1,979 TFLOPS
    sparse) -> 495 Tf; 141 GB HBM3e; NVLink 4 as H100; PCIe 5.0 as H100.
  MI300X: 1,307.4 TFLOPS dense fp16 (AMD Instinct MI300X datasheet) ->
    654 Tf; 192 GB HBM3; 7 Infinity Fabric links of 128 GB/s bidirectional
    = 64 GB/s per direction to each of the 7 peers (an all-to-all mesh,
    448 GB/s per direction in all); PCIe 5.0 as H100.
Intra-box fabrics: nvswitch (one link per GPU to a switch, the preset's
NVLink bandwidth), nvlink-mesh (one link per GPU pair, the NVLink bandwidth
divided among the G-1 peers: MI300X's 64 GB/s), pcie (one PCIe link per GPU
to a PCIe switch). Latency 1 us for each, as the shipped boxes.
Between boxes (NIC bandwidth given, e.g. 100Gbps = 12.5 GB/s; latency
2 us for InfiniBand-class fat-tree and rail networks, as HDR above, and an
assumed 10 us for Ethernet through a TCP/IP stack):
  fat-tree: one NIC per GPU to its box's leaf switch; the leaf's uplink to
    the spine carries G x NIC / oversubscription;
  rail: one NIC per GPU, GPU i of every box on rail switch i (non-blocking);
    a GPU reaches another rail through its box's fabric first (PXN);
  ethernet: one NIC per box to one switch whose core link is shared by all
    inter-box traffic: boxes x NIC / oversubscription.
Torus and dragonfly (`cluster --network torus|dragonfly`) are SimGrid's own
<cluster topology="TORUS|DRAGONFLY" topo_parameters=...>
(https://simgrid.org/doc/latest/Platform_examples.html, SimGrid's
examples/platforms/cluster_torus.xml and cluster_dragonfly.xml): one host per
node, so each node is one GPU (a box of several GPUs per node would need a
zone per node, which the XML <cluster> cannot express); the cluster's <prop>
children go to every host, so each GPU gets the preset's memory. Every link
is one NIC (--nic, default 100 Gb/s) with the InfiniBand-class 2 us latency;
SimGrid's dragonfly multiplies it by the number of links it states between
two routers, chassis or groups. SimGrid 3.32's dragonfly routing reaches
group j through router j of the first chassis (DragonflyZone.cpp), so it
needs at least as many routers per chassis as groups; the generator refuses
other shapes, which crash SimGrid.
"""
import argparse
import math
import os
import pathlib
import stat
import sys
import tempfile

HEADER = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Written by scripts/make_platform.py. {what} -->
<platform version="4.1">
"""


def gpu(name, speed="156Tf", memory="80GiB", device="a100-80gb", node=None):
    """A GPU host; `device` names its type in pipesim's device presets (docs/devices.md), None for none;
    `node` the box it sits in (hierarchical collectives group by it), None for none."""
    kind = f'      <prop id="device" value="{device}"/>\n' if device else ""
    box = f'      <prop id="node" value="{node}"/>\n' if node else ""
    return (f'    <host id="{name}" speed="{speed}">\n'
            f'      <prop id="memory" value="{memory}"/>\n'
            + kind + box + f'    </host>\n')


def link(name, bandwidth, latency):
    return f'    <link id="{name}" bandwidth="{bandwidth}" latency="{latency}" sharing_policy="SPLITDUPLEX"/>\n'


def route(src, dst, name):
    return f'    <route src="{src}" dst="{dst}"><link_ctn id="{name}" direction="UP"/></route>\n'


def nvswitch_box(gpus, prefix=""):
    """(hosts and router, links, routes) of one box: each GPU's NVLink goes to the switch."""
    names = [f"{prefix}gpu{i}" for i in range(gpus)]
    switch = f"{prefix}nvswitch"
    nodes = "".join(gpu(n) for n in names) + f'    <router id="{switch}"/>\n'
    links = "".join(link(f"{n}-nvlink", "300GBps", "1us") for n in names)
    routes = "".join(route(n, switch, f"{n}-nvlink") for n in names)
    return nodes, links, routes


def zone(name, routing, nodes, links, routes, what):
    # The DTD wants hosts and routers, then links, then routes.
    return (HEADER.format(what=what) + f'  <zone id="{name}" routing="{routing}">\n'
            + nodes + links + routes + "  </zone>\n</platform>\n")


def box(gpus):
    return zone("box", "Floyd", *nvswitch_box(gpus),
                what=f"{gpus} A100-80GB GPUs, each with a 300 GB/s NVLink to one NVSwitch.")


def two_boxes(gpus):
    a, b = nvswitch_box(gpus, "box0-"), nvswitch_box(gpus, "box1-")
    return zone("cluster", "Floyd", a[0] + b[0],
                a[1] + b[1] + link("infiniband", "25GBps", "2us"),
                a[2] + b[2] + route("box0-nvswitch", "box1-nvswitch", "infiniband"),
                what=f"Two {gpus}-GPU NVSwitch boxes joined by one HDR InfiniBand link (25 GB/s, 2 us).")


def pcie_host_box(gpus, host_memory="1TiB"):
    """One NVSwitch box plus host memory (kind host) behind one PCIe 4.0 x16 link per GPU.

    A Full zone states every route, so GPU-to-GPU traffic crosses only the
    NVLinks and offloads only the GPU's own PCIe link (a Floyd zone could
    route a GPU pair through host memory: two hops either way)."""
    names = [f"gpu{i}" for i in range(gpus)]
    host = ('    <host id="host-memory" speed="1Gf">\n'
            f'      <prop id="memory" value="{host_memory}"/>\n'
            '      <prop id="kind" value="host"/>\n'
            '    </host>\n')
    nodes = "".join(gpu(n) for n in names) + host
    links = ("".join(link(f"{n}-nvlink", "300GBps", "1us") for n in names)
             + "".join(link(f"{n}-pcie", "25GBps", "1us") for n in names))
    pairs = "".join(
        f'    <route src="{a}" dst="{b}"><link_ctn id="{a}-nvlink" direction="UP"/>'
        f'<link_ctn id="{b}-nvlink" direction="DOWN"/></route>\n'
        for i, a in enumerate(names) for b in names[i + 1:])
    routes = pairs + "".join(route(n, "host-memory", f"{n}-pcie") for n in names)
    return zone("box", "Full", nodes, links, routes,
                what=f"{gpus} A100-80GB GPUs, 300 GB/s NVLink through NVSwitch, each with a PCIe 4.0 x16 "
                     f"link (25 GB/s) to {host_memory} of host memory.")


def one_gpu(preset):
    """One GPU alone, as the measured one-device runs (tests/data/measured)."""
    speed, memory, _, _, model = GPUS[preset]
    return zone("box", "Floyd", gpu("gpu0", speed, memory, DEVICE_TYPES[preset]), "", "",
                what=f"One {model} GPU.")


def complete(p, bandwidth="12.5GBps", latency="0us", speed="100Tf", memory="32GiB"):
    """Seed 000's abstract platform: P devices, a dedicated link of bandwidth beta per pair."""
    pairs = [(i, j) for i in range(p) for j in range(i + 1, p)]
    return zone("complete", "Full", "".join(gpu(f"gpu{i}", speed, memory, None) for i in range(p)),
                "".join(link(f"link{i}-{j}", bandwidth, latency) for i, j in pairs),
                "".join(route(f"gpu{i}", f"gpu{j}", f"link{i}-{j}") for i, j in pairs),
                what=f"Seed 000's abstract platform: {p} devices, complete graph, every link {bandwidth} each way.")


# Seed 004's devices: (memory, [(resource type, speed)]), resource 0 on the device's own host.
MOBILE = {
    "laptop-i7": ("32GiB", [("cpu", "250Gf"), ("gpu", "1600Gf")]),
    "laptop-i5": ("16GiB", [("cpu", "150Gf"), ("gpu", "830Gf")]),
    "pi": ("4GiB", [("cpu", "24Gf")]),
}
NETWORKS = {"wifi": ("25MBps", "2ms"), "lte": ("2.5MBps", "30ms"),
            "10gbe": ("1.25GBps", "100us")}  # not shipped: scripts/mobile_figures.py's near-free network


def mobile_device(name, model):
    """Hosts, links and routes of one device: its first resource is the device host, the others
    are hosts with resource_of joined to it by a local link."""
    memory, resources = MOBILE[model]
    (kind, speed), rest = resources[0], resources[1:]
    nodes = (f'    <host id="{name}" speed="{speed}">\n'
             f'      <prop id="memory" value="{memory}"/>\n'
             f'      <prop id="kind" value="mobile"/>\n'
             f'      <prop id="resource" value="{kind}"/>\n'
             f'    </host>\n')
    links, routes = "", ""
    for kind, speed in rest:
        host = f"{name}-{kind}"
        nodes += (f'    <host id="{host}" speed="{speed}">\n'
                  f'      <prop id="resource_of" value="{name}"/>\n'
                  f'      <prop id="resource" value="{kind}"/>\n'
                  f'    </host>\n')
        links += link(f"{host}-local", "100GBps", "0us")
        routes += route(name, host, f"{host}-local")
    return nodes, links, routes


def mobile(models, network):
    """Devices named after their model (laptop-i7-0, ...), each with one link to an access point."""
    bandwidth, latency = NETWORKS[network]
    counts, nodes, links, routes = {}, "", "", ""
    for model in models:
        name = f"{model}-{counts.get(model, 0)}"
        counts[model] = counts.get(model, 0) + 1
        n, l, r = mobile_device(name, model)
        nodes, links, routes = nodes + n, links + l + link(f"{name}-{network}", bandwidth, latency), \
            routes + r + route(name, "ap", f"{name}-{network}")
    what = (f"Seed 004's mobile devices ({', '.join(models)}) over {network} "
            f"({bandwidth}, {latency} per device, to one access point).")
    return zone("mobile", "Floyd", nodes + '    <router id="ap"/>\n', links, routes, what)


# GPU presets: (sustained speed, memory, NVLink-class bandwidth per direction in GB/s, PCIe GB/s, what).
GPUS = {
    "A100": ("156Tf", "80GiB", 300, 25, "A100-SXM4-80GB"),
    "H100": ("495Tf", "80GiB", 450, 50, "H100-SXM5-80GB"),
    "H200": ("495Tf", "141GB", 450, 50, "H200-SXM-141GB"),
    "MI300X": ("654Tf", "192GB", 448, 50, "MI300X"),
}
# Each preset's type in pipesim's device presets (devices/device_presets.cpp).
DEVICE_TYPES = {"A100": "a100-80gb", "H100": "h100-sxm", "H200": "h200", "MI300X": "mi300x"}
FABRICS = ("nvswitch", "nvlink-mesh", "pcie")
BOX_NETWORKS = ("fat-tree", "rail", "ethernet")
DIRECT_NETWORKS = ("torus", "dragonfly")  # SimGrid's <cluster topology=...>, one GPU per node


def rate(text):
    """'100Gbps' (bits) or '12.5GBps' (bytes) -> bytes per second, positive and finite."""
    units = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    for suffix, factor in (("bps", 1 / 8), ("Bps", 1)):
        if text.endswith(suffix):
            number = text[:-len(suffix)]
            scale = units.get(number[-1:], None)
            if scale:
                number = number[:-1]
            try:
                value = float(number) * (scale or 1) * factor
            except ValueError:
                break
            if math.isfinite(value) and value > 0:
                return value
            break
    raise argparse.ArgumentTypeError(f"expected a positive finite rate like 100Gbps or 12.5GBps, got '{text}'")


def gbps(value):
    """Bytes per second as SimGrid text: 12.5GBps."""
    return f"{value / 1e9:g}GBps"


def cluster(boxes, gpus, preset="A100", fabric="nvswitch", network="fat-tree", nic=12.5e9, oversubscription=1.0):
    """BOXES boxes of GPUS GPUs, every route written out (a Full zone)."""
    speed, memory, nvlink, pcie, model = GPUS[preset]
    def name(b, i):
        return f"box{b}-gpu{i}" if boxes > 1 else f"gpu{i}"
    hosts = [(b, i) for b in range(boxes) for i in range(gpus)]
    nodes = "".join(gpu(name(b, i), speed, memory, DEVICE_TYPES[preset], f"box{b}") for b, i in hosts)
    links, routes = [], []
    latency = "10us" if network == "ethernet" else "2us"
    # Inside a box.
    if fabric == "nvlink-mesh":
        per_pair = nvlink / max(1, gpus - 1)
        links += [link(f"{name(b, i)}-{j}-nvlink", f"{per_pair:g}GBps", "1us")
                  for b in range(boxes) for i in range(gpus) for j in range(i + 1, gpus)]
    else:
        kind, bandwidth = ("nvlink", nvlink) if fabric == "nvswitch" else ("pcie", pcie)
        links += [link(f"{name(b, i)}-{kind}", f"{bandwidth:g}GBps", "1us") for b, i in hosts]

    def inside(b, i, j):  # (link, direction) from GPU i to GPU j of box b
        if fabric == "nvlink-mesh":
            lo, hi = min(i, j), max(i, j)
            return [(f"{name(b, lo)}-{hi}-nvlink", "UP" if i < j else "DOWN")]
        kind = "nvlink" if fabric == "nvswitch" else "pcie"
        return [(f"{name(b, i)}-{kind}", "UP"), (f"{name(b, j)}-{kind}", "DOWN")]
    # Between boxes.
    if boxes > 1:
        if network == "ethernet":
            links += [link(f"box{b}-nic", gbps(nic), latency) for b in range(boxes)]
            links.append(link("core", gbps(boxes * nic / oversubscription), "0us"))
        else:
            links += [link(f"{name(b, i)}-nic", gbps(nic), latency) for b, i in hosts]
            if network == "fat-tree":
                links += [link(f"box{b}-uplink", gbps(gpus * nic / oversubscription), "0us") for b in range(boxes)]

    def between(a, i, b, j):  # from GPU i of box a to GPU j of box b
        if network == "ethernet":
            return [(f"box{a}-nic", "UP"), ("core", "UP"), (f"box{b}-nic", "DOWN")]
        if network == "fat-tree":
            return [(f"{name(a, i)}-nic", "UP"), (f"box{a}-uplink", "UP"), (f"box{b}-uplink", "DOWN"),
                    (f"{name(b, j)}-nic", "DOWN")]
        hop = inside(a, i, j) if i != j else []  # rail: first to the GPU on rail j (PXN)
        return hop + [(f"{name(a, j)}-nic", "UP"), (f"{name(b, j)}-nic", "DOWN")]
    def route(a, i, b, j, attributes=""):
        path = inside(a, i, j) if a == b else between(a, i, b, j)
        return (f'    <route src="{name(a, i)}" dst="{name(b, j)}"{attributes}>'
                + "".join(f'<link_ctn id="{l}" direction="{d}"/>' for l, d in path) + "</route>\n")
    for x, (a, i) in enumerate(hosts):
        for b, j in hosts[x + 1:]:
            if network == "rail" and a != b and i != j:  # PXN on the source's side, whichever way
                routes += [route(a, i, b, j, ' symmetrical="NO"'), route(b, j, a, i, ' symmetrical="NO"')]
            else:
                routes.append(route(a, i, b, j))
    what = cluster_summary(boxes, gpus, preset, fabric, network, nic, oversubscription, f", latency {latency}")
    return zone("cluster", "Full", nodes, "".join(links), "".join(routes), what=what + ".")


def cluster_summary(boxes, gpus, preset, fabric, network, nic, oversubscription, latency=""):
    """One line on a cluster for its file's header comment."""
    speed, memory, _, _, model = GPUS[preset]
    what = f"{boxes} x {gpus} {model} GPUs ({speed}, {memory}), {fabric} inside each box"
    if boxes > 1:
        what += f", {network} between boxes ({gbps(nic)} NICs{latency}"
        what += f", oversubscription {oversubscription:g})" if network != "rail" else ")"
    return what


def is_description(path):
    """An output ending in .yaml or .yml gets a cluster description, as pipesim tells them apart."""
    return path is not None and path.endswith((".yaml", ".yml"))


def cluster_description(boxes, gpus, preset="A100", fabric="nvswitch", network="fat-tree", nic=12.5e9,
                        oversubscription=1.0):
    """The cluster of cluster() as pipesim's cluster description (docs/platform-format.md): the same hosts,
    links and routes, built by pipesim with each route computed when it is needed."""
    what = cluster_summary(boxes, gpus, preset, fabric, network, nic, oversubscription)
    lines = [f"# Written by scripts/make_platform.py. {what}.", "cluster:", f"  boxes: {boxes}", f"  gpus: {gpus}",
             f"  gpu: {preset}", f"  fabric: {fabric}", f"  network: {network}", f"  nic: {gbps(nic)}"]
    if network != "rail":
        lines.append(f"  oversubscription: {oversubscription:g}")
    return "\n".join(lines) + "\n"


# What pipesim reads (sim/input_file.hpp kMaxInputFileBytes), and the most
# GPUs of a torus or dragonfly (pipesim counts about 15 GiB for a 3-D torus
# of a million: sim/engine/platform_size.hpp).
MAX_XML_BYTES = 64 << 20
MAX_NODES = 1_000_000


def count(n):
    return f"{n:,}"


def cluster_xml_bytes(boxes, gpus, fabric, network):
    """About how many bytes cluster() writes, without writing them: the lines of a sample of at most
    2 x 2 GPUs, by kind, times the counts of the full cluster, each GPU name longer by the extra digits."""
    sample_boxes, sample_gpus = min(boxes, 2), min(gpus, 2)
    sample = cluster(sample_boxes, sample_gpus, "A100", fabric, network)
    n, pairs = boxes * gpus, boxes * (boxes - 1) // 2

    def kind(line):  # routes by what they cross: one box, one rail between boxes, or both
        words = line.split('"')
        if not line.lstrip().startswith("<route"):
            return line.lstrip().split(" ")[0]
        (a, i), (b, j) = [(w.split("-")[0] if w.startswith("box") else "", w.split("gpu")[-1])
                          for w in (words[1], words[3])]
        return "inside" if a == b else "rail" if i == j else "across"
    counts = {"<host": n, "inside": boxes * gpus * (gpus - 1) // 2, "rail": pairs * gpus,
              "across": pairs * gpus * (gpus - 1) * (2 if network == "rail" else 1),
              "<link": (boxes * gpus * (gpus - 1) // 2 if fabric == "nvlink-mesh" else n)
              + (0 if boxes == 1 else boxes + 1 if network == "ethernet"
                 else n + (boxes if network == "fat-tree" else 0))}
    extra = (len(str(boxes - 1)) - len(str(sample_boxes - 1))) + (len(str(gpus - 1)) - len(str(sample_gpus - 1)))
    lines = {}
    for line in sample.splitlines(True):
        lines.setdefault(kind(line), []).append(line)
    total = len(sample)
    for name, number in counts.items():
        items = lines.get(name, [])
        if items:
            per_item = (sum(map(len, items)) + extra * sum(i.count("gpu") for i in items)) / len(items)
            total += (number - len(items)) * per_item
    return int(total)


def finite(text):
    """A finite number (argparse's float takes nan and inf)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got '{text}'")
    return value


def torus_dims(text):
    """'2,2,2' -> [2, 2, 2]: the size of each dimension, each >= 1."""
    try:
        dims = [int(d) for d in text.split(",")]
    except ValueError:
        dims = []
    if not dims or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"expected sizes >= 1 separated by commas, like 2,2,2, got '{text}'")
    return dims


def dragonfly_parameters(text):
    """SimGrid's 'groups,links;chassis,links;routers,links;nodes' -> [[g, l], [c, l], [r, l], [n]]."""
    try:
        parts = [[int(x) for x in part.split(",")] for part in text.split(";")]
    except ValueError:
        parts = []
    if [len(p) for p in parts] != [2, 2, 2, 1] or min(min(p) for p in parts) < 1:
        raise argparse.ArgumentTypeError("expected 'groups,links;chassis,links;routers,links;nodes' with every number >= 1, "
                         f"like 2,1;2,1;2,1;2, got '{text}'")
    if parts[0][0] > 1 and parts[2][0] < parts[0][0]:
        # SimGrid 3.32's DragonflyZone joins group j through router j of a chassis: fewer routers crash it.
        raise argparse.ArgumentTypeError(f"SimGrid's dragonfly routing needs at least as many routers per chassis as "
                                         f"groups ({parts[0][0]}), got {parts[2][0]} in '{text}'")
    return parts


def direct_cluster(network, shape, preset="A100", nic=12.5e9):
    """SimGrid's own torus or dragonfly <cluster>, one GPU per node (SHAPE from torus_dims or
    dragonfly_parameters)."""
    speed, memory, _, _, model = GPUS[preset]
    if network == "torus":
        nodes, topology, parameters = 1, "TORUS", ",".join(map(str, shape))
        for d in shape:
            nodes *= d
        what = f"{nodes} {model} GPUs ({speed}, {memory}), one per node of a {'x'.join(map(str, shape))} torus"
    else:
        nodes, topology = shape[0][0] * shape[1][0] * shape[2][0] * shape[3][0], "DRAGONFLY"
        parameters = ";".join(",".join(map(str, p)) for p in shape)
        what = (f"{nodes} {model} GPUs ({speed}, {memory}), one per node of a dragonfly of {shape[0][0]} groups x "
                f"{shape[1][0]} chassis x {shape[2][0]} routers x {shape[3][0]} nodes")
    what += f", every link {gbps(nic)}, latency 2us."
    return (HEADER.format(what=what)
            + f'  <cluster id="{network}" topology="{topology}" topo_parameters="{parameters}" prefix="gpu" '
              f'radical="0-{nodes - 1}" suffix="" speed="{speed}" bw="{gbps(nic)}" lat="2us">\n'
            + f'    <prop id="memory" value="{memory}"/>\n'
            + "  </cluster>\n</platform>\n")


# The shipped platforms: file name -> text.
SHIPPED = {
    "nvswitch-4gpu.xml": lambda: box(4),
    "nvswitch-8gpu.xml": lambda: box(8),
    "two-nvswitch-8gpu-infiniband.xml": lambda: two_boxes(8),
    "h100-1gpu.xml": lambda: one_gpu("H100"),
    "h200-1gpu.xml": lambda: one_gpu("H200"),
    "complete-4.xml": lambda: complete(4),
    "complete-8.xml": lambda: complete(8),
    "a100-8gpu-pcie-host.xml": lambda: pcie_host_box(8),
    "mobile-4.xml": lambda: mobile(["laptop-i7"] * 4, "wifi"),
    "mobile-laptops-wifi.xml": lambda: mobile(["laptop-i7", "laptop-i5"], "wifi"),
    "mobile-mixed-lte.xml": lambda: mobile(["laptop-i7", "laptop-i5", "pi", "pi"], "lte"),
    # docs/whatif.md's question: 8 GPUs as 2 boxes of 4 (100 Gb/s InfiniBand), 4 boxes of 2 (25 Gb/s Ethernet).
    "two-nvswitch-4gpu-infiniband-100g.xml": lambda: cluster(2, 4, "A100", "nvswitch", "fat-tree", rate("100Gbps")),
    "four-nvswitch-2gpu-ethernet-25g.xml": lambda: cluster(4, 2, "A100", "nvswitch", "ethernet", rate("25Gbps")),
    # Cluster descriptions (pipesim builds them, each route computed when needed): issue-scale jobs,
    # GPT-3 175B on 1,024 and 8,192 A100s (bench/README.md), and the whole-network study of docs/whatif.md.
    "a100-4x8-rail-200g.yaml": lambda: cluster_description(4, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    # Megatron-LM SC'21 Table 1's second to tenth rows (docs/plan.md).
    "a100-8x8-rail-200g.yaml": lambda: cluster_description(8, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-16x8-rail-200g.yaml": lambda: cluster_description(16, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-32x8-rail-200g.yaml": lambda: cluster_description(32, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "h100-4x8-rail-400g.yaml": lambda: cluster_description(4, 8, "H100", "nvswitch", "rail", rate("400Gbps")),
    "a100-64x8-rail-200g.yaml": lambda: cluster_description(64, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-128x8-rail-200g.yaml": lambda: cluster_description(128, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-192x8-rail-200g.yaml": lambda: cluster_description(192, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-240x8-rail-200g.yaml": lambda: cluster_description(240, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-315x8-rail-200g.yaml": lambda: cluster_description(315, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-384x8-rail-200g.yaml": lambda: cluster_description(384, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
    "a100-1024x8-rail-200g.yaml": lambda: cluster_description(1024, 8, "A100", "nvswitch", "rail", rate("200Gbps")),
}


def fail(message, prog="make_platform.py"):
    """Pipesim's error contract: one line on stderr, exit status 2 (and nothing written)."""
    sys.stderr.write(f"{prog}: error: {message}\n")
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    """argparse's errors as one line (no usage before it), as pipesim's; a command's name its own
    ("make_platform.py cluster: error: ...", as argparse has it)."""

    def error(self, message):
        fail(message, self.prog)


def write_output(path, text, option="--output"):
    """TEXT to PATH as pipesim writes its outputs (cli/output_files.cpp): a regular or new file through a
    temporary beside it renamed over it, a device or FIFO in place; on failure one error line and
    nothing written."""
    if path is None:
        sys.stdout.write(text)
        return
    try:
        target = os.stat(path)  # follows symbolic links
    except FileNotFoundError:
        target = None
    except OSError as e:
        fail(f"{path}: {option}: cannot open: {e.strerror}")
    if target and stat.S_ISDIR(target.st_mode):
        fail(f"{path}: {option}: is a directory")
    if target and not os.access(path, os.W_OK):
        fail(f"{path}: {option}: cannot write it (Permission denied)")
    try:
        if target and not stat.S_ISREG(target.st_mode):
            with open(path, "w") as out:
                out.write(text)
            return
    except OSError as e:
        fail(f"{path}: {option}: write error: {e.strerror}")
    real = os.path.realpath(path)  # through a symbolic link: replace the file it names
    directory = os.path.dirname(real)
    try:
        fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(real) + ".", dir=directory)
    except OSError as e:
        fail(f"{path}: {option}: cannot create a temporary file in '{directory}': {e.strerror}")
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, stat.S_IMODE(target.st_mode) if target else 0o666 & ~umask)
        os.replace(temporary, real)
    except OSError as e:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        fail(f"{path}: {option}: write error: {e.strerror}")


def main(argv):
    parser = Parser(
        prog="make_platform.py",
        description="Writes pipesim's shipped SimGrid platforms (docs/platform-format.md).")
    parser.add_argument("--write-shipped", metavar="DIR",
                        help="write " + ", ".join(SHIPPED) + " into DIR (the repository's is platforms/)")
    parser.add_argument("--mobile", metavar="MODELS",
                        help="write one mobile platform of these devices instead, comma-separated, from "
                             + ", ".join(MOBILE) + " (e.g. laptop-i7,laptop-i7,pi), to --output")
    parser.add_argument("--network", choices=sorted(NETWORKS), default="wifi", help="with --mobile (default wifi)")
    parser.add_argument("--output", "-o", metavar="FILE", help="with --mobile: where to write it (default stdout)")
    commands = parser.add_subparsers(dest="command", metavar="cluster")
    c = commands.add_parser("cluster", help="write a cluster of BOXES x GPUS GPUs (see cluster --help)",
                            description="Writes a SimGrid platform of BOXES boxes of GPUS GPUs (the figures "
                                        "are cited in this script's docstring and docs/platform-format.md).")
    c.add_argument("--boxes", type=int, help="boxes (default 1; not with torus or dragonfly)")
    c.add_argument("--gpus", type=int, help="GPUs per box (required, except with torus or dragonfly: one per node)")
    c.add_argument("--gpu", choices=sorted(GPUS), default="A100", help="GPU preset (default A100)")
    c.add_argument("--fabric", choices=FABRICS, help="inside a box (default nvswitch; not with torus or dragonfly)")
    c.add_argument("--network", choices=BOX_NETWORKS + DIRECT_NETWORKS, default="fat-tree",
                   help="between boxes (default fat-tree), or SimGrid's torus or dragonfly of one-GPU nodes")
    c.add_argument("--nic", type=rate, default=rate("100Gbps"), help="NIC rate, e.g. 100Gbps or 12.5GBps")
    c.add_argument("--oversubscription", type=finite,
                   help="fat-tree and ethernet: downlink/uplink ratio (default 1)")
    c.add_argument("--torus-dims", type=torus_dims, metavar="X,Y,...",
                   help="with --network torus: the nodes along each dimension, e.g. 2,2,2 (8 GPUs)")
    c.add_argument("--dragonfly", type=dragonfly_parameters, metavar="G,L;C,L;R,L;N",
                   help="with --network dragonfly: SimGrid's topo_parameters, groups,links;chassis,links;"
                        "routers,links;nodes per router, e.g. '2,1;2,1;2,1;2' (16 GPUs)")
    c.add_argument("-o", "--output", metavar="FILE",
                   help="the platform file (default: standard output); ending in .yaml or .yml, a cluster "
                        "description pipesim builds itself (any size), else SimGrid XML with every route")
    args = parser.parse_args(argv)
    if args.command == "cluster":
        if args.nic <= 0:
            c.error("--nic must be > 0")
        if args.network in DIRECT_NETWORKS:
            shape = args.torus_dims if args.network == "torus" else args.dragonfly
            option = "--torus-dims" if args.network == "torus" else "--dragonfly"
            if shape is None:
                c.error(f"--network {args.network} needs {option}")
            if args.gpus not in (None, 1) or args.boxes is not None or args.fabric or args.oversubscription:
                c.error(f"--network {args.network}: each node is one GPU (SimGrid's <cluster> has one host per node); "
                        "--boxes, --gpus other than 1, --fabric and --oversubscription do not apply")
            if (args.torus_dims if args.network == "dragonfly" else args.dragonfly) is not None:
                c.error(f"--torus-dims goes with --network torus, --dragonfly with --network dragonfly")
            nodes = math.prod(shape) if args.network == "torus" else math.prod(p[0] for p in shape)
            if is_description(args.output):
                c.error(f"--network {args.network} is SimGrid's own <cluster> XML, already small: "
                        "write it to a .xml file (a .yaml description is for fat-tree, rail and ethernet boxes)")
            if nodes > MAX_NODES:
                c.error(f"--network {args.network}: {count(nodes)} GPUs; at most {count(MAX_NODES)} "
                        "(pipesim counts about 15 GiB to simulate a million-node 3-D torus)")
            text = direct_cluster(args.network, shape, args.gpu, args.nic)
        else:
            if args.torus_dims is not None or args.dragonfly is not None:
                c.error("--torus-dims and --dragonfly go with --network torus and --network dragonfly")
            if args.gpus is None:
                c.error("the following arguments are required: --gpus")
            boxes = 1 if args.boxes is None else args.boxes
            oversubscription = 1.0 if args.oversubscription is None else args.oversubscription
            if boxes < 1 or args.gpus < 1 or oversubscription < 1:
                c.error("--boxes and --gpus must be >= 1, --oversubscription >= 1, --nic > 0")
            fabric = args.fabric or "nvswitch"
            if is_description(args.output):
                n = boxes * args.gpus
                if n > MAX_NODES:
                    c.error(f"--boxes {boxes} --gpus {args.gpus}: {count(n)} GPUs; at most {count(MAX_NODES)}")
                text = cluster_description(boxes, args.gpus, args.gpu, fabric, args.network, args.nic,
                                           oversubscription)
                write_output(args.output, text)
                return 0
            size = cluster_xml_bytes(boxes, args.gpus, fabric, args.network)
            if size > MAX_XML_BYTES:
                n = boxes * args.gpus
                c.error(f"--boxes {boxes} --gpus {args.gpus}: about {size / 2**20:,.0f} MiB of XML ({count(n)} GPUs, "
                        f"{count(n * (n - 1) // 2)} routes written out); pipesim reads platforms of at most "
                        f"{MAX_XML_BYTES >> 20} MiB (fewer GPUs, or --network torus or dragonfly)")
            text = cluster(boxes, args.gpus, args.gpu, fabric, args.network, args.nic, oversubscription)
        write_output(args.output, text)
        return 0
    if args.mobile is not None:
        models = args.mobile.split(",")
        unknown = [m for m in models if m not in MOBILE]
        if unknown:
            parser.error(f"--mobile: unknown model {unknown[0]!r} (expected {', '.join(MOBILE)})")
        write_output(args.output, mobile(models, args.network))
        return 0
    if args.write_shipped is None:
        parser.error("nothing to do: give --write-shipped DIR (e.g. --write-shipped platforms), --mobile MODELS or cluster ...")
    out = pathlib.Path(args.write_shipped)
    if not out.is_dir():
        parser.error(f"--write-shipped: no such directory: {out}")
    for name, text in SHIPPED.items():
        write_output(str(out / name), text(), "--write-shipped")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
