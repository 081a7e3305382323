#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A member whose I/O stops completing without failing (dm-multipath with
# queue_if_no_path, NVMe-oF waiting for its path; here a suspended
# device-mapper device) stalls the commands on its own array only, as md's
# per-array lock does. lraid0 (RAID5 x4) has such a member, lraid1 is
# another array.
#  A fail of another lraid0 member waits on the stalled member's
#  superblock write; meanwhile detail of lraid0 answers (and shows the
#  member faulty), lraid1 answers detail and loses a member, which its
#  survivors record, and a third array is created, written and stopped.
#  The stalled member comes back: the fail completes and is recorded.
#  A stop of lraid0 waits the same way; meanwhile lraid0 is no longer
#  listed, lraid1 answers and stops, a second stop of lraid0 waits for
#  the first and can be killed, a create of index 0 waits, and lraid0's
#  members cannot be assembled elsewhere. The stalled member comes back:
#  the stop completes, then the create; that array is stopped, and
#  lraid0 assembles from its members, clean, with the failed one left
#  out, and reads back what was written.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
command -v dmsetup >/dev/null 2>&1 || lr_skip "no dmsetup"
# whatever fails, the suspended device must answer again for the cleanup
trap 'dmsetup resume --noudevsync lrstall >/dev/null 2>&1; lr_cleanup' EXIT

mib=24
img=$LR_TMP/img
lr_members nullb 10 48
lr_dm lrstall "0 $((48 * 2048)) linear ${LR_M[0]} 0" ||
	lr_fail "dm-linear over ${LR_M[0]}"
a0=("$LR_DEV" "${LR_M[@]:1:3}")
a1=("${LR_M[@]:4:3}")
a2=("${LR_M[@]:7:3}")

# answers WHAT CMD...: CMD succeeds within 30 s, without waiting for the
# stalled member (if it does wait, the member is let go so that the
# scenario ends)
answers() {
	local what=$1 pid rc=0
	shift
	"$@" >"$LR_TMP/out" 2>&1 &
	pid=$!
	if ! lr_wait_end "$pid" 30; then
		dmsetup resume --noudevsync lrstall
		wait "$pid" || true
		lr_fail "$what waited for lraid0's stalled member"
	fi
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { cat "$LR_TMP/out"; lr_fail "$what: exit $rc"; }
}

# waiting PID WHAT: PID is still running a second later (it waits for the
# stalled member)
waiting() {
	sleep 1
	lr_running "$1" || lr_fail "$2 did not wait for the suspended member"
}

# ended PID WHAT: PID ends within 30 s, successfully
ended() {
	local rc=0
	lr_wait_end "$1" 30 ||
		lr_fail "$2 still waiting after the member came back"
	wait "$1" || rc=$?
	[ "$rc" = 0 ] || { cat "$LR_TMP/$2.out"; lr_fail "$2: exit $rc"; }
}

lr_create lraid0 --level 5 --chunk 64K --assume-clean "${a0[@]}"
lr_create lraid1 --level 5 --chunk 64K --assume-clean "${a1[@]}"
head -c $((mib << 20)) /dev/urandom >"$img"
dd if="$img" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write lraid0"
want=$(sha256sum <"$img" | cut -d' ' -f1)

lr_log "fail in lraid0 while one of its members stalls"
dmsetup suspend --noudevsync --noflush lrstall || lr_fail "dmsetup suspend"
"$LRAIDCTL" fail lraid0 "${a0[1]}" >"$LR_TMP/fail.out" 2>&1 &
fpid=$!
for _ in $(seq 100); do
	answers "detail lraid0 during its fail" "$LRAIDCTL" detail lraid0
	grep -q faulty "$LR_TMP/out" && break
	sleep 0.1
done
grep -q faulty "$LR_TMP/out" || lr_fail "lraid0 shows no faulty member"
waiting "$fpid" "fail in lraid0"
answers "detail lraid1" "$LRAIDCTL" detail lraid1
answers "fail in lraid1" "$LRAIDCTL" fail lraid1 "${a1[2]}"
for d in "${a1[@]:0:2}"; do
	[ "$(lr_sb_num "$d" failed_mask)" = 4 ] ||
		lr_fail "lraid1's survivor $d does not record its failed member"
done
answers "create lraid2" "$LRAIDCTL" create --run lraid2 --level 5 \
	--assume-clean "${a2[@]}"
