#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: run the integration scenarios
# scripts/tests/NNN-*.sh (or the ones named as arguments) one by one.
# A scenario exits 0 (pass), 77 (skip, after printing why) or anything else
# (fail). After each one the kernel log is checked for WARNING, BUG, KASAN,
# lockdep, hung-task reports: any of them fails the scenario.
set -uo pipefail

top=${LRAID_ROOT:?run me through scripts/vm-run}
kd=${LRAID_KDIR:?}
export LRAIDCTL=${LRAIDCTL:-$top/tools/lraidctl}
export LRAID_KO=${LRAID_KO:-$kd/module/lraid.ko}
# quick: the covering set `make check` runs; full: every combination.
export LRAID_TEST_LEVEL=${LRAID_TEST_LEVEL:-quick}
limit=${LRAID_TEST_TIMEOUT:-900}
bad='WARNING:|BUG:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|INFO: task .* blocked for more than|general protection fault|Oops|kernel BUG|soft lockup|hard LOCKUP'

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=("$top"/scripts/tests/[0-9][0-9][0-9]-*.sh)
fi
fail=0
for t in "${tests[@]}"; do
	[ -e "$t" ] || continue
	name=$(basename "$t" .sh)
	# "# quick-kernels: K..." limits a slow scenario to those kernels in
	# quick mode; `make check-full` runs it everywhere.
	only=$(sed -n 's/^# quick-kernels: *//p' "$t")
	if [ "$LRAID_TEST_LEVEL" = quick ] && [ -n "$only" ] &&
		[[ " $only " != *" $LRAID_KVER "* ]]; then
		echo "SKIP: $LRAID_KVER/$name (quick mode runs it on $only; make check-full runs it here)"
		continue
	fi
	log=$(mktemp)
	dmesg -C
	start=$(date +%s)
	timeout -k 10 "$limit" bash "$t" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	if dmesg | grep -Eq "$bad"; then
		echo "kernel reported problems during $name:" >>"$log"
		dmesg | grep -E -A25 "$bad" | head -60 >>"$log"
		rc=99
	fi
	case $rc in
	0) echo "PASS: $LRAID_KVER/$name (${secs}s)" ;;
	77) echo "SKIP: $LRAID_KVER/$name ($(tail -1 "$log"))" ;;
	*)
		echo "FAIL: $LRAID_KVER/$name (exit $rc, ${secs}s)"
		sed 's/^/    /' "$log" | tail -60
		fail=1
		;;
	esac
	rm -f "$log"
	# Leave nothing behind for the next scenario.
	grep -q '^lraid ' /proc/modules && rmmod lraid 2>/dev/null
done
exit $fail
