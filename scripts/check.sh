#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make check`: set up, build for 6.1 and 6.12, lint, userspace tests, KUnit
# in the test kernel, integration scenarios in QEMU. Every stage prints
# PASS:/FAIL:/SKIP: lines; the last line is "N passed, N failed, N skipped".
#
#   scripts/check.sh [--debug] [--quick] [--full]
#     --debug   KUnit and scenarios on the debug kernel (KASAN, lockdep, ...)
#     --quick   scenarios on stock 6.12 only (no 6.1, no md cross-check)
#     --full    every scenario combination (LRAID_TEST_LEVEL=full), slow
#   LRAID_CHECK_STAGES="setup build lint user kunit harness scenarios md"
#   picks stages.
#   LRAID_CHECK_SPLIT=N: the scenarios run in two lanes side by side
#   (scenario_lanes); stock 6.12's from N on go to lane 2 (default 137).
#   LRAID_CHECK_BUDGET=S: seconds the whole run may take (default 5100,
#   85 min, as CI allows 90; 0 with --debug and --full: no limit). Each
#   scenario guest is given what is left; scenarios no guest could run in
#   it are FAILs ("not run"), and the last line is printed all the same.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/kernels.sh
. scripts/kernels.sh
debug=0
quick=0
for a in "$@"; do
	case $a in
	--debug)
		debug=1
		# KASAN, lockdep and kmemleak slow every scenario 6-8x under
		# TCG: the whole set takes hours in one guest, and 102 ran
		# past 900 s (2026-11-23)
		export LRAID_VM_TIMEOUT=${LRAID_VM_TIMEOUT:-14400}
		export LRAID_TEST_TIMEOUT=${LRAID_TEST_TIMEOUT:-2700}
		budget=${LRAID_CHECK_BUDGET:-0}
		;;
	--quick) quick=1 ;;
	--full)
		export LRAID_TEST_LEVEL=full
		# every combination in one guest runs for hours
		export LRAID_VM_TIMEOUT=${LRAID_VM_TIMEOUT:-14400}
		budget=${LRAID_CHECK_BUDGET:-0}
		;;
	*)
		echo "usage: $0 [--debug] [--quick] [--full]" >&2
		exit 2
		;;
	esac
done
budget=${budget:-${LRAID_CHECK_BUDGET:-5100}}
stages=${LRAID_CHECK_STAGES:-setup build lint user kunit harness scenarios md}
want() { [[ " $stages " == *" $1 "* ]]; }

logdir=$top/results/check-$(date +%Y%m%d-%H%M%S)
mkdir -p "$logdir"
summary=$logdir/summary
: >"$summary"
t0=$(date +%s)
# The tally, last: "N passed, N failed, N skipped"; fails if any failed.
finish() {
	local pass fail skip
	pass=$(grep -c '^PASS: ' "$summary")
	fail=$(grep -c '^FAIL: ' "$summary")
	skip=$(grep -c '^SKIP: ' "$summary")
	echo
	echo "check: $(($(date +%s) - t0)) s, logs in $logdir"
	grep '^FAIL: ' "$summary" | sed 's/^/  /'
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
}
# kill_tree PID: PID and everything it started
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do
		kill_tree "$c"
	done
	kill "$1" 2>/dev/null
}
# Stopped from outside (CI's limit, ^C): still count, and say so; lane 2
# of the scenarios (scenario_lanes) is stopped with it.
interrupted() {
	trap - INT TERM
	[ -z "${lane:-}" ] || kill_tree "$lane"
	echo "FAIL: check (interrupted by SIG$1)" | tee -a "$summary"
	finish
	exit 1
}
trap 'interrupted INT' INT
trap 'interrupted TERM' TERM

