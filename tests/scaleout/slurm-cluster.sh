#!/bin/bash
# A Slurm cluster in a folder of its own, for the scale-out tests (no systemd, as root): munged
# as the munge user with a private socket, slurmctld and slurmd as root, every file (config,
# state, spool, logs, pid files) under DIR. Clients find it through SLURM_CONF.
#
#   slurm-cluster.sh start DIR [NODES]   prints "export SLURM_CONF=DIR/slurm.conf" once every node
#                                        is idle
#   slurm-cluster.sh stop DIR            stops every daemon by its pid file, removes the hosts
#
# NODES (default 1): one node, this host; 2 or more: each node is a host of its own, a network
# namespace (its own address on a bridge the script creates) and a UTS namespace (its own host
# name, kosmos-<tag>-nK), with one CPU, so an array spreads over them; the files are shared, as on
# a cluster's shared filesystem. Needs `ip netns` (CAP_NET_ADMIN and CAP_SYS_ADMIN).
#
# Facts: ../shared/reference/build-notes.md (Slurm 22.05 single node); docs/scale-out.md.
set -euo pipefail

command=${1:?usage: slurm-cluster.sh start|stop DIR}
dir=$(realpath -m "${2:?usage: slurm-cluster.sh start|stop DIR}")

stop() {
    local pidfile
    for pidfile in "$dir"/slurmd*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
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
    # The node hosts: their namespaces, links and the bridge (removing a namespace removes its end
    # of the veth pair, and with it the other end).
    if [[ -f $dir/hosts ]]; then
        local kind name
        while read -r kind name; do
            case $kind in
            netns) ip netns delete "$name" 2>/dev/null || true ;;
            link) ip link delete "$name" 2>/dev/null || true ;;
            esac
        done < <(tac "$dir/hosts")
        rm -f "$dir/hosts"
    fi
}

# slurmd exited at start: its log's end, then everything stopped.
slurmd_failed() {
    echo "slurm-cluster.sh: slurmd of $1 did not start" >&2
    tail -5 "$dir/slurmd-$1.log" >&2 || true
    stop
    exit 1
}

if [[ $command == stop ]]; then
    stop
    exit 0
fi
[[ $command == start ]] || { echo "usage: slurm-cluster.sh start|stop DIR" >&2; exit 2; }
nodes=${3:-1}
[[ $nodes =~ ^[1-9]$ ]] || { echo "slurm-cluster.sh: NODES must be 1..9, not '$nodes'" >&2; exit 2; }

tools="munged slurmctld slurmd sbatch sinfo setpriv"
(( nodes == 1 )) || tools="$tools ip unshare"
for tool in $tools; do
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

# The node hosts (NODES >= 2): a bridge with this host at .1, each node a network namespace at
# .1K with its own host name. A tag keeps two clusters of concurrent tests apart.
node_lines=""
node_names=""
controller="$host"
if (( nodes > 1 )); then
    tag=$(printf '%04x' $(( (RANDOM << 1 ^ $$) & 0xffff )))
    net="10.$(( 100 + RANDOM % 100 )).$(( RANDOM % 250 ))"
    bridge="kb$tag"
    : > "$dir/hosts"
    fail_hosts() { echo "slurm-cluster.sh: cannot make the node hosts ($1): this needs network namespaces (ip netns, as root with CAP_NET_ADMIN and CAP_SYS_ADMIN)" >&2; stop; exit 3; }
    ip link add "$bridge" type bridge 2>/dev/null || fail_hosts "ip link add $bridge type bridge"
    echo "link $bridge" >> "$dir/hosts"
    ip addr add "$net.1/24" dev "$bridge" && ip link set "$bridge" up || fail_hosts "bridge address"
    controller="$host($net.1)"
    for k in $(seq "$nodes"); do
        ns="kosmos-$tag-n$k"
        ip netns add "$ns" 2>/dev/null || fail_hosts "ip netns add $ns"
        echo "netns $ns" >> "$dir/hosts"
        ip link add "kb${tag}h$k" type veth peer name "kb${tag}n$k" || fail_hosts "veth"
        echo "link kb${tag}h$k" >> "$dir/hosts"
        ip link set "kb${tag}n$k" netns "$ns" && ip link set "kb${tag}h$k" master "$bridge" up &&
            ip -n "$ns" addr add "$net.$(( 10 + k ))/24" dev "kb${tag}n$k" &&
            ip -n "$ns" link set "kb${tag}n$k" up && ip -n "$ns" link set lo up ||
            fail_hosts "addresses of $ns"
        node_lines+="NodeName=$ns NodeHostname=$ns NodeAddr=$net.$(( 10 + k )) CPUs=1 State=UNKNOWN"$'\n'
        node_names+="${node_names:+,}$ns"
    done
else
    node_lines="NodeName=$host CPUs=$(nproc) State=UNKNOWN"$'\n'
    node_names=$host
fi

cat > "$dir/slurm.conf" <<CONF
ClusterName=kosmostest
SlurmctldHost=$controller
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket.2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
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
${node_lines}PartitionName=debug Nodes=$node_names Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
if (( nodes > 1 )); then
    for k in $(seq "$nodes"); do
        ns="kosmos-$tag-n$k"
        mkdir -p "$dir/spool/$ns"
        # Its own network and host name; slurmd forks into the background inside both. nsenter,
        # not `ip netns exec`, which remounts /sys and so hides the cgroup filesystem slurmd needs.
        nsenter --net="/run/netns/$ns" unshare --uts \
            bash -c 'hostname "$1" && exec slurmd -N "$1" -f "$2"' _ "$ns" "$SLURM_CONF" ||
            slurmd_failed "$ns"
    done
else
    mkdir -p "$dir/spool/$host"
    slurmd -f "$SLURM_CONF" || slurmd_failed "$host"
fi
for _ in $(seq 300); do # up to 30 s on a slow machine (~0.1 s here)
    idle=$(sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$' || true)
    (( idle == nodes )) && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
    sleep 0.1
done
echo "slurm-cluster.sh: $idle of $nodes node(s) became idle ($(sinfo -h -N -o '%N %T' 2>/dev/null | tr '\n' ' ')); logs in $dir" >&2
tail -5 "$dir/slurmctld.log" "$dir"/slurmd*.log >&2 || true
stop
exit 1
