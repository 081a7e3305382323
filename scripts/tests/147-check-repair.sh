#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parity check and repair through /sys/block/lraid0/lraid/ (sync_action,
# mismatch_cnt, sync_completed, last_sync_action), as md's. A pass counts
# as done when sync_action reads idle again and the kernel log says
# "<action> done" with the count mismatch_cnt then reads.
#   - RAID5 x4 at 64 KiB and RAID6 x5 at 16 KiB on null_blk, random data
#     written, the array stopped and single 4 KiB pages overwritten on the
#     members (where Documentation/layout.rst puts them): one page of P
#     (RAID6: one of Q in one stripe and one of P in another). check finds
#     8 sectors per page and changes nothing (a second check finds as
#     many, the array reads back what was written); repair finds as many
#     and puts back on the member the very page that was there; a check
#     then finds 0. Then one page of a data chunk: check 8, repair 8,
#     check 0, and the array still reads the overwritten page (data wins).
#     On a fresh array the files read idle, none, 0, none.
#   - Under load, on the same arrays: check and repair passes one after
#     the other while fio writes random (4-64 KiB) and sequential
#     (4 KiB to three stripes) blocks with crc32c verify, and random 4 KiB
#     writes race full-stripe discards in another region
#     (devices_handle_discard_safely=Y); every pass finds 0 (a stripe not
#     kept from writes while it is compared shows false mismatches), at
#     least one begins and ends while fio writes, and fio's verify
#     passes. (A scratch build that compared stripes without keeping
#     writes out of them passed every other part and failed here:
#     RAID5, mismatch_cnt 16 in the first passes under load; stock
#     6.12, 2026-11-26.)
#   - Refused: "foo" and "resync" (EINVAL), check or repair while a pass
#     runs (EBUSY).
#   - RAID5 x4 at 64 KiB over 4 x 64 MiB null_blk whose I/O takes 2 ms
#     (--assume-clean, so that a pass lasts seconds), superblocks saved
#     while it ran and written back after its stop (a crash, as 128
#     makes it), and one page of P in the last stripe
#     overwritten (stale parity): it assembles with the "not stopped
#     cleanly" warning (auto_resync=N: no resync starts by itself, 148
#     has that). A running check shows sync_completed
#     "N / component_size*2", N not going back; "idle" (then "frozen" on
#     a second pass) stops it at once: idle and "none" right after the
#     write returns, last_sync_action check. A stop during a repair
#     succeeds, and as the repair did not end the array stays marked not
#     clean (superblocks active, "left marked not clean"); it assembles
#     again with the warning and reads back. A whole repair then finds
#     the stale page (8), puts P back, and the next stop marks every
#     member clean: no "left marked not clean", and the next assemble no
#     "not stopped cleanly".
#   - A member failed (lraidctl fail) during a check: the pass stops
#     ("check stopped" in the log) and sync_action is idle within 60 s;
#     check and repair on the degraded array then fail with EBUSY, with a
#     kernel log line, and sync_action stays idle.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup
echo Y >/sys/module/lraid/parameters/devices_handle_discard_safely

d=/sys/block/lraid0/lraid
mkfifo "$LR_TMP/tick"	# for nap
exec {tick}<>"$LR_TMP/tick"
RUNS=0	# samples of sync_completed that saw a pass running

# (files read with bash's read: no fork, the loops stay quick under load)
is() {
	local got
	read -r got <"$d/$1" || lr_fail "read $d/$1"
	[ "$got" = "$2" ] || lr_fail "$d/$1 reads '$got', expected '$2'"
}

# start ACTION: sync_action takes ACTION (a log mark first, for finish)
start() {
	lr_klog_mark
	echo "$1" >"$d/sync_action" || lr_fail "sync_action refused '$1'"
}

# refused VALUE ERROR: writing VALUE to sync_action fails with ERROR
# (strerror's text)
refused() {
	local out
	if out=$({ echo "$1" >"$d/sync_action"; } 2>&1); then
		lr_fail "sync_action took '$1'"
	fi
	grep -q "$2" <<<"$out" ||
		lr_fail "sync_action '$1': '$out', expected $2"
}

