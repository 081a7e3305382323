#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Spares at their edges, what 155-spares leaves out. RAID5 x4 on 32 MiB
# null_blk members, 64 KiB chunks, the data written whole by fio and
# compared byte for byte with what the array read right after (lr_snap).
#   - A faulty spare: a spare on a device-mapper device whose table is
#     switched to error meets the superblock pass that records a member's
#     failure: the kernel marks it faulty ("superblock write to spare
#     dm-N failed"), the other spare takes the role, detail shows the dm
#     device "- faulty" (Failed Devices : 1, Spare Devices : 0), list
#     "(F)"; lraidctl monitor reports Fail, FailSpare (the dm device),
#     RebuildStarted, RebuildFinished, SpareActive (the other spare).
#     remove takes the faulty spare out and says its superblock could
#     not be erased (the kernel log too), and it leaves slaves/.
#   - idle during a rebuild onto a spare: the pass stops, the role stays
#     failed, no pass starts again by itself (3 s); the spare added
#     again (lraidctl add, as the tool's message says) is rebuilt for
#     the role from the start; the data reads back, a check finds 0.
#   - Spare groups (lraidctl monitor --spare-group lraid0,lraid1, as
#     mdadm's spare-group): lraid1 (RAID5 x3 on 16 MiB members) has a
#     16 MiB spare; lraid0 loses a member: the monitor tries that spare,
#     lraid0 refuses it (too small), it goes back to lraid1 as a spare
#     and is not tried again (one refusal in the kernel log, no
#     MoveSpare, lraid0 stays degraded 3 s).
#     A 32 MiB spare added to lraid1 moves: MoveSpare /dev/lraid0
#     /dev/lraid1, lraid0 rebuilds onto it (SpareActive), lraid1 keeps
#     the small one; the data reads back, a check finds 0.
#   - Room: members and spares are at most 32. With 3 members and 29
#     spares, a 30th spare is refused (ENOSPC, "no room for another
#     spare: 3 members and 29 spares"); the array is unchanged.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
lr_need fio dmsetup
dmsetup targets 2>/dev/null | grep -q '^error' || lr_skip "no device-mapper error target"

MB=32
TIMEOUT=${LRAID_REBUILD_TIMEOUT:-240}
d=/sys/block/lraid0/lraid

# detail_has ERE: lraidctl detail lraid0 has a line matching ERE
detail_has() {
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" || lr_fail "detail lraid0"
	grep -Eq "$1" "$LR_TMP/detail" ||
		lr_fail "detail: no '$1': $(cat "$LR_TMP/detail")"
}

check_zero() {
	lr_klog_mark
	echo check >"$d/sync_action" || lr_fail "sync_action refused check"
	lr_wait_idle check "$TIMEOUT"
	lr_klog_wait "lraid0: check done" 100
	lr_is mismatch_cnt 0
}

# ---------------------------------------------------------------------
lr_log "a spare whose superblock write fails is marked faulty"
lr_members nullb 6 "$MB"
m=("${LR_M[@]:0:4}")
under=${LR_M[4]}
s2=${LR_M[5]}
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
lr_fio /dev/lraid0 fill --rw=write --bs=256k --iodepth=4 --do_verify=0
lr_snap data
sectors=$(lr_sectors "$(lr_name "$under")")
lr_dm lrspare "0 $sectors linear $under 0" || lr_fail "dmsetup create lrspare"
s1=$LR_DEV
"$LRAIDCTL" add lraid0 "$s1" >"$LR_TMP/out" 2>&1 || lr_fail "add $s1: $(cat "$LR_TMP/out")"
grep -q "as a spare" "$LR_TMP/out" || lr_fail "add $s1: $(cat "$LR_TMP/out")"
"$LRAIDCTL" add lraid0 "$s2" >"$LR_TMP/out" 2>&1 || lr_fail "add $s2: $(cat "$LR_TMP/out")"
cat >"$LR_TMP/prog" <<EOF
#!/bin/sh
echo "\$*" >>"$LR_TMP/events"
EOF
chmod +x "$LR_TMP/prog"
"$LRAIDCTL" monitor --scan --test --delay 1 --program "$LR_TMP/prog" &
LR_PIDS+=($!)
lr_wait_line "$LR_TMP/events" "TestMessage /dev/lraid0"
{ dmsetup suspend --noudevsync lrspare &&
	echo "0 $sectors error" | dmsetup load lrspare &&
	dmsetup resume --noudevsync lrspare; } || lr_fail "dm table to error"
