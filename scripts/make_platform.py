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
"""
import argparse
import pathlib
import sys

HEADER = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Written by scripts/make_platform.py. {what} -->
<platform version="4.1">
"""


def gpu(name, speed="156Tf", memory="80GiB"):
    return (f'    <host id="{name}" speed="{speed}">\n'
            f'      <prop id="memory" value="{memory}"/>\n'
            f'    </host>\n')


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


def complete(p, bandwidth="12.5GBps", latency="0us", speed="100Tf", memory="32GiB"):
    """Seed 000's abstract platform: P devices, a dedicated link of bandwidth beta per pair."""
    pairs = [(i, j) for i in range(p) for j in range(i + 1, p)]
    return zone("complete", "Full", "".join(gpu(f"gpu{i}", speed, memory) for i in range(p)),
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


# The shipped platforms: file name -> text.
SHIPPED = {
    "nvswitch-4gpu.xml": lambda: box(4),
    "nvswitch-8gpu.xml": lambda: box(8),
    "two-nvswitch-8gpu-infiniband.xml": lambda: two_boxes(8),
    "complete-4.xml": lambda: complete(4),
    "complete-8.xml": lambda: complete(8),
    "a100-8gpu-pcie-host.xml": lambda: pcie_host_box(8),
    "mobile-4.xml": lambda: mobile(["laptop-i7"] * 4, "wifi"),
    "mobile-laptops-wifi.xml": lambda: mobile(["laptop-i7", "laptop-i5"], "wifi"),
    "mobile-mixed-lte.xml": lambda: mobile(["laptop-i7", "laptop-i5", "pi", "pi"], "lte"),
}


def main(argv):
    parser = argparse.ArgumentParser(
        prog="make_platform.py",
        description="Writes pipesim's shipped SimGrid platforms (docs/platform-format.md).")
    parser.add_argument("--write-shipped", metavar="DIR",
                        help="write " + ", ".join(SHIPPED) + " into DIR (the repository's is platforms/)")
    parser.add_argument("--mobile", metavar="MODELS",
                        help="write one mobile platform of these devices instead, comma-separated, from "
                             + ", ".join(MOBILE) + " (e.g. laptop-i7,laptop-i7,pi), to --output")
    parser.add_argument("--network", choices=sorted(NETWORKS), default="wifi", help="with --mobile (default wifi)")
    parser.add_argument("--output", "-o", metavar="FILE", help="with --mobile: where to write it (default stdout)")
    args = parser.parse_args(argv)
    if args.mobile is not None:
        models = args.mobile.split(",")
        unknown = [m for m in models if m not in MOBILE]
        if unknown:
            parser.error(f"--mobile: unknown model {unknown[0]!r} (expected {', '.join(MOBILE)})")
        text = mobile(models, args.network)
        if args.output is None:
            sys.stdout.write(text)
        else:
            pathlib.Path(args.output).write_text(text)
        return 0
    if args.write_shipped is None:
        parser.error("nothing to do: give --write-shipped DIR (e.g. --write-shipped platforms) or --mobile MODELS")
    out = pathlib.Path(args.write_shipped)
    if not out.is_dir():
        parser.error(f"--write-shipped: no such directory: {out}")
    for name, text in SHIPPED.items():
        (out / name).write_text(text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
