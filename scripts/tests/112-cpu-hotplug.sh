#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per-CPU workers follow CPU hotplug:
#  - a CPU going offline lets its worker run elsewhere, and writes verify;
#  - back online, the worker is bound to it again;
#  - an array started while a CPU was offline gets a worker for it when it
#    comes online, bound to it, and writes submitted there run on it.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio taskset pgrep
lr_setup

cpu=/sys/devices/system/cpu/cpu1/online
[ -w "$cpu" ] || lr_skip "CPU 1 cannot go offline (needs 2 CPUs and hotplug)"
restore() {
	echo 1 >"$cpu" 2>/dev/null
	lr_cleanup
}
trap restore EXIT

# affinity lraidN/C: the CPU list worker C of array N may run on
affinity() {
	local pid
	pid=$(pgrep -x "$1") || lr_fail "no worker $1"
	taskset -pc "$pid" | sed 's/.*: *//'
}

# switches lraidN/C: context switches of that worker so far
switches() {
	local pid
	pid=$(pgrep -x "$1") || lr_fail "no worker $1"
	awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$pid/status"
}

lr_members nullb 4 64
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
a=$(affinity lraid0/1)
[ "$a" = 1 ] ||
	lr_fail "lraid0/1 not bound to CPU 1: '${a:-}'"

lr_log "CPU 1 offline: its worker runs elsewhere, writes verify"
echo 0 >"$cpu"
# (a failing affinity ends the script through set -e: its lr_fail ends
# only the $(...) subshell, so it is never used inside a test)
a=$(affinity lraid0/1)
case $a in '' | 1) lr_fail "lraid0/1 still bound to offline CPU 1: '$a'" ;; esac
lr_fio /dev/lraid0 offline --rw=randwrite --bs=4k --size=16M \
	--iodepth=16 --numjobs=2 --offset_increment=16M
lr_log "CPU 1 online: the worker is bound to it again"
echo 1 >"$cpu"
a=$(affinity lraid0/1)
[ "$a" = 1 ] ||
	lr_fail "lraid0/1 runs on '${a:-}', not CPU 1"
lr_fio /dev/lraid0 online --rw=randwrite --bs=4k --size=16M \
	--iodepth=16 --numjobs=2 --offset_increment=16M
"$LRAIDCTL" stop lraid0 || lr_fail stop

lr_log "array started with CPU 1 offline, then CPU 1 online"
echo 0 >"$cpu"
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail assemble
lr_settle
if pgrep -x lraid0/1 >/dev/null; then
	lr_fail "a worker for offline CPU 1"
fi
lr_fio /dev/lraid0 cpu0-only --rw=randwrite --bs=4k --size=16M \
	--iodepth=16
echo 1 >"$cpu"
a=$(affinity lraid0/1)
[ "$a" = 1 ] ||
	lr_fail "new lraid0/1 not bound to CPU 1: '${a:-}'"
before=$(switches lraid0/1)
lr_fio /dev/lraid0 on-cpu1 --rw=randwrite --bs=4k --size=16M \
	--iodepth=16 --cpus_allowed=1
after=$(switches lraid0/1)
[ "$after" -gt $((before + 10)) ] ||
	lr_fail "lraid0/1 did not run for writes from CPU 1 ($before -> $after switches)"
"$LRAIDCTL" stop lraid0 || lr_fail stop
echo "PASS"