# slow enough for the monitor to see the pass (one between two looks is
# not reported)
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
lr_klog_mark
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
lr_klog_wait "lraid0: superblock write to spare $(lr_name "$s1") failed: -5; the spare is marked faulty" 100
lr_klog_wait "lraid0: spare $(lr_name "$s2") takes role 2, rebuilding it" 100
lr_wait_idle "rebuild onto $s2" "$TIMEOUT"
lr_klog_wait "lraid0: recover done: $(lr_name "$s2") \\(role 2\\) is in sync" 100
lr_is degraded 0
echo system >"$d/sync_speed_max"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $s2"
for e in "Fail /dev/lraid0 ${m[2]}" "FailSpare /dev/lraid0 $s1" \
	"RebuildStarted /dev/lraid0" "RebuildFinished /dev/lraid0"; do
	grep -qxF "$e" "$LR_TMP/events" || lr_fail "no '$e': $(cat "$LR_TMP/events")"
done
m[2]=$s2
detail_has "^ +[0-9]+ +[0-9]+ +[0-9]+ +- faulty +$s1\$"
detail_has "^ +Failed Devices : 1\$"
detail_has "^ +Spare Devices : 0\$"
"$LRAIDCTL" list | grep -q " $(lr_name "$s1")\\[[0-9]*\\](F)" ||
	lr_fail "list: $("$LRAIDCTL" list)"
lr_snap_cmp data "rebuilt past a faulty spare"
lr_klog_mark
"$LRAIDCTL" remove lraid0 "$s1" >"$LR_TMP/out" 2>&1 ||
	lr_fail "remove the faulty spare: $(cat "$LR_TMP/out")"
grep -q "removed spare $s1 from lraid0 (its superblock could not be erased" \
	"$LR_TMP/out" || lr_fail "remove said '$(cat "$LR_TMP/out")'"
lr_klog_wait "lraid0: spare $(lr_name "$s1") removed; erasing its superblock failed" 100
[ ! -e "/sys/block/lraid0/slaves/$(lr_name "$s1")" ] ||
	lr_fail "$s1 still among lraid0's slaves"
detail_has "^ +Failed Devices : 0\$"
kill "${LR_PIDS[0]}"
wait "${LR_PIDS[0]}" || true

# ---------------------------------------------------------------------
lr_log "idle during a rebuild onto a spare; the spare added again"
lr_nullb nullb6 "$MB"
s3=$LR_DEV
"$LRAIDCTL" add lraid0 "$s3" >/dev/null 2>&1 || lr_fail "add $s3"
echo 1000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 1000"
lr_klog_mark
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
lr_klog_wait "lraid0: spare $(lr_name "$s3") takes role 1, rebuilding it" 100
sleep 1
"$LRAIDCTL" action idle lraid0 >"$LR_TMP/out" 2>&1 || lr_fail "action idle: $(cat "$LR_TMP/out")"
lr_klog_wait "lraid0: recover stopped at stripe [0-9]+ of [0-9]+: interrupted; role 1 stays failed" 100
lr_is sync_action idle
sleep 3
lr_is sync_action idle
lr_is degraded 1
lr_klog_has -E "rebuilding role 1 onto .* again" &&
	lr_fail "the rebuild started again after idle: $(lr_klog | tail -3)"
echo system >"$d/sync_speed_max"
lr_klog_mark
"$LRAIDCTL" add lraid0 "$s3" >"$LR_TMP/out" 2>&1 || lr_fail "add $s3 again: $(cat "$LR_TMP/out")"
grep -q "added $s3 to lraid0: rebuilding role 1" "$LR_TMP/out" ||
	lr_fail "add $s3 again said '$(cat "$LR_TMP/out")'"
lr_wait_idle "rebuild of role 1 onto $s3 again" "$TIMEOUT"
lr_klog_wait "lraid0: recover done: $(lr_name "$s3") \\(role 1\\) is in sync" 100
lr_is degraded 0
m[1]=$s3
lr_snap_cmp data "rebuilt onto the spare after idle"
check_zero

