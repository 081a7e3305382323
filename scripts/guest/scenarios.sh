#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: run the integration scenarios
# scripts/tests/NNN-*.sh (or the ones named as arguments) one by one.
# A scenario exits 0 (pass), 77 (skip, after printing why) or anything else
# (fail). After each one lraid is unloaded (a module that will not unload
# fails the scenario) and the kernel log of the whole run, followed live so
# that a scenario's own log marks cannot hide anything, is checked for
# WARNING, BUG, KASAN, lockdep, hung-task and RCU stall reports: any of
# them fails the scenario.
set -uo pipefail

top=${LRAID_ROOT:?run me through scripts/vm-run}
# shellcheck source=scripts/kernels.sh
. "$top/scripts/kernels.sh"
kd=${LRAID_KDIR:?}
export LRAIDCTL=${LRAIDCTL:-$top/tools/lraidctl}
export LRAID_KO=${LRAID_KO:-$kd/module/lraid.ko}
# quick: the covering set `make check` runs; full: every combination.
export LRAID_TEST_LEVEL=${LRAID_TEST_LEVEL:-quick}
limit=${LRAID_TEST_TIMEOUT:-900}
bad='WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|general protection fault|Oops|kernel BUG|soft lockup|hard LOCKUP|detected stall|Kernel panic'

