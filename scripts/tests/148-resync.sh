#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Resync after an unclean shutdown, as md resyncs: an array assembled with
# every member from superblocks that were not clean starts a repair pass
# by itself (sync_action reads "resync"), and once it has gone over the
# whole array the next stop marks it clean. The crash is made as in 128:
# the members' superblock blocks read while the array ran are written back
# after a clean stop; before that, one 4 KiB page of parity (RAID5: P of
# stripe 5; RAID6: Q of stripe 6) is overwritten on its member, the write
# hole a crash leaves: a stripe whose parity disagrees with its data.
#   - the resync finds it (mismatch_cnt 8), rewrites it, logs that the
#     array is resynced; lraidctl assemble says it is resyncing; the stop
#     writes clean superblocks and no "left marked not clean"; the next
#     assemble neither warns nor resyncs; a check finds nothing; the data
#     (fio crc32c) reads back;
#   - a resync interrupted (sync_action idle) leaves the array not clean
#     at its stop, and the next assemble resyncs again, to the end;
#   - with auto_resync=N no pass starts, the kernel log says to run a
#     repair, the stop leaves the array not clean; a repair by hand then
#     makes the next stop clean.
#   - where a resync stopped is kept across a stop, as md's resync_offset:
#     on members whose I/O takes 2 ms (a pass lasts seconds), a resync
#     interrupted past stripe 32 leaves every superblock active with
#     resync_offset = the stripe it stopped at (examine: "Resync
#     Offset"); while the array runs again the superblocks say 0 (a
#     crash then resyncs everything); the next resync says it starts
#     there and finds only the stale page past it (8): a page made
#     stale below it, behind lraid's back while it was stopped, is left
#     to the check that follows (8) - the resync did not read it. A
#     repair then makes the stop clean, resync_offset 0.
#   - while parity is not resynced, writes compute it from the full data
#     (RCW), as md's do beyond its resync point: with auto_resync=N, on
#     RAID5 x6 (P) and RAID6 x7 (Q), where a 4 KiB write would update
#     parity in place (RMW, fewer reads), a 4 KiB write over the row of
#     the stale page leaves it in sync (check: 0) and reads back. The
#     control: once repaired and stopped clean, the same page made stale
#     and the same write leave it stale (check: 8), as RMW does.
#   - a rebuild on an unclean array is followed by a resync, as md
#     follows a recovery: RAID6 x5 with Q of stripe 6 stale at the crash
#     is started degraded (--force, role 1 left out: data in stripe 6,
#     rebuilt from P), no pass runs; role 1's device added back is
#     rebuilt, then "resync after the rebuild" runs at once and finds
#     the stale Q (8), a check then 0, the data verifies and the stop
#     is clean.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

d=/sys/block/lraid0/lraid
job=(--rw=randwrite --bsrange=4k-64k --size=24M --iodepth=8)

# wait_idle: until no pass runs (60 s at most)
wait_idle() {
	local i
	for i in $(seq 600); do
		[ "$(cat $d/sync_action)" = idle ] && return 0
		sleep 0.1
	done
	lr_fail "the pass did not end: $(cat $d/sync_action) $(cat $d/sync_completed)"
}

# crash LEVEL MEMBER PAGE: save the superblocks of the running lraid0,
# stop it, overwrite 4 KiB page PAGE of MEMBER, write the superblocks back
crash() {
	lr_sb_save "${m[@]}"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	dd if=/dev/urandom of="$1" bs=4096 seek="$2" count=1 oflag=direct \
		conv=notrunc status=none || lr_fail "overwrite $1"
	lr_sb_restore "${m[@]}"
}

# start: assemble lraid0 from every member, lraidctl's word in $LR_TMP/asm
start() {
	lr_klog_mark
	"$LRAIDCTL" assemble lraid0 "${m[@]}" >"$LR_TMP/asm" 2>&1 ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble"; }
	LR_ARRAYS=(lraid0)
}

# stopped_as STATE: stop lraid0; every superblock must then read STATE
stopped_as() {
	local s
	lr_klog_mark
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	for s in "${m[@]}"; do
		[ "$(lr_sb_state "$s")" = "$1" ] ||
			lr_fail "$s reads $(lr_sb_state "$s") after the stop, not $1"
	done
}

