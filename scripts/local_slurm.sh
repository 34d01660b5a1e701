#!/usr/bin/env bash
# A throw-away single-node Slurm on this machine, for trying the sweep's
# job-array script (docs/whatif.md "Slurm"): munged, slurmctld and slurmd,
# with every file (config, key, sockets, state, logs) under DIR.
#   scripts/local_slurm.sh start DIR   # prints: export SLURM_CONF=DIR/slurm.conf
#   scripts/local_slurm.sh stop DIR    # ends the daemons it started (their pid files)
# Needs Debian's slurm-wlm and munge (scripts/setup.sh) and root, or a user
# allowed to run the daemons. Exits non-zero with a message if Slurm cannot
# start here (then nothing is left running).
set -euo pipefail
action=${1:-}
dir=${2:-}
if [ -z "$action" ] || [ -z "$dir" ]; then
  echo "usage: local_slurm.sh start|stop DIR" >&2
  exit 2
fi

stop() {
  for pidfile in "$dir"/slurmd.pid "$dir"/slurmctld.pid "$dir"/munged.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi
[ "$action" = start ] || { echo "local_slurm.sh: unknown action '$action' (start or stop)" >&2; exit 2; }

for tool in munged slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { echo "local_slurm.sh: $tool not found (install slurm-wlm and munge)" >&2; exit 1; }
done
mkdir -p "$dir"/state "$dir"/spool
dir=$(cd "$dir" && pwd)
node=$(hostname -s)
cpus=$(nproc)
user=$(id -un)
# Ports from the process id, to let two local clusters coexist.
port=$((20000 + ($$ % 20000)))

# munge: its own key and socket (no /etc/munge needed).
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
munged --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
       --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" --force

cat >"$dir/slurm.conf" <<CONF
ClusterName=pipesim-local
SlurmctldHost=$node
SlurmUser=$user
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$node CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
if ! slurmctld -f "$SLURM_CONF" || ! slurmd -f "$SLURM_CONF"; then
  echo "local_slurm.sh: the Slurm daemons did not start (see $dir/*.log)" >&2
  stop
  exit 1
fi
# Ready when the node takes jobs.
for _ in $(seq 100); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  case "$state" in idle*|mix*|alloc*) echo "export SLURM_CONF=$SLURM_CONF"; exit 0 ;; esac
  sleep 0.2
done
echo "local_slurm.sh: the node did not become idle (state '${state:-none}', see $dir/*.log)" >&2
stop
exit 1
