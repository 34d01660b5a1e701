#!/usr/bin/env bash
# Installs the Debian packages pipesim needs (only those missing), then
# configures and builds it in build/. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make pkg-config libsimgrid-dev libboost-graph-dev libyaml-cpp-dev
          libgtest-dev libgmock-dev libbenchmark-dev coinor-libcbc-dev libcli11-dev nlohmann-json3-dev python3-matplotlib
          slurm-wlm munge)  # slurm-wlm, munge: scripts/local_slurm.sh and its test
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
