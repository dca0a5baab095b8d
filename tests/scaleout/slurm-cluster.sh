#!/bin/bash
# A single-node Slurm cluster in a folder of its own, for the scale-out tests (no systemd, as
# root): munged as the munge user with a private socket, slurmctld and slurmd as root, every
# file (config, state, spool, logs, pid files) under DIR. Clients find it through SLURM_CONF.
#
#   slurm-cluster.sh start DIR   prints "export SLURM_CONF=DIR/slurm.conf" once the node is idle
#   slurm-cluster.sh stop DIR    stops every daemon by its pid file
#
# Facts: ../shared/reference/build-notes.md (Slurm 22.05 single node); docs/scale-out.md.
set -euo pipefail

command=${1:?usage: slurm-cluster.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: slurm-cluster.sh start|stop DIR}")

stop() {
    for name in slurmd slurmctld munged; do
        local pidfile="$dir/$name.pid"
        [[ -f $pidfile ]] || continue
        local pid
        pid=$(cat "$pidfile" 2>/dev/null || true)
        if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
}

if [[ $command == stop ]]; then
    stop
    exit 0
fi
[[ $command == start ]] || { echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2; }

for tool in munged slurmctld slurmd sbatch sinfo setpriv; do
    command -v "$tool" >/dev/null || { echo "slurm-cluster.sh: $tool is not installed (scripts/setup.sh installs Slurm)" >&2; exit 3; }
done
[[ $(id -u) == 0 ]] || { echo "slurm-cluster.sh: needs root (slurmd runs jobs as their users)" >&2; exit 3; }

mkdir -p "$dir"/{munge,state,spool}
chmod 755 "$dir"
# munged runs as the munge user: every folder above DIR must let it pass (a test's temporary
# folder is 0700).
parent=$(dirname "$dir")
while [[ $parent != / ]]; do
    mode=$(stat -c %a "$parent")
    (( (8#$mode & 1) == 1 )) || chmod o+x "$parent"
    parent=$(dirname "$parent")
done
host=$(hostname -s)
# Ports: two free ones in a range the test owns for its lifetime.
port=$(( 20000 + (RANDOM % 20000) ))
while ss -ltn 2>/dev/null | grep -q ":$port \|:$((port + 1)) "; do port=$(( port + 2 )); done

# munge: a fresh key, the socket in DIR/munge, run as the munge user.
chown munge:munge "$dir/munge"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chown munge:munge "$dir/munge/munge.key"
chmod 400 "$dir/munge/munge.key"
setpriv --reuid=munge --regid=munge --init-groups \
    munged --force --socket="$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
    --seed-file="$dir/munge/munged.seed"
for _ in $(seq 50); do [[ -S $dir/munge/munge.socket.2 ]] && break; sleep 0.1; done
cp "$dir/munge/munged.pid" "$dir/munged.pid"

cat > "$dir/slurm.conf" <<CONF
ClusterName=kosmostest
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2
SlurmUser=root
SlurmdUser=root
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
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=300
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 300); do # up to 30 s on a slow machine (~0.1 s here)
    state=$(sinfo -h -o %T 2>/dev/null | head -1 || true)
    [[ $state == idle ]] && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
    sleep 0.1
done
echo "slurm-cluster.sh: the node did not become idle (state '${state:-?}'); logs in $dir" >&2
tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
stop
exit 1