# sample: sync_completed reads "none" (no pass, or it just ended) or
# "N / TOTAL" (TOTAL: component_size in sectors) with N within TOTAL and
# not below the last sample of this pass (LAST); RUNS counts the latter
sample() {
	local s
	read -r s <"$d/sync_completed" || lr_fail "read sync_completed"
	[ "$s" = none ] && return 0
	[[ $s =~ ^([0-9]+)\ /\ ([0-9]+)$ ]] ||
		lr_fail "sync_completed reads '$s', not 'N / M'"
	[ "${BASH_REMATCH[2]}" = "$total" ] ||
		lr_fail "sync_completed '$s': total not $total (component_size * 2)"
	[ "${BASH_REMATCH[1]}" -le "$total" ] ||
		lr_fail "sync_completed '$s': past the end"
	[ "${BASH_REMATCH[1]}" -ge "$LAST" ] ||
		lr_fail "sync_completed '$s' after $LAST: went back"
	LAST=${BASH_REMATCH[1]}
	RUNS=$((RUNS + 1))
}

# finish ACTION: wait up to 300 s for the pass started with ACTION to end
# (sync_action idle), then for "ACTION done" in the log since start (5 s);
# then sync_completed none, last_sync_action ACTION, and MM, mismatch_cnt,
# is the count the log line gives
finish() {
	local end=$((SECONDS + 300)) line a i
	LAST=0
	while read -r a <"$d/sync_action" && [ "$a" != idle ]; do
		[ $SECONDS -lt $end ] ||
			lr_fail "$1: not done after 300 s: sync_action $a, $(cat "$d/sync_completed"); log: $(lr_klog | tail -5)"
		sample
		nap
	done
	for ((i = 0; i < 50; i++)); do
		line=$(lr_klog | grep "lraid0: $1 done" | tail -1) || :
		[ -n "$line" ] && break
		nap
	done
	[ -n "$line" ] ||
		lr_fail "$1: idle, but no '$1 done' in the log: $(lr_klog | tail -5)"
	is sync_completed none
	is last_sync_action "$1"
	read -r MM <"$d/mismatch_cnt"
	[[ $MM =~ ^[0-9]+$ ]] || lr_fail "mismatch_cnt reads '$MM'"
	grep -qw "$MM" <<<"$line" ||
		lr_fail "$1: mismatch_cnt $MM, the log says: $line"
}

# pass ACTION WANT: a whole pass must find WANT mismatched sectors
pass() {
	start "$1"
	finish "$1"
	[ "$MM" = "$2" ] || lr_fail "$1: mismatch_cnt $MM, expected $2"
	lr_log "$1: mismatch_cnt $MM"
}

# running ACTION [SAMPLES]: a pass of ACTION is seen running
# (sync_action ACTION, sync_completed N / M) within 10 s, in a sample
# after the first SAMPLES of RUNS (then N must not have gone back since
# the last one); failing that it ended too soon
running() {
	local i a
	[ -n "${2:-}" ] || LAST=0
	for ((i = 0; i < 100; i++)); do
		read -r a <"$d/sync_action"
		if [ "$a" = "$1" ]; then
			sample
			[ "$RUNS" -gt "${2:-0}" ] && return 0
		fi
		lr_klog_has "lraid0: $1 done" &&
			lr_fail "$1 ended before it was seen running: array too small?"
		nap
	done
	lr_fail "$1: not seen running in 10 s"
}

# geometry LEVEL N CHUNK_K: the array's shape, for member, moff and load
geometry() {
	level=$1 n=$2 chunk=$(($3 * 1024))
	np=$((level - 4))
	ndata=$((n - np))
	sw=$((ndata * chunk))
}

# member WHAT STRIPE: index in LR_M of the member holding WHAT (P, Q or
# data index I) in STRIPE, left-symmetric (Documentation/layout.rst)
member() {
	local p=$((n - 1 - $2 % n))
	case $1 in
	P) echo $p ;;
	Q) echo $(((p + 1) % n)) ;;
	*) echo $(((p + np + $1) % n)) ;;
	esac
}

# moff STRIPE PAGE: byte offset on a member of page PAGE of its chunk
# in STRIPE
moff() {
	echo $((doff * 512 + $1 * chunk + $2 * 4096))
}

