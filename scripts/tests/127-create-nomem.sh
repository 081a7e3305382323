#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Create and assemble with each of their allocations failing in turn. The
# kernel's fail-nth (/proc/thread-self/fail-nth) fails the n-th slab or
# page allocation that lraidctl's thread makes inside the ioctl, sleeping
# ones included; tools/failnth.so (LD_PRELOAD) sets it around the ioctl
# and says whether that allocation was reached. For n = 1, 2, ... until it
# is not reached; where there are more than 4E, the first and last E and
# 2E between them: E is 32 in make check-full (16 on the debug kernel), 12
# in make check. On RAID5 x4 (create, then assemble of what was
# created) and RAID6 x5 with a member missing (degraded assembly):
#   - a create or assemble that fails says so (lraidctl: ...), leaves no
#     disk, no holder link and no superblock marked active behind, and the
#     members can be opened exclusively again (the next n creates on them);
#   - one that succeeds despite the failure (a fallback took over) gives an
#     array that reads, an assembled one what was written before the walk;
#   - after the walk the array assembles and reads back what was written
#     before it (sha256), so a failed assembly damaged no superblock;
#   - a degraded start that fails after marking the members active (the
#     last E points that fail it, each from the superblocks create wrote)
#     records no role failed, and all five members then assemble whole;
#     the points after those, the holder links (the disk is live by
#     then), fail no start: each is logged, and the array runs;
#   - on RAID5 x4 with one role recorded failed and another stale, a
#     forced start that fails that late records both failed, so the stale
#     one is not used again without --force.
# The runner reads the kernel log for splats afterwards (kmemleak, KASAN
# and lockdep on the debug kernel).
# kernels: test debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
preload=$(dirname "$LRAIDCTL")/failnth.so
[ -f "$preload" ] || lr_skip "no $preload (make -C tools)"
[ -e /proc/thread-self/fail-nth ] ||
	lr_skip "no fail-nth in this kernel (CONFIG_FAULT_INJECTION)"
lr_need_faults
dbg=$LR_DEBUGFS

# sleeping allocations too (fail-nth ignores probability and task filter)
waits() {
	echo "$1" >"$dbg/failslab/ignore-gfp-wait"
	echo "$1" >"$dbg/fail_page_alloc/ignore-gfp-wait"
}
trap 'waits Y 2>/dev/null; lr_cleanup' EXIT
echo 0 >"$dbg/failslab/probability"
echo 0 >"$dbg/fail_page_alloc/probability"
echo 0 >"$dbg/fail_page_alloc/min-order"
waits N

# clean MEMBER...: no lraid0, no member held by anything, and none whose
# superblock says active (a start that failed after marking the members
# active writes their clean state back: left active, the array would be
# refused when assembled degraded, as one that crashed)
# (globs and one examine for all, not a process per member: ~1500 runs)
clean() {
	local d h act
	[ ! -e /sys/block/lraid0 ] || lr_fail "n=$n: lraid0 left behind"
	for d in "$@"; do
		h=("/sys/block/${d##*/}/holders/"*)
		[ ! -e "${h[0]}" ] || lr_fail "n=$n: ${d##*/} still held: ${h[*]}"
	done
	act=$("$LRAIDCTL" examine --json "$@" 2>/dev/null |
		grep '"state": "active"') || true
	[ -z "$act" ] || lr_fail "n=$n: left marked active: $act"
}

# points T: which of T allocation points to fail: the first E and the
# last E (setup and the disk going live, where the unwinding is longest)
# and 2E spread evenly between them; all of them if T <= 4E. In full mode E
# is 32, 16 on the debug kernel, where KASAN and lockdep double the points
# and slow each run down. make check takes 12: each run is an exec of
# lraidctl and a settle, and 3 x 128 of them took 405 s under TCG.
e=12
if lr_full; then
	e=32
	[ "${LRAID_KVER:-}" != debug ] || e=16
fi
points() {
	local t=$1 i
	if [ "$t" -le $((4 * e)) ]; then
		seq 1 "$t"
		return
	fi
	seq 1 "$e"
	for i in $(seq 1 $((2 * e))); do
		echo $((e + i * (t - 2 * e) / (2 * e + 1)))
	done
	seq $((t - e + 1)) "$t"
}