LR_ARRAYS+=(lraid2)
lr_settle
answers "write lraid2" dd if="$img" of=/dev/lraid2 bs=1M count=4 \
	oflag=direct status=none
answers "stop lraid2" "$LRAIDCTL" stop lraid2
lr_running "$fpid" || lr_fail "the fail in lraid0 ended before the checks did"
dmsetup resume --noudevsync lrstall || lr_fail "dmsetup resume"
ended "$fpid" fail
for d in "${a0[0]}" "${a0[2]}" "${a0[3]}"; do
	[ "$(lr_sb_num "$d" failed_mask)" = 2 ] ||
		lr_fail "lraid0's survivor $d does not record its failed member"
done

lr_log "stop of lraid0 while one of its members stalls"
dmsetup suspend --noudevsync --noflush lrstall || lr_fail "dmsetup suspend"
"$LRAIDCTL" stop lraid0 >"$LR_TMP/stop.out" 2>&1 &
spid=$!
# the array leaves the list before its superblocks are written
for _ in $(seq 100); do
	rc=0
	timeout 30 "$LRAIDCTL" detail lraid0 >"$LR_TMP/out" 2>&1 || rc=$?
	[ "$rc" = 124 ] && lr_fail "detail lraid0 waited for its stop"
	[ "$rc" != 0 ] && break
	sleep 0.1
done
grep -qF "(array not running)" "$LR_TMP/out" ||
	lr_fail "detail lraid0 during its stop: $(cat "$LR_TMP/out")"
waiting "$spid" "stop of lraid0"
answers "detail lraid1" "$LRAIDCTL" detail lraid1
answers "stop lraid1" "$LRAIDCTL" stop lraid1
"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 &
pid=$!
waiting "$pid" "a second stop of lraid0"
kill "$pid"
lr_wait_end "$pid" 10 || lr_fail "a second stop of lraid0 could not be killed"
wait "$pid" 2>/dev/null || true
# a create of index 0 (over lraid2's old members) waits for the stop too
"$LRAIDCTL" create --run lraid0 --level 5 --chunk 64K --assume-clean \
	"${a2[@]}" >"$LR_TMP/create.out" 2>&1 &
cpid=$!
waiting "$cpid" "a create of lraid0"
# (the stalled member itself is left out: a read of it would wait too)
rc=0
LR_ARRAYS+=(lraid3)
timeout 30 "$LRAIDCTL" assemble --run lraid3 "${a0[@]:1}" \
	>"$LR_TMP/out" 2>&1 || rc=$?
[ "$rc" != 124 ] || lr_fail "assemble of lraid0's members waited"
if [ "$rc" = 0 ] || [ -e /dev/lraid3 ]; then
	lr_fail "lraid0's members were assembled as lraid3 during its stop"
fi
grep -q "busy" "$LR_TMP/out" || lr_fail "assemble lraid3: $(cat "$LR_TMP/out")"
lr_running "$spid" || lr_fail "the stop of lraid0 ended before the checks did"
dmsetup resume --noudevsync lrstall || lr_fail "dmsetup resume"
ended "$spid" stop
ended "$cpid" create
lr_settle
"$LRAIDCTL" detail lraid0 >"$LR_TMP/out"
grep -qF "${a2[0]}" "$LR_TMP/out" ||
	lr_fail "lraid0 is not the array created after the stop: $(cat "$LR_TMP/out")"
"$LRAIDCTL" stop lraid0 || lr_fail "stop the new lraid0"

lr_log "lraid0 assembles clean, without its failed member"
[ "$(lr_sb_num "${a0[0]}" events)" = "$(lr_sb_num "${a0[2]}" events)" ] ||
	lr_fail "the stalled member missed the stop's superblock"
lr_klog_mark
"$LRAIDCTL" assemble --run lraid0 "${a0[@]}" >"$LR_TMP/out" 2>&1 ||
	{ cat "$LR_TMP/out"; lr_fail "assemble lraid0"; }
lr_settle
"$LRAIDCTL" detail lraid0 >"$LR_TMP/out"
grep -q degraded "$LR_TMP/out" || lr_fail "lraid0 is not degraded: $(cat "$LR_TMP/out")"
[ "$(lr_sha /dev/lraid0 $((mib * 2048)))" = "$want" ] ||
	lr_fail "lraid0 reads back other data"
lr_klog_has "not stopped cleanly" && lr_fail "lraid0 was not stopped cleanly"
echo "PASS: a stalled member stalls its own array's commands only"