# ---------------------------------------------------------------------
lr_log "spare groups (monitor --spare-group): a spare moves to lraid0"
dev() {
	lr_nullb "nullb${#LR_NULLB[@]}" "$1"
}
g=()
for _ in 1 2 3; do
	dev 16
	g+=("$LR_DEV")
done
dev 16
small=$LR_DEV
lr_create lraid1 --level 5 --chunk 64K --spare-devices 1 "${g[@]}" "$small"
: >"$LR_TMP/events"
"$LRAIDCTL" monitor lraid0 lraid1 --spare-group lraid0,lraid1 --test \
	--delay 1 --program "$LR_TMP/prog" &
LR_PIDS+=($!)
lr_wait_line "$LR_TMP/events" "TestMessage /dev/lraid1"
# lraid1's only spare is too small for lraid0: tried, put back, not again
lr_klog_mark
"$LRAIDCTL" fail lraid0 "${m[3]}" || lr_fail "fail ${m[3]}"
lr_klog_wait "lraid0: add: $(lr_name "$small") has [0-9]+ sectors, the data area needs [0-9]+" 100
end=$((SECONDS + 20))
until "$LRAIDCTL" detail lraid1 | grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +- spare +$small\$"; do
	[ $SECONDS -lt $end ] || lr_fail "$small not back as lraid1's spare: $("$LRAIDCTL" detail lraid1)"
	sleep 0.2
done
sleep 3
lr_is degraded 1
grep -q "^MoveSpare" "$LR_TMP/events" && lr_fail "a spare moved that does not fit: $(cat "$LR_TMP/events")"
# offered once: a monitor that offered it again would be refused again
n=$(lr_klog | grep -cE "lraid0: add: $(lr_name "$small") has [0-9]+ sectors") || true
[ "$n" = 1 ] || lr_fail "the small spare was offered to lraid0 $n times"
"$LRAIDCTL" detail lraid1 | grep -Eq "^ +Spare Devices : 1\$" ||
	lr_fail "lraid1 lost its small spare: $("$LRAIDCTL" detail lraid1)"
# a spare that fits, added to lraid1, moves to lraid0 and rebuilds role 3
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
dev "$MB"
big=$LR_DEV
"$LRAIDCTL" add lraid1 "$big" >"$LR_TMP/out" 2>&1 || lr_fail "add $big to lraid1: $(cat "$LR_TMP/out")"
lr_wait_line "$LR_TMP/events" "MoveSpare /dev/lraid0 /dev/lraid1"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $big"
lr_wait_idle "rebuild of role 3 onto $big" "$TIMEOUT"
lr_is degraded 0
echo system >"$d/sync_speed_max"
while read -r l; do lr_log "event: $l"; done <"$LR_TMP/events"
m[3]=$big
"$LRAIDCTL" detail lraid1 | grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +- spare +$small\$" ||
	lr_fail "lraid1: $("$LRAIDCTL" detail lraid1)"
lr_snap_cmp data "rebuilt onto a spare moved from lraid1"
check_zero
"$LRAIDCTL" stop lraid1 >/dev/null || lr_fail "stop lraid1"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()

# ---------------------------------------------------------------------
lr_log "room: 3 members and 29 spares, a 30th refused"
lr_nullb_drop || lr_fail "null_blk devices still held"
lr_members nullb 33 8
lr_create lraid0 --level 5 --chunk 64K --spare-devices 29 "${LR_M[@]:0:32}"
detail_has "^ +Spare Devices : 29\$"
rc=0
"$LRAIDCTL" add lraid0 "${LR_M[32]}" >"$LR_TMP/out" 2>&1 || rc=$?
[ "$rc" = 1 ] || lr_fail "a 30th spare: exit $rc: $(cat "$LR_TMP/out")"
if ! grep -q "No space left on device" "$LR_TMP/out" ||
	! grep -q "lraid0 has no room for another spare: 3 members and 29 spares, the 32 devices an array can have" \
		"$LR_TMP/out"; then
	lr_fail "a 30th spare: '$(cat "$LR_TMP/out")'"
fi
detail_has "^ +Spare Devices : 29\$"
detail_has "^ +Total Devices : 32\$"
python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDWR | os.O_EXCL))' \
	"${LR_M[32]}" || lr_fail "${LR_M[32]} held after the refusal"
lr_log "spare edges: all as expected"