# count LRAIDCTL-ARGS...: the allocation points of one run with none
# failing (the array is stopped again)
count() {
	local out c
	out=$(LD_PRELOAD=$preload LRAIDCTL_FAIL_NTH=100000000 \
		"$LRAIDCTL" "$@" 2>&1) || lr_fail "$*: $out"
	c=$(echo "$out" | sed -n 's/^fail-nth: not reached, \([0-9]*\) points$/\1/p')
	[ "${c:-0}" -gt 0 ] || lr_fail "$*: no allocation point counted: $out"
	lr_settle
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
	echo "$c"
}

# walk MEMBERS-VAR LRAIDCTL-ARGS...: count the allocation points of
# lraidctl ARGS (the fewer of two runs: a first one may fill caches the
# next ones find full), then run it with each of points() failing; each
# failed run must leave things clean. Leaves the array up. Sets TOTAL,
# FIRED and ABSORBED (runs that failed an allocation and still succeeded).
walk() {
	local -n mem=$1
	local out rc c
	shift
	n=0
	TOTAL=$(count "$@")
	c=$(count "$@")
	[ "$c" -ge "$TOTAL" ] || TOTAL=$c
	FIRED=0
	ABSORBED=0
	for n in $(points "$TOTAL"); do
		rc=0
		out=$(LD_PRELOAD=$preload LRAIDCTL_FAIL_NTH=$n \
			"$LRAIDCTL" "$@" 2>&1) || rc=$?
		lr_settle
		echo "$out" | grep -q "^fail-nth: " ||
			lr_fail "n=$n: the preload did not run: $out"
		if ! echo "$out" | grep -q "^fail-nth: fired"; then
			# the count varies a little (slab refills): past the end
			[ "$rc" = 0 ] || lr_fail "n=$n: $* failed with nothing injected: $out"
		elif [ "$rc" = 0 ]; then
			FIRED=$((FIRED + 1))
			ABSORBED=$((ABSORBED + 1))
		else
			FIRED=$((FIRED + 1))
			echo "$out" | grep -q "lraidctl: " ||
				lr_fail "n=$n: failed without an error message: $out"
		fi
		if [ "$rc" = 0 ]; then
			[ -b /dev/lraid0 ] || lr_fail "n=$n: succeeded without /dev/lraid0"
			# it works: it reads, and an assembled one what it held
			got=$(data lraid0) || lr_fail "n=$n: the array does not read"
			[ -z "${want:-}" ] || [ "$got" = "$want" ] ||
				lr_fail "n=$n: assembled despite the failure, reads other data"
			"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "n=$n: stop"
		fi
		clean "${mem[@]}"
	done
	"$LRAIDCTL" "$@" >/dev/null || lr_fail "$* after the walk"
	LR_ARRAYS=(lraid1 lraid0)
	lr_settle
}

# data ARRAY: sha256 of the first 8 MiB of ARRAY
data() {
	head -c 8M "/dev/$1" | sha256sum | cut -d' ' -f1
}

# A second array stays up throughout: its bio sets keep the bio slabs
# that lraid0's use alive, so a failed allocation never lands inside
# kmem_cache_create(). There 6.12 leaks the slab's sysfs name when
# kobject_init_and_add() fails (sysfs_slab_add() has no kobject_put()),
# which kmemleak on the debug kernel reports: the kernel's leak, not
# lraid's, and not an error path of lraid's.
lr_members nullb 3 16
lr_create lraid1 --level 5 --assume-clean "${LR_M[@]}"

lr_log "RAID5 x4: create"
lr_members nullb 4 64
m5=("${LR_M[@]}")
walk m5 create --run lraid0 --level 5 --chunk 64K "${m5[@]}"
lr_log "create: $TOTAL allocation points, $FIRED of them failed in turn ($ABSORBED absorbed)"
dd if=/dev/urandom of=/dev/lraid0 bs=1M count=8 oflag=direct status=none ||
	lr_fail "write"
want=$(data lraid0)
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=(lraid1)

lr_log "RAID5 x4: assemble"
walk m5 assemble lraid0 "${m5[@]}"
lr_log "assemble: $TOTAL allocation points, $FIRED of them failed in turn ($ABSORBED absorbed)"
[ "$(data lraid0)" = "$want" ] || lr_fail "RAID5 reads other data after the walk"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=(lraid1)