# corrupt WHAT STRIPE PAGE: random bytes over that page of WHAT's chunk
# in STRIPE, on its member, behind lraid's back (stopped); the page as it
# was is kept in $LR_TMP/was.WHAT.STRIPE, the new one in new.WHAT.STRIPE
corrupt() {
	local m off
	m=$(member "$1" "$2")
	off=$(moff "$2" "$3")
	dd if="${LR_M[m]}" of="$LR_TMP/was.$1.$2" bs=4096 count=1 \
		skip="$off" iflag=direct,skip_bytes status=none ||
		lr_fail "read ${LR_M[m]}"
	head -c 4096 /dev/urandom >"$LR_TMP/new.$1.$2"
	dd if="$LR_TMP/new.$1.$2" of="${LR_M[m]}" bs=4096 seek="$off" \
		oflag=direct,seek_bytes conv=fsync,notrunc status=none ||
		lr_fail "write ${LR_M[m]}"
}

# holds WHAT STRIPE PAGE was|new: the member's page is what it was before
# corrupt, or what corrupt wrote
holds() {
	local m off
	m=$(member "$1" "$2")
	off=$(moff "$2" "$3")
	dd if="${LR_M[m]}" bs=4096 count=1 skip="$off" \
		iflag=direct,skip_bytes status=none |
		cmp -s - "$LR_TMP/$4.$1.$2" ||
		lr_fail "$1 of stripe $2, page $3 on ${LR_M[m]}: not the $4 page"
}

stop() {
	"$LRAIDCTL" stop lraid0 || lr_fail "stop lraid0"
}

# assemble: lraid0 from LR_M, lraidctl's output in $LR_TMP/asm
assemble() {
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1 ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble lraid0"; }
	lr_settle
	[ -d "$d" ] || lr_fail "no $d after assemble"
}

# alive PID: the process runs (not a zombie); no fork, as nap: under
# load, in an emulated guest, each fork takes long enough to keep the
# loops below from running passes back to back
alive() {
	local k v
	while read -r k v; do
		[ "$k" = State: ] || continue
		[[ $v != Z* ]]
		return
	done 2>/dev/null <"/proc/$1/status"
	return 1
}

# nap: a tenth of a second (read from a FIFO nothing writes to)
nap() {
	read -rt 0.1 -u "$tick" _ || :
}

# load RUNTIME: check and repair passes in turn while fio writes for
# RUNTIME seconds; every one must find 0
load() {
	local rt=$1 pid act=check during=0 all=0 toff tsize=$((32 * sw)) w0 w i
	local mm last
	# the trims' region: whole stripes, after 9 MiB
	toff=$(((9 * 1048576 + sw - 1) / sw * sw))
	[ $((toff + tsize)) -le $(($(lr_sectors lraid0) * 512)) ] ||
		lr_fail "array too small for the load"
	[ "$(lr_qmax /dev/lraid0 discard_max_bytes)" != 0 ] ||
		lr_fail "lraid0 offers no discard (devices_handle_discard_safely=Y)"
	fio --filename=/dev/lraid0 --direct=1 --ioengine=libaio --thread \
		--time_based --runtime="$rt" --serialize_overlap=1 \
		--verify=crc32c --verify_fatal=1 --verify_backlog=32 \
		--verify_state_save=0 --output="$LR_TMP/load.out" \
		--name=rand --rw=randwrite --bsrange=4k-64k --size=3M \
		--offset_increment=3M --numjobs=2 --iodepth=8 \
		--name=seq --rw=write --bsrange=4k-$((3 * sw / 1024))k \
		--offset=6M --size=3M --iodepth=4 \
		--name=small --rw=randwrite --bs=4k --offset="$toff" \
		--size="$tsize" --iodepth=8 --verify=0 \
		--name=trim --rw=randtrim --bs="$sw" --offset="$toff" \
		--size="$tsize" --ioengine=sync --verify=0 &
	pid=$!
	# the passes begin once fio's writes reach the array (field 5 of
	# stat: writes completed)
	read -r _ _ _ _ w0 _ </sys/block/lraid0/stat
	for ((i = 0; i < 600; i++)); do
		read -r _ _ _ _ w _ </sys/block/lraid0/stat
		[ "$w" -gt $((w0 + 64)) ] && break
		alive $pid || break
		nap
	done
	lr_klog_mark
	while alive $pid; do
		echo $act >"$d/sync_action" ||
			{ kill $pid; lr_fail "sync_action refused $act under load"; }
		while read -r i <"$d/sync_action" && [ "$i" != idle ]; do
			nap
		done
		alive $pid && during=$((during + 1))
		all=$((all + 1))
		read -r mm <"$d/mismatch_cnt"
		read -r last <"$d/last_sync_action"
		if [ "$mm" != 0 ] || [ "$last" != $act ]; then
			kill $pid
			lr_fail "$act under load: mismatch_cnt $mm, last_sync_action $last"
		fi
		if [ $act = check ]; then
			act=repair
		else
			act=check
		fi
	done
	wait $pid || { cat "$LR_TMP/load.out"; lr_fail "fio under passes"; }
	if grep -Eq "err= *[1-9]" "$LR_TMP/load.out"; then
		cat "$LR_TMP/load.out"
		lr_fail "fio under passes reported errors"
	fi
	grep -Eq "trim: IOPS=[1-9]" "$LR_TMP/load.out" ||
		{ cat "$LR_TMP/load.out"; lr_fail "no trims ran"; }
	[ $during -ge 1 ] ||
		lr_fail "$all passes began while fio wrote, none ended before it"
	# each pass ran to its end, and logged 0
	i=$(lr_klog | grep -Ec "lraid0: (check|repair) done") || :
	[ "$i" = $all ] || lr_fail "$all passes under load, $i logged done"
	if lr_klog | grep -E "lraid0: (check|repair) done" | grep -vqw 0; then
		lr_fail "a pass under load logged mismatches: $(lr_klog | grep -E "lraid0: (check|repair) done")"
	fi
	lr_log "$all passes under load ($during ended while fio ran), all 0"
	pass check 0
}