# Take down whatever a scenario left: its own cleanup (lr_cleanup) does
# not run when the time limit kills it, and a device left configured makes
# the next scenarios fail on names in use. Prints one line per thing found.
# Upper layers first: file systems, then md and lraid arrays (twice, as
# either may sit on the other), device-mapper, loop and null_blk devices.
# shellcheck disable=SC2317 # run by name in a child bash (export -f)
sweep() {
	local d n
	while read -r d n; do
		case $n in
		/dev/lraid* | /dev/md* | /dev/mapper/* | /dev/dm-* | /dev/loop* | /dev/nullb*)
			umount -l "$d" 2>/dev/null && echo "file system on $n at $d"
			;;
		esac
	done < <(findmnt -rn -o TARGET,SOURCE 2>/dev/null)
	for _ in 1 2; do
		for d in /sys/block/md*; do
			[ -e "$d" ] || continue
			mdadm --stop "/dev/${d##*/}" >/dev/null 2>&1 &&
				echo "md array ${d##*/}"
		done
		for d in /sys/block/lraid*; do
			[ -e "$d" ] || continue
			"$LRAIDCTL" stop "${d##*/}" >/dev/null 2>&1 &&
				echo "lraid array ${d##*/}"
		done
	done
	if command -v dmsetup >/dev/null; then
		for _ in 1 2 3; do
			while read -r n _; do
				case $n in '' | No) continue ;; esac
				dmsetup remove --noudevsync "$n" 2>/dev/null &&
					echo "device-mapper device $n"
			done < <(dmsetup ls 2>/dev/null)
		done
	fi
	while IFS=: read -r d _; do
		[ -n "$d" ] && losetup -d "$d" 2>/dev/null && echo "loop device $d"
	done < <(losetup -a 2>/dev/null)
	for d in /sys/kernel/config/nullb/*/; do
		[ -e "$d/power" ] || continue
		echo 0 >"$d/power" 2>/dev/null
		rmdir "$d" 2>/dev/null && echo "null_blk device $(basename "$d")"
	done
	# 121 holds udev's event queue while it counts; killed at its time
	# limit it cannot let go, and every later "udevadm settle" would wait
	# out its timeout (idempotent, so not reported)
	udevadm control --start-exec-queue 2>/dev/null || true
	# what could not be taken down (md re-creates an empty mdN, state
	# "clear", when anything opens its node: not counted)
	for d in /sys/block/md*; do
		[ -e "$d/md/array_state" ] || continue
		[ "$(cat "$d/md/array_state" 2>/dev/null)" = clear ] ||
			echo "still there: md array ${d##*/}"
	done
	for d in /sys/block/lraid*; do
		[ -e "$d" ] && echo "still there: lraid array ${d##*/}"
	done
	if command -v dmsetup >/dev/null; then
		while read -r n _; do
			case $n in '' | No) continue ;; esac
			echo "still there: device-mapper device $n"
		done < <(dmsetup ls 2>/dev/null)
	fi
	while IFS=: read -r d _; do
		[ -n "$d" ] && echo "still there: loop device $d"
	done < <(losetup -a 2>/dev/null)
	for d in /sys/kernel/config/nullb/*/; do
		[ -e "$d" ] && echo "still there: null_blk device $(basename "$d")"
	done
	return 0
}

# The kernel stacks of tasks in D state and of what scenarios run (fio,
# dd, lraidctl, mdadm, lraid's threads): why a time limit was reached.
stacks() {
	local p st comm
	for p in /proc/[0-9]*; do
		st=$(awk '/^State:/ { print $2 }' "$p/status" 2>/dev/null) ||
			continue
		comm=$(cat "$p/comm" 2>/dev/null) || continue
		case $st:$comm in
		D:* | *:fio | *:dd | *:lraidctl | *:mdadm | *:lraid*) ;;
		*) continue ;;
		esac
		echo "task ${p#/proc/} ($comm), state $st:"
		sed 's/^/    /' "$p/stack" 2>/dev/null
	done
}
export -f sweep
# A sweep still not done after this long is stuck (a task waiting for I/O
# that never ends): the run stops there rather than wait for vm-run's limit
sweep_limit=${LRAID_SWEEP_TIMEOUT:-300}

if [ $# -eq 1 ] && [ "${1:0:1}" = @ ]; then
	# @FILE: the scenarios listed in FILE, one path a line
	mapfile -t tests <"${1:1}"
elif [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$top"/scripts/tests/[0-9][0-9][0-9]-*.sh)
fi
fail=0
for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	if [ ! -e "$t" ]; then
		echo "FAIL: $LRAID_KVER/$name (no such scenario: $t)"
		fail=1
		continue
	fi
	# "# kernels: K..." runs a scenario only on those kernels (what it
	# needs is built into them alone), in every mode, and says nothing
	# elsewhere. "# quick-kernels: K..." limits a slow scenario to those
	# kernels in quick mode ("none": full mode only); `make check-full`
	# runs it everywhere.
	lraid_runs_on "$t" "$LRAID_KVER" || continue
	only=$(sed -n 's/^# quick-kernels: *//p' "$t")
	if [ "$LRAID_TEST_LEVEL" = quick ] && [ -n "$only" ] &&
		[[ " $only " != *" $LRAID_KVER "* ]]; then
		echo "SKIP: $LRAID_KVER/$name (quick mode runs it on $only; make check-full runs it here)"
		continue
	fi
	log=$(mktemp)
	klog=$(mktemp)
	# Everything the kernel logs from here on, whatever the scenario does
	# to the log buffer, until the module is unloaded after it.
	mark="lraid-scenarios: $name begins ($$.$RANDOM)"
	echo "$mark" >/dev/kmsg
	dmesg --follow >"$klog" 2>&1 &
	kpid=$!
	start=$(date +%s)
	# timeout leads a process group of its own: what the scenario left
	# running in the background is still in it afterwards
	timeout -k 10 "$limit" bash "$t" >"$log" 2>&1 </dev/null &
	tpid=$!
	wait "$tpid"
	rc=$?
	secs=$(($(date +%s) - start))
	# (given 2 s to end: zombies not yet reaped, and what is exiting,
	# are not counted)
	for _ in $(seq 20); do
		orphans=$(pgrep -d, -g "$tpid") &&
			orphans=$(ps -o pid=,stat=,args= -p "$orphans" |
				awk '$2 !~ /^Z/ { p = $1; $1 = $2 = ""
					sub(/^ +/, ""); print "process " p " " $0 }')
		[ -n "$orphans" ] || break
		sleep 0.1
	done
	[ -z "$orphans" ] || kill -KILL -- "-$tpid" 2>/dev/null
	if [ $rc = 124 ]; then
		{
			echo "time limit of ${limit}s reached; tasks left:"
			stacks
		} >>"$log"
	fi
	# Leave nothing behind for the next scenario: what a scenario that
	# passed left configured fails it; a module that will not unload (a
	# reference leaked) fails it too.
	# (to a file: a task stuck in D state would hold a pipe open forever)
	timeout -k 10 "$sweep_limit" bash -c sweep >"$log.left"
	src=$?
	left=$(printf '%s\n' "$orphans"; cat "$log.left")
	left=$(sed '/^$/d' <<<"$left")
	if [ $src = 124 ] || [ $src = 137 ]; then
		{
			echo "cleanup after $name still running after ${sweep_limit}s; tasks:"
			stacks
		} >>"$log"
		echo "FAIL: $LRAID_KVER/$name (cleanup stuck: no further scenarios run)"
		sed 's/^/    /' "$log" | tail -120
		exit 1
	fi
	if [ -n "$left" ]; then
		{
			echo "left behind after $name (taken down unless \"still there\"):"
			printf '%s\n' "$left"
		} >>"$log"
		# a skip may have done work first: what it left fails it too
		case $rc in 0 | 77) rc=96 ;; esac
	fi
	if grep -q '^lraid ' /proc/modules && ! rmmod lraid >>"$log" 2>&1; then
		echo "rmmod lraid failed after $name" >>"$log"
		case $rc in 0 | 77) rc=98 ;; esac
	fi
	echo "lraid-scenarios: $name ends ($$)" >/dev/kmsg
	for _ in $(seq 50); do
		grep -q "lraid-scenarios: $name ends ($$)" "$klog" && break
		sleep 0.1
	done
	kill "$kpid" 2>/dev/null
	wait "$kpid" 2>/dev/null
	awk -v m="$mark" 'index($0, m) { f = 1 } f' "$klog" >"$klog.s"
	if ! grep -q "lraid-scenarios: $name ends" "$klog.s"; then
		echo "the kernel log of $name could not be read whole" >>"$log"
		rc=97
	elif grep -Eq "$bad" "$klog.s"; then
		echo "kernel reported problems during $name:" >>"$log"
		grep -E -A25 "$bad" "$klog.s" | head -60 >>"$log"
		rc=99
	fi
	case $rc in
	0)
		echo "PASS: $LRAID_KVER/$name (${secs}s)"
		# its steps' times, for the stage log (not shown by make check)
		sed -n 's/^== \(\[[0-9]*s\]\)/  \1/p' "$log"
		;;
	77) echo "SKIP: $LRAID_KVER/$name ($(tail -1 "$log"))" ;;
	*)
		echo "FAIL: $LRAID_KVER/$name (exit $rc, ${secs}s)"
		sed 's/^/    /' "$log" | tail -100
		fail=1
		;;
	esac
	rm -f "$log" "$log.left" "$klog" "$klog.s"
done
exit $fail
