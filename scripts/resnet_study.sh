#!/usr/bin/env bash
# Regenerates docs/study/: seed 000 §7's memory-period study of ResNet-18,
# -50 and -101 on 4 and 8 devices (docs/study.md). Serial on purpose: each
# ILP solve gets CBC's 2 threads and 30 s, of which the fixed-allocation
# improvement loop takes 80 % (the study's default); PipeDream's baseline
# has every tied partition its optimizer may return (up to 1000 per plan).
# ResNet-101 gets 40 s, all of them for the loop (--ilp-allocation-search
# 1): CBC 2.10.8 spent over 12 minutes in the root LP of its free model
# (520k rows) without returning (its time limit is checked between nodes),
# see docs/study.md. About 20 minutes on 2 cores.
# Usage: scripts/resnet_study.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-docs/study}
study() {  # NET DEVICES LIMITS [SECONDS [SHARE]]
  local dir="$out/$1-$2"
  mkdir -p "$dir"
  "$build/pipesim" study "platforms/complete-$2.xml" "workloads/profiles/$1/graph.txt" \
    --memory "$3" --ilp-time-limit "${4:-30}" --ilp-allocation-search "${5:-0.8}" --ilp-threads 2 --ilp-log \
    -o "$dir" 2>"$dir/log.txt"
}
study resnet18 4 4GiB,8GiB,12GiB
study resnet18 8 4GiB,8GiB,16GiB
study resnet50 4 4GiB,8GiB,12GiB
study resnet50 8 4GiB,8GiB,12GiB
study resnet101 4 4GiB,8GiB,12GiB 40 1
study resnet101 8 4GiB,8GiB,12GiB 40 1