# raid6: RAID6 x5 (chunk 64K) on new members, m6, holding 8 MiB written
# at random, their sha256 in want; stopped
raid6() {
	lr_members nullb 5 64
	m6=("${LR_M[@]}")
	lr_create lraid0 --level 6 --chunk 64K "${m6[@]}"
	dd if=/dev/urandom of=/dev/lraid0 bs=1M count=8 oflag=direct \
		status=none || lr_fail "write"
	want=$(data lraid0)
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
	LR_ARRAYS=(lraid1)
}

lr_log "RAID6 x5, one member missing: degraded assemble"
raid6
m6=("${m6[0]}" "${m6[1]}" "${m6[3]}" "${m6[4]}")
walk m6 assemble --run lraid0 "${m6[@]}"
lr_log "degraded assemble: $TOTAL allocation points, $FIRED of them failed in turn ($ABSORBED absorbed)"
[ "$(data lraid0)" = "$want" ] || lr_fail "RAID6 reads other data after the walk"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=(lraid1)

# A degraded start that fails once the members were marked active (the
# last E allocation points: the disk going live) must leave the member it
# lacked usable: recorded failed, it would stay out of the array for good
# although the array never ran. Before each run the members' superblocks
# go back to how create left them (no role recorded failed); a run that
# got that far has moved the events on by one.
lr_log "RAID6 x5, one member missing: degraded starts failing late"
raid6
lr_sb_save "${m6[@]}"
# events and failed_mask of MEMBER's superblock
sbstate() {
	"$LRAIDCTL" examine --json "$1" |
		sed -n 's/.*"events": \([0-9]*\), "failed_mask": \([0-9]*\).*/\1 \2/p'
}
# late SAVED CHECKED CHECK LRAIDCTL-ARGS...: lraidctl ARGS with its
# allocation points failing one per run from the last backwards (every
# third past a run that started), until E runs have failed or an eighth of
# the points is passed: the last points are the holder links, made once
# the disk is live, whose failure the start absorbs. Each run starts from
# the superblocks lr_sb_save kept of the members in array SAVED. A run
# that failed must leave the members in array CHECKED clean; one that
# failed after marking the members active (events past ev0 on SAVED's
# first) is counted in REACHED and checked by the function CHECK (with n,
# and fm the failed_mask that run left). A run whose kernel log says a
# holder link could not be made (the disk was live by then) must have
# started. Sets TRIED, and LINKS: the runs that failed a holder link.
late() {
	local -n late_sv=$1 late_ck=$2
	local check=$3 rc out ev failed=0 step
	shift 3
	TOTAL=$(count "$@")
	REACHED=0
	TRIED=0
	LINKS=0
	# past a run that started (the holder links), every third point only
	for ((n = TOTAL; n >= 1 && n > TOTAL - TOTAL / 8 && failed < e; n -= step)); do
		step=1
		TRIED=$((TRIED + 1))
		lr_sb_restore "${late_sv[@]}"
		rc=0
		lr_klog_mark
		out=$(LD_PRELOAD=$preload LRAIDCTL_FAIL_NTH=$n \
			"$LRAIDCTL" "$@" 2>&1) || rc=$?
		lr_settle
		if lr_klog_has "cannot link holder of"; then
			LINKS=$((LINKS + 1))
			[ "$rc" = 0 ] ||
				lr_fail "n=$n: a start failed at a holder link, with the disk live: $out"
		fi
		if [ "$rc" = 0 ]; then
			"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "n=$n: stop"
			step=3
			continue
		fi
		failed=$((failed + 1))
		clean "${late_ck[@]}"
		read -r ev fm < <(sbstate "${late_sv[0]}") ||
			lr_fail "n=$n: examine ${late_sv[0]}"
		[ "$ev" -gt "$ev0" ] || continue
		REACHED=$((REACHED + 1))
		"$check"
	done
}
read -r ev0 fm < <(sbstate "${m6[0]}") || lr_fail "examine ${m6[0]}"
[ "$fm" = 0 ] || lr_fail "a new array records failed roles: $fm"
part=("${m6[0]}" "${m6[1]}" "${m6[3]}" "${m6[4]}")
late_degraded() {
	[ "$fm" = 0 ] ||
		lr_fail "n=$n: a degraded start that failed recorded roles $fm failed"
	"$LRAIDCTL" assemble lraid0 "${m6[@]}" >/dev/null ||
		lr_fail "n=$n: all five do not assemble after a failed degraded start"
	LR_ARRAYS=(lraid1 lraid0)
	out=$("$LRAIDCTL" detail --json lraid0)
	! grep -Eq 'degraded|FAILED|missing|faulty' <<<"$out" ||
		lr_fail "n=$n: after a failed degraded start, all five assemble as: $out"
	[ "$(data lraid0)" = "$want" ] || lr_fail "n=$n: RAID6 reads other data"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "n=$n: stop"
	LR_ARRAYS=(lraid1)
}
late m6 m6 late_degraded assemble --run lraid0 "${part[@]}"
lr_log "degraded starts failing late: of the last $TRIED points, $REACHED failed the start after marking the members active, $LINKS a holder link"
[ "$REACHED" -gt 0 ] ||
	lr_fail "no failed degraded start got as far as marking the members active"
