#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make check`: load lraid.ko and every KUnit test module built
# for this kernel (LRAID_KDIR, see scripts/build-for), then read each suite's
# KTAP results from debugfs. Prints PASS:/FAIL:/SKIP: per test case, a SKIP
# per skipped parameter of a parameterised case, and a FAIL for a module
# that does not load or a suite that did not finish. A parity
# implementation (lraid_gf's parameters) skipped on a CPU whose
# /proc/cpuinfo flags list all it needs is a FAIL: its feature check is
# wrong, and its tests did not run.
#
#   scripts/guest/kunit.sh --ktap SUITE FILE   only parse FILE, a saved
#       debugfs kunit/SUITE/results (to test this parser)
set -uo pipefail

fail=0
say() { echo "$1: kunit/$2"; [ "$1" = FAIL ] && fail=1; }

# ktap_suite SUITE FILE: the lines above for one suite's KTAP. Cases sit
# one level (4 spaces) in, after the suite's plan; the parameters of a
# parameterised case one level deeper, before the case's own line, which
# KUnit reports "ok" when no parameter failed, even if some were skipped:
# so each skipped parameter is a SKIP of its own, and the parameters seen
# must add up to the case's "# CASE: pass:P fail:F skip:S total:T" line.
ktap_suite() {
	local suite=$1 file=$2 line planned='' seen=0
	local re_case='^    (not )?ok [0-9]+ ([^#]*[^ #])( # (SKIP.*))?'
	local re_param='^        (not )?ok [0-9]+ ([^#]*[^ #])( # (SKIP.*))?'
	local re_stats='^    # ([^ :]+): pass:([0-9]+) fail:([0-9]+) skip:([0-9]+) total:([0-9]+)$'
	# the case being read: its lines, its parameters, its stats line
	local block=() pass=0 failed=() skipped=() stats=
	while IFS= read -r line; do
		block+=("$line")
		if [ -z "$planned" ] && [[ $line =~ ^'    1..'([0-9]+)$ ]]; then
			planned=${BASH_REMATCH[1]}
		elif [[ $line =~ $re_param ]]; then
			if [ -n "${BASH_REMATCH[4]}" ]; then
				skipped+=("${BASH_REMATCH[2]} (${BASH_REMATCH[4]% })")
			elif [ -n "${BASH_REMATCH[1]}" ]; then
				failed+=("${BASH_REMATCH[2]}")
			else
				pass=$((pass + 1))
			fi
		elif [[ $line =~ $re_stats ]]; then
			stats="${BASH_REMATCH[1]} pass:${BASH_REMATCH[2]} fail:${BASH_REMATCH[3]} skip:${BASH_REMATCH[4]} total:${BASH_REMATCH[5]}"
		elif [[ $line =~ $re_case ]]; then
			seen=$((seen + 1))
			ktap_case "${BASH_REMATCH[2]}" "${BASH_REMATCH[1]:+not ok}" \
				"${BASH_REMATCH[4]% }"
			block=() pass=0 failed=() skipped=() stats=
		fi
	done <"$file"
	if [ -z "$planned" ] || [ "$seen" != "$planned" ]; then
		say FAIL "$suite (planned ${planned:-?} cases, reported $seen)"
		cat "$file"
	fi
}

# gf_flags IMPL: the /proc/cpuinfo flags lraid_gf's IMPL needs
gf_flags() {
	case $1 in
	avx2) echo avx avx2 ;;
	avx512) echo avx avx2 avx512f avx512bw avx512vl ;;
	gfni) echo avx avx2 avx512f avx512bw avx512vl gfni ;;
	*) return 1 ;;
	esac
}

# gf_xstate IMPL: the XSAVE features (the kernel's boot log names those
# it enabled) IMPL's registers need: YMM; AVX-512 adds opmask and ZMM
gf_xstate() {
	case $1 in
	avx2) echo 0x004 ;;
	avx512 | gfni) echo 0x004 0x020 0x040 0x080 ;;
	*) return 1 ;;
	esac
}

