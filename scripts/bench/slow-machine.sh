#!/usr/bin/env bash
# A slower machine on demand: runs a command with PostgreSQL, Redis and the command's processes
# limited to a share of the machine's CPU by a cgroup quota, the way a VM's slow stretch starves all
# of them at once (docs/benchmarks.md, "Reading the numbers"). Needs root and the cgroup v1 `cpu` controller or
# cgroup v2 with `cpu.max`.
#
#   scripts/bench/slow-machine.sh [--cores N] [--servers-only] -- <command …>
#
#   --cores N        CPU the group may use, in cores (default 1.0; the machine has `nproc`)
#   --servers-only   only the servers (Comando, the bench baselines, PostgreSQL, Redis) are limited;
#                    the command itself (the load generator and its clients) runs outside, as the
#                    screens and phones do on election day
#
# Example: scripts/bench/slow-machine.sh --cores 1.3 -- npm run bench:gotv
set -euo pipefail

cores=1.0
servers_only=false
while (($#)); do
  case "$1" in
    --cores) cores=$2; shift 2 ;;
    --servers-only) servers_only=true; shift ;;
    --) shift; break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
(($#)) || { echo "usage: $0 [--cores N] [--servers-only] -- <command …>" >&2; exit 2; }

period_us=20000 # short periods: a throttled group waits at most this long
quota_us=$(awk -v c="$cores" -v p="$period_us" 'BEGIN { printf "%d", c * p }')
name="comando-slow-$$"

if [[ -d /sys/fs/cgroup/cpu && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
  root=/sys/fs/cgroup/cpu
  group=$root/$name
  mkdir "$group"
  echo "$period_us" >"$group/cpu.cfs_period_us"
  echo "$quota_us" >"$group/cpu.cfs_quota_us"
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  root=/sys/fs/cgroup
  group=$root/$name
  echo +cpu >"$root/cgroup.subtree_control" 2>/dev/null || true
  mkdir "$group"
  echo "$quota_us $period_us" >"$group/cpu.max"
else
  echo "no cgroup cpu controller found" >&2
  exit 1
fi

join() { for pid in "$@"; do echo "$pid" >"$group/cgroup.procs" 2>/dev/null || true; done; }
services() { pgrep -x postgres || true; pgrep -f '^postgres:' || true; pgrep -x redis-server || true; }

mover=""
finish() {
  [[ -n $mover ]] && kill "$mover" 2>/dev/null || true
  echo "== cgroup $name ($cores cores): $(tr '\n' ' ' <"$group/cpu.stat")" >&2
  while read -r pid; do echo "$pid" >"$root/cgroup.procs" 2>/dev/null || true; done <"$group/cgroup.procs"
  rmdir "$group" 2>/dev/null || echo "left $group behind" >&2
}
trap finish EXIT

# PostgreSQL's backends are forked by its postmaster, so sessions opened later join the group too.
# shellcheck disable=SC2046
join $(services)
if $servers_only; then
  (while true; do
    # shellcheck disable=SC2046
    join $(pgrep -f 'dist/src/main\.js|dist/scripts/bench/baseline-' || true)
    sleep 0.3
  done) &
  mover=$!
  "$@"
else
  # The command and everything it starts run inside the group.
  (join "$BASHPID"; exec "$@")
fi
