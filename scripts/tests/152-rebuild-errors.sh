#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A rebuild (lraidctl add, md's recover) meets errors. RAID5 x4 at 64 KiB
# on lraid-bad targets (tests/badblk) over null_blk, 24 MiB written
# (fio crc32c), and a fifth such device to add.
#   - The added device fails every write (fail_writes): from the start,
#     the add is refused (EIO: the erase of its superblock block failed)
#     and role 1 keeps its failed member. Once its rebuild runs (held to
#     100 KiB/s) past stripe 1, one 4 KiB write to stripe 0 fails on it
#     alone (fail_writes on around the write): the write succeeds (it
#     stands on the others), and the rebuild, which would not write
#     stripe 0 again, stops ("recover stopped at stripe S of N: the new
#     member failed; role 1 stays failed"), sysfs failed
#     still lists role 1, detail shows the device faulty in role 1, no
#     superblock of the array is on it, and the data reads back
#     (degraded). With its writes working again, the same device added
#     again is rebuilt ("recover done"), a check finds 0 and the data
#     verifies.
#   - A survivor cannot read a range of stripe 5 (role 0, 8 sectors):
#     with role 2 failed, the rebuild onto role 2's own device stops
#     there ("recover: read error ... role 2 cannot be rebuilt there",
#     "recover stopped at stripe 5 of N: a member failed a read"), role
#     2 stays failed, role 0 stays in the array with its read error
#     counted. With the range readable again, the rebuild is done, a
#     check finds 0 and the data verifies.
#   - RAID6 x5 on the same devices, role 2 failed and added back, role 0
#     unreadable in the same range: Q leaves room, so the rebuild reads
#     around it ("read error ... rebuilt from the others"), writes role
#     0's sectors back ("read error corrected", none left bad in the
#     target), counts the error against role 0, and is done; a check
#     finds 0 and the data verifies.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio dmsetup
lr_setup

d=/sys/block/lraid0/lraid
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=4k-192k --size=24M \
		--iodepth=8 "$@"
}

# done_wait: sync_action reads idle within 120 s
done_wait() {
	local end=$((SECONDS + 120))
	while [ "$(cat "$d/sync_action")" != idle ]; do
		[ $SECONDS -lt $end ] || lr_fail "pass still running after 120 s"
		sleep 0.2
	done
}

# rebuild DEV ROLE: DEV added, rebuilt into ROLE; a check then finds 0
rebuild() {
	lr_klog_mark
	"$LRAIDCTL" add lraid0 "$1" >/dev/null 2>&1 || lr_fail "add $1"
	done_wait
	lr_klog_has "lraid0: recover done: .* (role $2) is in sync" ||
		lr_fail "add $1: no 'recover done' for role $2: $(lr_klog | tail -4)"
	[ "$(cat "$d/failed")" = "" ] || lr_fail "failed reads '$(cat "$d/failed")'"
	echo check >"$d/sync_action"
	done_wait
	[ "$(cat "$d/mismatch_cnt")" = 0 ] ||
		lr_fail "check after the rebuild: mismatch_cnt $(cat "$d/mismatch_cnt")"
	fill --verify_only
}

lr_bad_setup 5
m=("${LR_BAD[@]:0:4}")
spare=${LR_BAD[4]}
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
fill
stripes=$(($(cat "$d/component_size") / 64))

lr_log "the added device fails its writes"
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
dmsetup message "${LR_BAD_DM[4]}" 0 fail_writes 1 || lr_fail "fail_writes"
# from the start: the erase of its superblock block fails, nothing kept
rc=0
"$LRAIDCTL" add lraid0 "$spare" >"$LR_TMP/add" 2>&1 || rc=$?
if [ $rc != 1 ] || ! grep -q "Input/output error" "$LR_TMP/add"; then
	lr_fail "add of a device failing writes: exit $rc, $(cat "$LR_TMP/add")"
fi
"$LRAIDCTL" detail lraid0 | grep -Eq "^ +1 +[0-9]+ +[0-9]+ +1 faulty +${m[1]}\$" ||
	lr_fail "detail: role 1 not kept on ${m[1]}: $("$LRAIDCTL" detail lraid0)"
# once the rebuild runs (held to 100 KiB/s, a stripe in 0.64 s) and has
# gone past stripe 1, a write to stripe 0 (the 4 KiB there, written back
# as they are) fails on the new member only: it stands on the others,
# and the rebuild, which would not write stripe 0 again, must stop
dmsetup message "${LR_BAD_DM[4]}" 0 fail_writes 0 || lr_fail "fail_writes 0"
echo 50 >"$d/sync_speed_min"
echo 100 >"$d/sync_speed_max"
dd if=/dev/lraid0 of="$LR_TMP/blk" bs=4k count=1 iflag=direct status=none ||
	lr_fail "read stripe 0"
lr_klog_mark
"$LRAIDCTL" add lraid0 "$spare" >/dev/null 2>&1 || lr_fail "add $spare"
for _ in $(seq 200); do
	read -r pos _ <"$d/sync_completed"
	[ "$pos" != none ] && [ "$pos" -ge 256 ] && break
	sleep 0.1