# the disk is live when the holder links are made (it may have taken
# writes the missing member missed): one not made is logged, and the
# start goes on (checked in late)
[ "$LINKS" -gt 0 ] || lr_fail "no run failed a holder link"

# A forced start that fails late must not leave the member --force took
# back looking fresh: recorded as working at the new event count, it would
# be used by the next assembly without --force, its missed writes unseen.
# RAID5 x4 with role 3 recorded failed and role 2 given back a superblock
# from before the last two passes (stale, not recorded failed): only
# --force starts it, with role 2.
lr_log "RAID5 x4, a stale member taken back by --force: starts failing late"
lr_members nullb 4 64
mf=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 64K "${mf[@]}"
"$LRAIDCTL" fail lraid0 "${mf[3]}" >/dev/null || lr_fail "fail ${mf[3]}"
dd if="${mf[2]}" of="$LR_TMP/sb-old2" bs=4096 count=1 iflag=direct \
	status=none || lr_fail "save the superblock of ${mf[2]}"
dd if=/dev/urandom of=/dev/lraid0 bs=1M count=8 oflag=direct status=none ||
	lr_fail "write"
want=$(data lraid0)
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
"$LRAIDCTL" assemble lraid0 "${mf[@]:0:3}" >/dev/null ||
	lr_fail "assemble without the failed role"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=(lraid1)
dd if="$LR_TMP/sb-old2" of="${mf[2]}" bs=4096 count=1 oflag=direct \
	conv=notrunc status=none || lr_fail "write back the old superblock"
! "$LRAIDCTL" assemble --run lraid0 "${mf[@]}" >/dev/null 2>&1 ||
	lr_fail "RAID5 with a failed and a stale role assembled without --force"
lr_sb_save "${mf[@]}"
read -r ev0 fm < <(sbstate "${mf[0]}") || lr_fail "examine ${mf[0]}"
[ "$fm" = 8 ] || lr_fail "role 3 not recorded failed: $fm"
# (role 3's superblock stays as it was when it failed: marked active)
# shellcheck disable=SC2034 # used through late()'s nameref
survivors=("${mf[@]:0:3}")
late_forced() {
	[ "$fm" = 12 ] ||
		lr_fail "n=$n: a forced start that failed recorded failed roles $fm, not 12 (2 and 3)"
	! "$LRAIDCTL" assemble --run lraid0 "${mf[@]}" >/dev/null 2>&1 ||
		lr_fail "n=$n: after a failed forced start, the array assembles without --force"
}
late mf survivors late_forced assemble --force lraid0 "${mf[@]}"
lr_log "forced starts failing late: of the last $TRIED points, $REACHED failed the start after marking the members active"
[ "$REACHED" -gt 0 ] ||
	lr_fail "no failed forced start got as far as marking the members active"
lr_sb_restore "${mf[@]}"
"$LRAIDCTL" assemble --force lraid0 "${mf[@]}" >/dev/null 2>&1 ||
	lr_fail "assemble --force after the walk"
LR_ARRAYS=(lraid1 lraid0)
[ "$(data lraid0)" = "$want" ] || lr_fail "RAID5 reads other data after --force"
echo "PASS: every allocation of create and assemble may fail: clean error, nothing left, nothing lost"
