#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: load lraid.ko and every KUnit test module built
# for this kernel (LRAID_KDIR, see scripts/build-for), then read each suite's
# KTAP results from debugfs. Prints PASS:/FAIL:/SKIP: per test case, and a
# FAIL for a module that does not load or a suite that did not finish.
set -uo pipefail

kd=${LRAID_KDIR:?run me through scripts/vm-run}
fail=0
say() { echo "$1: kunit/$2"; [ "$1" = FAIL ] && fail=1; }

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if ! insmod "$kd/module/lraid.ko"; then
	say FAIL "insmod lraid.ko"
	exit 1
fi
loaded=()
for ko in "$kd"/kunit/*.ko; do
	[ -e "$ko" ] || continue
	name=$(basename "$ko" .ko)
	if insmod "$ko"; then
		loaded+=("$name")
	else
		say FAIL "insmod $name"
	fi
done

nsuites=0
for dir in /sys/kernel/debug/kunit/*/; do
	[ -f "$dir/results" ] || continue
	suite=$(basename "$dir")
	nsuites=$((nsuites + 1))
	# Case lines sit one level (4 spaces) in; deeper ones are parameters.
	planned=$(grep -m1 -E '^    1\.\.[0-9]+' "$dir/results" | sed 's/.*\.\.//')
	seen=0
	while IFS= read -r line; do
		seen=$((seen + 1))
		re='^    (not )?ok [0-9]+ ([^#]*[^ #])( # (SKIP.*))?'
		[[ $line =~ $re ]] || continue
		case_name=${BASH_REMATCH[2]}
		if [ -n "${BASH_REMATCH[4]}" ]; then
			echo "SKIP: kunit/$suite/$case_name (${BASH_REMATCH[4]})"
		elif [ -n "${BASH_REMATCH[1]}" ]; then
			say FAIL "$suite/$case_name"
			sed -n '/^    # '"$case_name"'/,/^    not ok/p' "$dir/results" | tail -20
		else
			say PASS "$suite/$case_name"
		fi
	done < <(grep -E '^    (not )?ok [0-9]+ ' "$dir/results")
	if [ -z "$planned" ] || [ "$seen" != "$planned" ]; then
		say FAIL "$suite (planned ${planned:-?} cases, reported $seen)"
		cat "$dir/results"
	fi
done
[ $nsuites -gt 0 ] || say FAIL "no KUnit suites ran"

for ((i = ${#loaded[@]} - 1; i >= 0; i--)); do
	rmmod "${loaded[i]}" || say FAIL "rmmod ${loaded[i]}"
done
rmmod lraid || say FAIL "rmmod lraid"
exit $fail