done
if [ "$pos" = none ] || [ "$pos" -lt 256 ]; then
	lr_fail "the rebuild did not get past stripe 1: $pos"
fi
dmsetup message "${LR_BAD_DM[4]}" 0 fail_writes 1 || lr_fail "fail_writes"
dd if="$LR_TMP/blk" of=/dev/lraid0 bs=4k count=1 oflag=direct status=none ||
	lr_fail "a write failing on the member being rebuilt failed the caller"
dmsetup message "${LR_BAD_DM[4]}" 0 fail_writes 0 || lr_fail "fail_writes 0"
done_wait
echo system >"$d/sync_speed_min"
echo system >"$d/sync_speed_max"
lr_klog_has -E "lraid0: recover stopped at stripe [0-9]+ of $stripes: the new member failed( a write)?; role 1 stays failed" ||
	lr_fail "no 'recover stopped ... the new member failed': $(lr_klog | tail -4)"
lr_klog_has "recover done" && lr_fail "a rebuild whose writes failed was done"
[ "$(cat "$d/failed")" = 1 ] || lr_fail "failed reads '$(cat "$d/failed")', not 1"
"$LRAIDCTL" detail lraid0 | grep -Eq "^ +1 +[0-9]+ +[0-9]+ +1 faulty +$spare\$" ||
	lr_fail "detail: $spare not faulty in role 1: $("$LRAIDCTL" detail lraid0)"
"$LRAIDCTL" examine "$spare" >/dev/null 2>&1 &&
	lr_fail "$spare carries a superblock after a failed rebuild"
fill --verify_only
dmsetup message "${LR_BAD_DM[4]}" 0 fail_writes 0 || lr_fail "fail_writes 0"
rebuild "$spare" 1
m[1]=$spare

lr_log "a survivor cannot read a range during the rebuild"
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
# role 0, 8 sectors into stripe 5's chunk (data offset 2048, 128 a chunk)
lr_bad_on 1 $((2048 + 5 * 128 + 8)) 8
lr_klog_mark
"$LRAIDCTL" add lraid0 "${m[2]}" >/dev/null 2>&1 || lr_fail "add ${m[2]} again"
done_wait
lr_klog_has -E "lraid0: recover: read error -?[0-9]+ on .* \(role 0\), .*: role 2 cannot be rebuilt there" ||
	lr_fail "no 'recover: read error' on role 0: $(lr_klog | tail -4)"
lr_klog_has "lraid0: recover stopped at stripe 5 of $stripes: a member failed a read; role 2 stays failed" ||
	lr_fail "no 'recover stopped at stripe 5 ... failed a read': $(lr_klog | tail -4)"
[ "$(cat "$d/failed")" = 2 ] || lr_fail "failed reads '$(cat "$d/failed")', not 2"
"$LRAIDCTL" detail --json lraid0 | grep -Eq '"read_errors": *[1-9]' ||
	lr_fail "role 0's read error not counted: $("$LRAIDCTL" detail --json lraid0)"
lr_bad_off
rebuild "${m[2]}" 2

lr_log "RAID6: a survivor's read error is read around and corrected"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
m=("${LR_BAD[@]:0:5}")
lr_create lraid0 --level 6 --chunk 64K "${m[@]}"
fill
stripes=$(($(cat "$d/component_size") / 64))
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
# role 0 again, 8 sectors into stripe 5's chunk: with role 2 the only
# one lost, Q leaves room to rebuild role 0's sectors there too
lr_bad_on 1 $((2048 + 5 * 128 + 8)) 8
rebuild "${m[2]}" 2
lr_klog_has -E "lraid0: recover: read error -?[0-9]+ on .* \(role 0\), 128 sectors at $((2048 + 5 * 128)): rebuilt from the others" ||
	lr_fail "no 'recover: read error ... rebuilt from the others' on role 0: $(lr_klog | tail -6)"
lr_klog_has "lraid0: recover: read error corrected (128 sectors at $((2048 + 5 * 128)) on .*, role 0)" ||
	lr_fail "no 'recover: read error corrected' on role 0: $(lr_klog | tail -6)"
lr_klog_has "lraid0: recover corrected read errors in 1 slices" ||
	lr_fail "no 'recover corrected read errors in 1 slices': $(lr_klog | tail -6)"
lr_klog_has "recover stopped" && lr_fail "the RAID6 rebuild stopped: $(lr_klog | grep 'recover stopped')"
lr_bad_off
[ "$(lr_bad_left)" = 0 ] ||
	lr_fail "$(lr_bad_left) bad sectors left: the rebuild did not write role 0's back"
"$LRAIDCTL" detail --json lraid0 | grep -Eq '"read_errors": *[1-9]' ||
	lr_fail "role 0's read error not counted: $("$LRAIDCTL" detail --json lraid0)"
fill --verify_only
echo "PASS: rebuild stops on the new member's write errors and on a survivor's read errors where parity has no room, reads around them on RAID6, and goes through once they are gone"
