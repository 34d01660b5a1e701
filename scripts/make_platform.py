#!/usr/bin/env python3
"""Writes the shipped SimGrid platforms: `make_platform.py --write-shipped platforms`
rewrites platforms/*.xml; run it again after editing this file.

Numbers: NVIDIA A100-SXM4-80GB, 312 TFLOP/s dense fp16 peak, of which a well
tuned transformer reaches about half (156 Tf, Megatron-LM reports 44-52 %);
third-generation NVLink through NVSwitch gives 300 GB/s per direction per GPU;
HDR InfiniBand 200 Gb/s = 25 GB/s per direction; PCIe 4.0 x16 is 16 GT/s x 16
lanes with 128b/130b coding = 31.5 GB/s per direction raw, of which pinned
host-device copies reach about 25 GB/s (taken as the effective figure).
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


# The shipped platforms: file name -> text.
SHIPPED = {
    "nvswitch-4gpu.xml": lambda: box(4),
    "nvswitch-8gpu.xml": lambda: box(8),
    "two-nvswitch-8gpu-infiniband.xml": lambda: two_boxes(8),
    "complete-4.xml": lambda: complete(4),
    "complete-8.xml": lambda: complete(8),
    "a100-8gpu-pcie-host.xml": lambda: pcie_host_box(8),
}


def main(argv):
    parser = argparse.ArgumentParser(
        prog="make_platform.py",
        description="Writes pipesim's shipped SimGrid platforms (docs/platform-format.md).")
    parser.add_argument("--write-shipped", metavar="DIR",
                        help="write " + ", ".join(SHIPPED) + " into DIR (the repository's is platforms/)")
    args = parser.parse_args(argv)
    if args.write_shipped is None:
        parser.error("nothing to do: give --write-shipped DIR (e.g. --write-shipped platforms)")
    out = pathlib.Path(args.write_shipped)
    if not out.is_dir():
        parser.error(f"--write-shipped: no such directory: {out}")
    for name, text in SHIPPED.items():
        (out / name).write_text(text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
