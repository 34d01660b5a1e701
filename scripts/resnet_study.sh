#!/usr/bin/env bash
# Regenerates docs/study/: seed 000 §7's memory-period study of ResNet-18,
# -50 and -101 on 4 and 8 devices (docs/study.md). Serial on purpose: each
# ILP solve gets CBC's 2 threads and 30 s: in the 12 solves of the
# 2026-11-21 study, 300 s of CBC never improved on the warm start's period
# (docs/study/*/log.txt of that run). About 10 minutes on 2 cores.
# ResNet-101 gets the heuristic warm start only (time limit 0): CBC 2.10.8
# spent over 12 minutes in the root LP of its 520k-row model without
# returning (its time limit is checked between nodes), see docs/study.md.
# Usage: scripts/resnet_study.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-docs/study}
study() {  # NET DEVICES LIMITS [SECONDS]
  local dir="$out/$1-$2"
  mkdir -p "$dir"
  "$build/pipesim" study "platforms/complete-$2.xml" "workloads/profiles/$1/graph.txt" \
    --memory "$3" --ilp-time-limit "${4:-30}" --ilp-threads 2 --ilp-log -o "$dir" 2>"$dir/log.txt"
}
study resnet18 4 4GiB,8GiB,12GiB
study resnet18 8 4GiB,8GiB,16GiB
study resnet50 4 4GiB,8GiB,12GiB
study resnet50 8 4GiB,8GiB,12GiB
study resnet101 4 4GiB,8GiB,12GiB 0
study resnet101 8 4GiB,8GiB,12GiB 0