# resynced MISMATCH: a resync ran to its end and found MISMATCH sectors
resynced() {
	grep -q "resyncing it now" "$LR_TMP/asm" ||
		lr_fail "lraidctl assemble did not say it resyncs: $(cat "$LR_TMP/asm")"
	wait_idle
	[ "$(cat $d/last_sync_action)" = resync ] ||
		lr_fail "last_sync_action: $(cat $d/last_sync_action), not resync"
	[ "$(cat $d/mismatch_cnt)" = "$1" ] ||
		lr_fail "the resync found $(cat $d/mismatch_cnt) mismatched sectors, not $1"
	lr_klog_has "resync done: $1 mismatched sectors rewritten; parity resynced" ||
		lr_fail "no 'resync done' in the kernel log: $(lr_klog | grep lraid0 | tail -3)"
}

for cfg in "5 4 64K 2 5" "6 5 16K 1 6"; do
	read -r level n chunk pq stripe <<<"$cfg"
	# RAID5 x4: P of stripe 5 on role 3 - 5 % 4 = 2; RAID6 x5: P of
	# stripe 6 on role 4 - 6 % 5 = 3, Q on the next, role 4 - checked
	# against the geometry in examine below. Pages from the start of the
	# member: data offset (1 MiB) plus the stripe's chunks.
	lr_log "RAID$level x$n, chunk $chunk: parity of stripe $stripe stale at the crash"
	lr_members nullb "$n" 48
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk "$chunk" "${m[@]}"
	lr_fio /dev/lraid0 data "${job[@]}"
	off=$(lr_sb_num "${m[0]}" data_offset)
	[ "$off" = 2048 ] || lr_fail "data offset $off, not 2048 sectors"
	ck=$((${chunk%K} / 4))
	if [ "$level" = 6 ]; then
		pq=$(((n - 1 - stripe % n + 1) % n))
	fi
	crash "${m[$pq]}" $((256 + stripe * ck))
	start
	lr_klog_has "not stopped cleanly" || lr_fail "no word of the crash in the kernel log"
	resynced 8
	lr_fio /dev/lraid0 data "${job[@]}" --verify_only
	stopped_as clean
	lr_klog_has "left marked not clean" && lr_fail "left marked not clean after the resync"
	start
	lr_klog_has "not stopped cleanly" && lr_fail "warned of a crash after a resynced clean stop"
	[ "$(cat $d/last_sync_action)" = none ] || lr_fail "a pass ran at a clean assemble"
	"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail "check"
	[ "$(cat $d/mismatch_cnt)" = 0 ] || lr_fail "check after the resync: $(cat $d/mismatch_cnt)"
	lr_fio /dev/lraid0 data "${job[@]}" --verify_only
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
done

lr_log "a resync interrupted starts again at the next assemble"
lr_members nullb 4 256
m=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
lr_fio /dev/lraid0 data "${job[@]}"
# the last stripe's P: the pass that idle interrupts never gets there
last=$(($(cat $d/component_size) / 64 - 1))
crash "${m[$((3 - last % 4))]}" $((256 + last * 16))
start
# a pass over 4 x 256 MiB takes seconds under TCG; this comes within ms
"$LRAIDCTL" action idle lraid0 || lr_fail "action idle"
lr_klog_has "resync stopped at stripe .*: interrupted" ||
	lr_fail "idle did not interrupt the resync: $(lr_klog | grep lraid0 | tail -3)"
[ "$(cat $d/sync_action)" = idle ] || lr_fail "sync_action $(cat $d/sync_action) after idle"
stopped_as active
lr_klog_has "left marked not clean" || lr_fail "interrupted resync: no 'left marked not clean'"
start
resynced 8
stopped_as clean

lr_log "auto_resync=N: no pass; a repair by hand resyncs"
start
lr_sb_save "${m[@]}"
echo N >/sys/module/lraid/parameters/auto_resync
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
lr_sb_restore "${m[@]}"
start
grep -q "until a repair pass resyncs it (lraidctl action repair lraid0)" "$LR_TMP/asm" ||
	lr_fail "lraidctl assemble did not name the repair: $(cat "$LR_TMP/asm")"