# skip_unexplained SUITE PARAM: succeeds, printing the flags, when PARAM
# of SUITE names a parity implementation whose flags the CPU has and
# whose register state the kernel enabled at boot (a CPU that lists a
# flag without its state in XSAVE is not counted). LRAID_CPUINFO and
# LRAID_KLOG: other files for /proc/cpuinfo and the kernel log, to test
# this with --ktap.
skip_unexplained() {
	local need f flags log xs
	[ "$1" = lraid_gf ] || return 1
	need=$(gf_flags "${2%% *}") || return 1
	flags=" $(sed -n 's/^flags[[:space:]]*: //p;T;q' \
		"${LRAID_CPUINFO:-/proc/cpuinfo}") "
	[ "$flags" != "  " ] || return 1
	for f in $need; do
		[[ $flags == *" $f "* ]] || return 1
	done
	if [ -n "${LRAID_KLOG:-}" ]; then
		log=$(cat "$LRAID_KLOG")
	else
		log=$(dmesg 2>/dev/null)
	fi
	xs=$(gf_xstate "${2%% *}") || return 1
	for f in $xs; do
		grep -q "x86/fpu: Supporting XSAVE feature $f" <<<"$log" || return 1
	done
	echo "$need"
}

# ktap_case NAME NOT_OK SKIP: report the case ktap_suite has just read,
# from its locals (suite, block, pass, failed, skipped, stats)
ktap_case() {
	local name=$1 notok=$2 skip=$3 p bad='' has wrong=()
	local np=$((pass + ${#failed[@]} + ${#skipped[@]}))
	local got="pass:$pass fail:${#failed[@]} skip:${#skipped[@]} total:$np"

	for p in "${skipped[@]}"; do
		if has=$(skip_unexplained "$suite" "$p"); then
			wrong+=("${p%% *} (the CPU lists $has)")
		else
			echo "SKIP: kunit/$suite/$name/$p"
		fi
	done
	if [ -n "$stats" ] && [ "$stats" != "$name $got" ]; then
		bad="parameters read $got, KUnit counted ${stats#* }"
	elif [ ${#failed[@]} -gt 0 ]; then
		bad="parameters failed: ${failed[*]}"
	elif [ ${#wrong[@]} -gt 0 ]; then
		bad="skipped on a CPU that has them: ${wrong[*]}"
	elif [ -z "$notok$skip" ] && [ "$np" -gt 0 ] && [ $pass = 0 ]; then
		bad="reported ok, no parameter passed"
	fi
	if [ -n "$bad" ] || [ -n "$notok" ]; then
		say FAIL "$suite/$name${bad:+ ($bad)}"
		printf '%s\n' "${block[@]}" | tail -40
	elif [ -n "$skip" ]; then
		# with parameters, all skipped: their SKIP lines say so
		[ "$np" -gt 0 ] || echo "SKIP: kunit/$suite/$name ($skip)"
	elif [ "$np" -gt 0 ]; then
		say PASS "$suite/$name ($pass of $np parameters, ${#skipped[@]} skipped)"
	else
		say PASS "$suite/$name"
	fi
}

if [ "${1:-}" = --ktap ]; then
	[ $# = 3 ] || { echo "usage: $0 --ktap SUITE FILE" >&2; exit 2; }
	ktap_suite "$2" "$3"
	exit $fail
fi

kd=${LRAID_KDIR:?run me through scripts/vm-run}

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
	ktap_suite "$suite" "$dir/results"
done
[ $nsuites -gt 0 ] || say FAIL "no KUnit suites ran"
# every suite kunit/*_kunit.c declares ran, from a module that was built
for src in "${LRAID_ROOT:?}"/kunit/*_kunit.c; do
	name=$(basename "$src" .c)
	[ -e "$kd/kunit/$name.ko" ] || say FAIL "$name.ko (not built)"
	suite=$(sed -n 's/^[[:space:]]*\.name = "\([^"]*\)",$/\1/p' "$src")
	[ -n "$suite" ] || say FAIL "$name (no suite name found in $src)"
	for suite in $suite; do
		[ -f "/sys/kernel/debug/kunit/$suite/results" ] ||
			say FAIL "$suite (declared in $name.c, did not run)"
	done
done
# the parity suite's random cases repeat with its seed
seed=/sys/module/gf_kunit/parameters/seed
if [ $fail = 1 ] && [ -r $seed ]; then
	echo "gf_kunit ran with seed=$(cat $seed) (insmod gf_kunit.ko seed=... repeats it)"
fi

for ((i = ${#loaded[@]} - 1; i >= 0; i--)); do
	rmmod "${loaded[i]}" || say FAIL "rmmod ${loaded[i]}"
done
rmmod lraid || say FAIL "rmmod lraid"
exit $fail