# parity_holds new|was: the parity pages small() overwrote (RAID5: P of
# stripe s1; RAID6: Q of s1 and P of s2) hold the noise (new) or what was
# there before (was)
parity_holds() {
	if [ "$level" = 5 ]; then
		holds P "$s1" 5 "$1"
	else
		holds Q "$s1" 2 "$1"
		holds P "$s2" 1 "$1"
	fi
}

# small LEVEL N CHUNK_K MIB RUNTIME STRIPES...: on members of MIB MiB,
# the corruption rounds, then load RUNTIME
small() {
	local s1=$6 s2=$7 s3=$8 a
	geometry "$1" "$2" "$3"
	lr_log "RAID$level x$n, chunk $3K"
	lr_members nullb "$n" "$4"
	lr_create lraid0 --assume-clean --level "$level" --chunk "$3K" "${LR_M[@]}"
	total=$(($(cat "$d/component_size") * 2))
	doff=$(lr_sb_num "${LR_M[0]}" data_offset)
	[[ $doff =~ ^[0-9]+$ ]] || lr_fail "data_offset '$doff'"
	is sync_action idle
	is last_sync_action none
	is mismatch_cnt 0
	is sync_completed none
	lr_ref_write $((32 * sw)) "$sw"

	if [ "$level" = 5 ]; then
		lr_log "one page of P in stripe $s1"
		stop
		corrupt P "$s1" 5
		want=8
	else
		lr_log "one page of Q in stripe $s1, one of P in stripe $s2"
		stop
		corrupt Q "$s1" 2
		corrupt P "$s2" 1
		want=16
	fi
	assemble
	pass check $want
	lr_ref_reads "after a check"
	pass check $want
	parity_holds new
	pass repair $want
	parity_holds was
	lr_ref_reads "after a repair"
	pass check 0

	lr_log "one page of data index 1 in stripe $s3"
	stop
	corrupt 1 "$s3" 3
	assemble
	# what the array reads there now
	a=$(((s3 * ndata + 1) * chunk + 3 * 4096))
	dd if="$LR_TMP/new.1.$s3" of="$LR_TMP/ref" bs=4096 seek=$((a / 4096)) \
		conv=notrunc status=none
	lr_ref_reads "a data page overwritten"
	pass check 8
	pass repair 8
	holds 1 "$s3" 3 new
	lr_ref_reads "after repairing a data page's parity"
	pass check 0

	lr_log "RAID$level x$n: passes under load"
	load "$5"
	refused foo "Invalid argument"
	refused resync "Invalid argument"
	stop
	LR_ARRAYS=()
	lr_nullb_drop || lr_fail "null_blk members still held"
}

small 5 4 64 8 4 5 - 6
small 6 5 16 6 4 3 7 9

lr_log "RAID5 x4 on slow members, not stopped cleanly, stale P"
geometry 5 4 64
# every member I/O takes 2 ms: a pass (a stripe at a time) takes 2 s or
# more, long enough to be seen running and interrupted
LR_M=()
for i in 0 1 2 3; do
	lr_nullb "lrslow$i" 64 irqmode=2 completion_nsec=2000000
	LR_M+=("$LR_DEV")