lr_klog_has "not resynced (auto_resync is N)" || lr_fail "no word of auto_resync=N"
[ "$(cat $d/last_sync_action)" = none ] || lr_fail "a pass ran with auto_resync=N"
stopped_as active
start
"$LRAIDCTL" action repair --wait lraid0 >"$LR_TMP/out" || lr_fail repair
grep -q "repair ended: 0 mismatched sectors" "$LR_TMP/out" || lr_fail "repair: $(cat "$LR_TMP/out")"
lr_klog_has "parity resynced" || lr_fail "a complete repair did not resync"
stopped_as clean
lr_klog_has "left marked not clean" && lr_fail "left marked not clean after a repair"
echo Y >/sys/module/lraid/parameters/auto_resync

# sb_resync OFFSET: every member's superblock says resync_offset OFFSET,
# and examine shows "Resync Offset" only when it is not 0
sb_resync() {
	local s
	for s in "${m[@]}"; do
		[ "$(lr_sb_num "$s" resync_offset)" = "$1" ] ||
			lr_fail "$s: resync_offset $(lr_sb_num "$s" resync_offset), not $1"
		if [ "$1" = 0 ]; then
			"$LRAIDCTL" examine "$s" | grep -q "Resync Offset" &&
				lr_fail "$s: examine shows a Resync Offset"
		else
			"$LRAIDCTL" examine "$s" | grep -q "Resync Offset : $1 sectors" ||
				lr_fail "$s: examine: $("$LRAIDCTL" examine "$s" | grep -i resync)"
		fi
	done
	return 0
}

# check_finds N: a check pass finds N mismatched sectors
check_finds() {
	"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail check
	[ "$(cat $d/mismatch_cnt)" = "$1" ] ||
		lr_fail "check found $(cat $d/mismatch_cnt) mismatched sectors, not $1"
}

lr_log "an interrupted resync goes on where it stopped"
lr_nullb_drop || lr_fail "null_blk still held"
m=()
for i in 0 1 2 3; do
	lr_nullb "lrslow$i" 64 irqmode=2 completion_nsec=2000000
	m+=("$LR_DEV")
done
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
lr_fio /dev/lraid0 data --rw=randwrite --bs=64k --size=8M --iodepth=8
last=$(($(cat $d/component_size) / 64 - 1))
crash "${m[$((3 - last % 4))]}" $((256 + last * 16))
start
for i in $(seq 600); do
	read -r pos _ <"$d/sync_completed"
	[ "$pos" != none ] && [ "$pos" -ge $((32 * 128)) ] && break
	sleep 0.05
done
"$LRAIDCTL" action idle lraid0 || lr_fail "action idle"
at=$(lr_klog | sed -n 's/.*resync stopped at stripe \([0-9]*\) of.*interrupted.*/\1/p')
if [ -z "$at" ] || [ "$at" -lt 32 ] || [ "$at" -ge "$last" ]; then
	lr_fail "resync not interrupted past stripe 32: $(lr_klog | grep lraid0 | tail -3)"
fi
stopped_as active
sb_resync $((at * 128))
# P of stripe 1 (role 2) made stale below where the resync stopped
dd if=/dev/urandom of="${m[2]}" bs=4096 seek=$((256 + 16)) count=1 \
	oflag=direct conv=notrunc status=none || lr_fail "overwrite ${m[2]}"
start
grep -q "resyncing it now from sector $((at * 128))" "$LR_TMP/asm" ||
	lr_fail "lraidctl assemble did not say where the resync goes on: $(cat "$LR_TMP/asm")"
sb_resync 0
lr_klog_has "resync started at sector $((at * 128)) of" ||
	lr_fail "the resync did not start where the last stopped: $(lr_klog | grep lraid0 | tail -3)"
resynced 8
check_finds 8
"$LRAIDCTL" action repair --wait lraid0 >/dev/null || lr_fail repair
check_finds 0
lr_fio /dev/lraid0 data --rw=randwrite --bs=64k --size=8M --iodepth=8 --verify_only
stopped_as clean
sb_resync 0