# Run one stage: its PASS/FAIL/SKIP lines are shown and collected; a stage
# that fails without saying which case failed counts as one failure.
stage() {
	local name=$1 log=$logdir/$1.log rc what
	shift
	what=$*
	[ ${#what} -le 160 ] || what="${what:0:150} ... ($# words)"
	echo "=== $name: $what"
	local s
	s=$(date +%s)
	"$@" 2>&1 | tee "$log" | grep --line-buffered -E '^(PASS|FAIL|SKIP): |^    ' |
		grep --line-buffered -vE '^    (ok|not ok|# )'
	rc=${PIPESTATUS[0]}
	grep -E '^(PASS|FAIL|SKIP): ' "$log" >>"$summary"
	if [ "$rc" != 0 ] && ! grep -q '^FAIL: ' "$log"; then
		echo "FAIL: $name (exit $rc; log $log)" | tee -a "$summary"
		tail -30 "$log"
	fi
	echo "=== $name: $(($(date +%s) - s)) s"
}

build_all() {
	local k ok=0
	for k in stock-6.1 stock-6.12; do
		if scripts/build-for "$k" >/dev/null; then
			echo "PASS: build/$k (W=1, no warnings)"
		else
			echo "FAIL: build/$k"
			ok=1
		fi
	done
	if make -s -C tools >/dev/null; then
		echo "PASS: build/lraidctl"
	else
		echo "FAIL: build/lraidctl"
		ok=1
	fi
	return $ok
}

user_tests() {
	local d ok=0
	for d in tests/*/; do
		[ -f "$d/Makefile" ] || continue
		make -s -C "$d" check || ok=1
	done
	return $ok
}

guest_kernel() { # the kernel for KUnit: test, or debug
	if [ $debug = 1 ]; then echo debug; else echo test; fi
}

kunit_stage() {
	local k
	k=$(guest_kernel)
	scripts/build-kernel.sh "$k" >/dev/null || return 1
	scripts/build-for "$k" >/dev/null || return 1
	scripts/vm-run --kernel "$k" -- scripts/guest/kunit.sh
}

scenario_guest() { # kernel kind [scenario...]
	# all of stock 6.12's scenarios in one guest took 2300-2450 s on 2.4 GHz
	# hosts, past vm-run's default, and 3600 s was reached in CI on
	# 2026-11-29 (139 on were never run); each scenario has its own limit
	# (LRAID_TEST_TIMEOUT, 900 s; 2700 s with --debug), and the budget
	# bounds the guest
	local lim=${LRAID_VM_TIMEOUT:-5400} rest
	if [ "$budget" != 0 ]; then
		rest=$((budget - ($(date +%s) - t0) - 30))
		if [ "$rest" -lt 120 ]; then
			echo "scenarios on $1: not started, the time budget (LRAID_CHECK_BUDGET=$budget s) is spent"
			return 1
		fi
		[ "$lim" != 0 ] && [ "$lim" -le "$rest" ] || lim=$rest
	fi
	LRAID_VM_TIMEOUT=$lim \
		scripts/vm-run --kernel "$1" --mem 3G -- \
		env LRAID_TEST_LEVEL="${LRAID_TEST_LEVEL:-quick}" \
		LRAID_TEST_TIMEOUT="${LRAID_TEST_TIMEOUT:-900}" \
		scripts/guest/scenarios.sh "${@:2}"
}

# unreported OUT KERNEL SCENARIO...: the scenarios meant for KERNEL
# (lraid_runs_on, as scenarios.sh picks them) with no PASS, FAIL or SKIP
# line in OUT
unreported() {
	local out=$1 k=$2 t
	for t in "${@:3}"; do
		lraid_runs_on "$t" "$k" || continue
		grep -Eq "^(PASS|FAIL|SKIP): $k/$(basename "$t" .sh) " "$out" ||
			echo "$t"
	done
}

# A guest that ran no test (vm-run's exit 75: its QEMU stopped answering,
# or its kernel never started the command) runs once more, for the
# scenarios it had not reported on; a guest that froze or died while
# running them fails the stage, and each scenario no guest reported on
# (never run) is a FAIL of its own.
# The list goes to the guest in a file ("@FILE"): on its kernel command
# line (vng passes the command there), all the scenarios' paths overflow
# the 2048 bytes x86 allows, and the kernel panics early in its boot.
scenario_run() { # kernel kind [scenario...]
	local out rc t left=() all=("${@:2}")
	out=$(mktemp)
	if [ ${#all[@]} -gt 0 ]; then
		scenario_list "$1" "${all[@]}" | tee "$out"
		rc=${PIPESTATUS[0]}
	else
		# (the guest gets no list of them all: see above)
		all=(scripts/tests/[0-9][0-9][0-9]-*.sh)
		scenario_guest "$1" | tee "$out"
		rc=${PIPESTATUS[0]}
	fi
	if [ "$rc" = 75 ]; then
		mapfile -t left < <(unreported "$out" "$1" "${all[@]}")
		echo "scenarios on $1: the guest did not run (vm-run exit 75); again for the ${#left[@]} not reported"
		rc=0
		if [ ${#left[@]} -gt 0 ]; then
			scenario_list "$1" "${left[@]}" | tee -a "$out"
			rc=${PIPESTATUS[0]}
		fi
	fi
	while read -r t; do
		echo "FAIL: $1/$(basename "$t" .sh) (not run: no guest reported on it, exit $rc)"
		[ "$rc" != 0 ] || rc=1
	done < <(unreported "$out" "$1" "${all[@]}")
	rm -f "$out"
	return "$rc"
}

scenario_list() { # kernel kind, scenario...: a guest for those, in a file
	local list rc
	list=$(mktemp "$top/.scenarios.XXXXXX")
	printf '%s\n' "${@:2}" >"$list"
	scenario_guest "$1" "@$list"
	rc=$?
	rm -f "$list"
	return "$rc"
}

scenario_stage() { # kernel kind [scenario...]
	scripts/build-for "$1" >/dev/null || return 1
	scenario_run "$@"
}

# harness_case KERNEL WHAT SEEN CMD [RC]: vm-run must fail a guest (that
# WHAT) running CMD, with exit status RC if given, and its output must hold
# the fixed string SEEN.
harness_case() {
	local out rc=0
	out=$(scripts/vm-run --kernel "$1" -- sh -c "$4" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		echo "$out"
		echo "FAIL: harness: vm-run passed a guest that $2"
	elif [ -n "${5:-}" ] && [ "$rc" != "$5" ]; then
		echo "$out"
		echo "FAIL: harness: vm-run failed a guest that $2 with exit $rc, not $5"
	elif grep -qF -- "$3" <<<"$out"; then
		echo "PASS: harness: vm-run fails a guest that $2"
	else
		echo "$out"
		echo "FAIL: harness: vm-run failed a guest that $2, not showing: $3"
	fi
}

# vm-run must fail a guest whose kernel log shows a splat, also one the
# ring buffer no longer holds when the command ends (dmesg -C here), and
# show the panic of a guest that died, which only its console holds; and
# take a guest whose heartbeat stops for frozen, and show the backtraces
# its NMI brings (a real freeze cannot be had on demand: the heartbeat's
# shell is stopped instead); and answer a guest that never started its
# command (its kernel stopped while it booted) with exit 75, for
# scenario_run to try once more (the heartbeat's shell is stopped and its
# file, which the guest writes first, removed), and with exit 1 if its
# kernel log held a report (a caller that ran it again would lose that).
harness_check() {
	local k stop_hb
	k=$(guest_kernel)
	scripts/build-kernel.sh "$k" >/dev/null || return 1
	harness_case "$k" "logged a WARNING" 'kernel reported problems (kmsg)' \
		'echo "WARNING: vm-run self-check" >/dev/kmsg; dmesg -C'
	harness_case "$k" "panicked" 'Kernel panic - not syncing: sysrq triggered crash' \
		'echo 1 >/proc/sys/kernel/sysrq; echo c >/proc/sysrq-trigger'
	# in the guest: stop the heartbeat's shell (the parent of its sleep),
	# its PID in $hb
	# shellcheck disable=SC2016 # expanded in the guest
	stop_hb='until hb=$(ps -o ppid= -C sleep | head -1); [ -n "$hb" ]; do :; done; kill -STOP $hb; '
	LRAID_VM_STALL=30 harness_case "$k" "froze" \
		'Kernel panic - not syncing: NMI: Not continuing' \
		"${stop_hb}sleep 900"
	# shellcheck disable=SC2016 # expanded in the guest
	LRAID_VM_STALL=30 harness_case "$k" "never started its command" \
		'the guest had not started its command after' \
		"$stop_hb"'g=$(ps -o args= -p $hb | cut -d" " -f2); rm "${g%/*}/beat" && sleep 900' 75
	# the same with a WARNING logged first: exit 1, not 75 (run again),
	# so the report is not dropped with the guest
	# shellcheck disable=SC2016 # expanded in the guest
	LRAID_VM_STALL=30 harness_case "$k" "logged a WARNING and never started its command" \
		'kernel reported problems (kmsg)' \
		'echo "WARNING: vm-run self-check" >/dev/kmsg; '"$stop_hb"'g=$(ps -o args= -p $hb | cut -d" " -f2); rm "${g%/*}/beat" && sleep 900' 1
}

# Scenarios that need the test kernel ("# kernels: test debug"), on it.
test_kernel_scenarios() {
	local t s=()
	for t in scripts/tests/[0-9][0-9][0-9]-*.sh; do
		grep -q '^# kernels:' "$t" && lraid_runs_on "$t" test && s+=("$t")
	done
	[ ${#s[@]} -eq 0 ] || scenario_stage test "${s[@]}"
}

# The scenarios of make check in two lanes side by side. vm-run's TCG
# guest runs its vCPUs in one host thread, so one guest keeps one of the
# host's cores busy and leaves the other idle (top: qemu at 105-110 %
# CPU, the host 47 % idle, 2026-11-29); one after another, the guests
# took 80 min and ran past CI's limit. Lane 1 runs stock 6.12's scenarios
# below LRAID_CHECK_SPLIT; lane 2 the test kernel's, stock 6.1's and the
# rest of 6.12's, its output shown when lane 1 is done. Kernels and
# modules are built first, so no two builds of one tree run at once.
scenario_lanes() {
	local split=${LRAID_CHECK_SPLIT:-137} t n k one=() two=() out
	for k in test stock-6.1 stock-6.12; do
		scripts/build-for "$k" >/dev/null || {
			echo "FAIL: build/$k (for the scenarios)" | tee -a "$summary"
			return
		}
	done
	for t in scripts/tests/[0-9][0-9][0-9]-*.sh; do
		n=$(basename "$t")
		if [ $((10#${n%%-*})) -lt "$split" ]; then
			one+=("$t")
		else
			two+=("$t")
		fi
	done
	out=$logdir/lane2.out
	{
		stage scenarios-test test_kernel_scenarios
		stage scenarios-6.1 scenario_run stock-6.1
		stage "scenarios-6.12-from-$split" scenario_run stock-6.12 "${two[@]}"
	} >"$out" 2>&1 &
	lane=$!
	stage scenarios-6.12 scenario_run stock-6.12 "${one[@]}"
	echo "=== waiting for lane 2 (test kernel, 6.1, 6.12 from $split)"
	wait "$lane"
	lane=
	cat "$out"
}

want setup && stage setup scripts/setup.sh
want build && stage build build_all
want lint && stage lint scripts/lint.sh
want user && stage user user_tests
want kunit && stage kunit kunit_stage
want harness && stage harness harness_check
if want scenarios; then
	if [ $debug = 1 ]; then
		stage scenarios-debug scenario_stage debug
	elif [ $quick = 1 ]; then
		stage scenarios-test test_kernel_scenarios
		stage scenarios-6.12 scenario_stage stock-6.12
	else
		scenario_lanes
	fi
fi
# Geometry images against real md for every member count and chunk size;
# the scenarios already cross-check data written through lraid with md.
if want md && [ "${LRAID_TEST_LEVEL:-quick}" = full ] && [ $debug = 0 ] &&
	[ -x tests/geom/md-crosscheck.sh ]; then
	stage md-crosscheck scripts/vm-run -- tests/geom/md-crosscheck.sh
fi

finish