done
lr_create lraid0 --assume-clean --level 5 --chunk 64K "${LR_M[@]}"
total=$(($(cat "$d/component_size") * 2))
doff=$(lr_sb_num "${LR_M[0]}" data_offset)
last=$((total * 512 / chunk - 1))
lr_ref_write $((16 * sw)) "$sw"
lr_sb_save "${LR_M[@]}"
[ "$(lr_sb_state "${LR_M[0]}")" = active ] ||
	lr_fail "a running array's superblock is not active"
stop
lr_sb_restore "${LR_M[@]}"	# the crash
corrupt P $last 0
# no resync by itself here (148 has it): the repairs below are by hand
echo N >/sys/module/lraid/parameters/auto_resync
lr_klog_mark
assemble
grep -q "not stopped cleanly" "$LR_TMP/asm" ||
	lr_fail "no 'not stopped cleanly' from assemble: $(cat "$LR_TMP/asm")"
lr_klog_has "not stopped cleanly" ||
	lr_fail "no 'not stopped cleanly' in the kernel log"

lr_log "a check stopped by idle, then by frozen; EBUSY while it runs"
start check
running check
refused check "Device or resource busy"
refused repair "Device or resource busy"
running check "$RUNS"	# a second sample: N not going back
echo idle >"$d/sync_action" || lr_fail "sync_action refused idle"
is sync_action idle
is sync_completed none
is last_sync_action check
start check
running check
echo frozen >"$d/sync_action" || lr_fail "sync_action refused frozen"
is sync_action idle
is sync_completed none
lr_klog_has "check done" &&
	lr_fail "a check interrupted at once still ran to its end: array too small"
echo idle >"$d/sync_action" || lr_fail "sync_action refused idle when idle"

lr_log "stop during a repair: still not clean"
start repair
running repair
stop
lr_klog_has "repair done" &&
	lr_fail "the repair ended before the stop: array too small"
lr_klog_has "left marked not clean" ||
	lr_fail "stop during a repair after a crash: no 'left marked not clean'"
for m in "${LR_M[@]}"; do
	[ "$(lr_sb_state "$m")" = active ] ||
		lr_fail "stopped during a repair after a crash, $m marked clean"
done
lr_klog_mark
assemble
grep -q "not stopped cleanly" "$LR_TMP/asm" ||
	lr_fail "no 'not stopped cleanly' after a stop during the repair: $(cat "$LR_TMP/asm")"
lr_ref_reads "after a stop during a repair"

lr_log "a whole repair: the next stop marks the array clean"
holds P $last 0 new
pass repair 8
holds P $last 0 was
lr_klog_mark
stop
lr_klog_has "left marked not clean" &&
	lr_fail "stopped after a whole repair, yet left marked not clean"
for m in "${LR_M[@]}"; do
	[ "$(lr_sb_state "$m")" = clean ] ||
		lr_fail "stopped after a whole repair, $m not marked clean"
done
lr_klog_mark
assemble
grep -q "not stopped cleanly" "$LR_TMP/asm" &&
	lr_fail "assemble after a repaired array's stop: $(cat "$LR_TMP/asm")"
lr_klog_has "not stopped cleanly" &&
	lr_fail "the kernel log: not stopped cleanly, after a repair and a stop"
lr_ref_reads "after the repair, stop and assemble"

lr_log "a member failed during a check"
start check
running check
"$LRAIDCTL" fail lraid0 "${LR_M[1]}" || lr_fail "fail ${LR_M[1]}"
for ((i = 0; i < 600; i++)); do
	[ "$(cat "$d/sync_action")" = idle ] && break
	nap
done
is sync_action idle
is sync_completed none
lr_klog_has -E "lraid0: check stopped.*fail" ||
	lr_fail "no 'check stopped ... a member failed' in the kernel log"
lr_klog_has "check done" && lr_fail "the check went on past the failure"
lr_klog_mark
refused check "Device or resource busy"
refused repair "Device or resource busy"
is sync_action idle
lr_klog_has -E "lraid0: .*(check|repair).*(degraded|member)" ||
	lr_fail "check refused on a degraded array: no reason in the kernel log"
stop
[ "$RUNS" -gt 0 ] || lr_fail "no sample of sync_completed saw a pass running"
lr_log "$RUNS samples saw a pass running"
echo "PASS: parity check and repair"