lr_log "writes to stripes not resynced compute parity from all the data"
echo N >/sys/module/lraid/parameters/auto_resync
for cfg in "5 6 64 5" "6 7 16 6"; do
	read -r level n ck s <<<"$cfg"
	lr_nullb_drop || lr_fail "null_blk still held"
	lr_members nullb "$n" 48
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk "${ck}K" "${m[@]}"
	lr_fio /dev/lraid0 data "${job[@]}"
	cp=$((ck / 4))			# pages per chunk
	k=$((n - level + 4))		# data chunks per stripe
	t=$((n - 1 - s % n))		# P of stripe s; RAID6: Q, the next
	[ "$level" = 6 ] && t=$(((t + 1) % n))
	dd if=/dev/urandom of="$LR_TMP/page" bs=4096 count=1 status=none
	crash "${m[$t]}" $((256 + s * cp))
	start
	dd if="$LR_TMP/page" of=/dev/lraid0 bs=4096 seek=$((s * k * cp)) count=1 \
		oflag=direct conv=notrunc status=none || lr_fail "4 KiB write"
	check_finds 0
	cmp <(dd if=/dev/lraid0 bs=4096 skip=$((s * k * cp)) count=1 \
		iflag=direct status=none) "$LR_TMP/page" ||
		lr_fail "the 4 KiB write does not read back"
	# the control: in sync, the write updates parity in place
	"$LRAIDCTL" action repair --wait lraid0 >/dev/null || lr_fail repair
	stopped_as clean
	dd if=/dev/urandom of="${m[$t]}" bs=4096 seek=$((256 + s * cp)) count=1 \
		oflag=direct conv=notrunc status=none || lr_fail "overwrite"
	start
	dd if="$LR_TMP/page" of=/dev/lraid0 bs=4096 seek=$((s * k * cp)) count=1 \
		oflag=direct conv=notrunc status=none || lr_fail "4 KiB write"
	check_finds 8
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
done
echo Y >/sys/module/lraid/parameters/auto_resync

lr_log "a rebuild on an unclean degraded array is followed by a resync"
lr_nullb_drop || lr_fail "null_blk still held"
lr_members nullb 5 48
m=("${LR_M[@]}")
lr_create lraid0 --level 6 --chunk 16K "${m[@]}"
lr_fio /dev/lraid0 data "${job[@]}"
# Q of stripe 6 (role 4) stale at the crash; role 1, data there, left
# out: its rebuild comes from P and leaves Q as it was
crash "${m[4]}" $((256 + 6 * 4))
lr_klog_mark
"$LRAIDCTL" assemble --force --run lraid0 "${m[0]}" "${m[2]}" "${m[3]}" "${m[4]}" \
	>"$LR_TMP/asm" 2>&1 || { cat "$LR_TMP/asm"; lr_fail "forced degraded assemble"; }
LR_ARRAYS=(lraid0)
[ "$(cat $d/last_sync_action)" = none ] || lr_fail "a pass ran on the degraded array"
"$LRAIDCTL" add lraid0 "${m[1]}" >/dev/null 2>&1 || lr_fail "add ${m[1]}"
wait_idle
lr_klog_has "recover done: .* (role 1) is in sync" ||
	lr_fail "no 'recover done' for role 1: $(lr_klog | grep lraid0 | tail -4)"
lr_klog_has "resync after the rebuild: parity was not known to be in sync" ||
	lr_fail "no resync after the rebuild: $(lr_klog | grep lraid0 | tail -4)"
[ "$(cat $d/last_sync_action)" = resync ] ||
	lr_fail "last_sync_action: $(cat $d/last_sync_action), not resync"
[ "$(cat $d/mismatch_cnt)" = 8 ] ||
	lr_fail "the resync after the rebuild found $(cat $d/mismatch_cnt) mismatched sectors, not 8"
lr_klog_has "resync done: 8 mismatched sectors rewritten; parity resynced" ||
	lr_fail "no 'resync done' after the rebuild: $(lr_klog | grep lraid0 | tail -3)"
check_finds 0
lr_fio /dev/lraid0 data "${job[@]}" --verify_only
stopped_as clean
echo "PASS: an unclean array resyncs by itself, or by a repair, or after a rebuild, and then stops clean"
