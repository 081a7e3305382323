#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Arrays assembled as their members appear (lraidctl incremental and the
# udev rule tools/udev/65-lraid-incremental.rules.in, as mdadm
# --incremental and its udev rule). RAID5 x4 on null_blk, written and
# stopped; then members powered off (null_blk keeps their data) and back
# on one at a time, with the rule installed in /run/udev/rules.d:
#   - by hand, with one member there: it waits (exit 0) and names the
#     roles missing; nothing starts;
#   - the second member's udev event, then the third's (RAID5 could run
#     on three, but without --run it waits): still nothing;
#   - the last one's: the array starts, once, as lraid0 (its name), every
#     member in use, the data as written;
#   - by hand again: "already running", exit 0; a device without a
#     superblock: exit 1 and a message, silent exit 0 with --quiet;
#   - without the rule, the four run by hand at the same time: one array;
#   - a member missing: it waits, and --run starts it degraded (as mdadm
#     -IR); later, with every member back, the role recorded failed does
#     not hold it up (it starts degraded as it stopped);
#   - re-add (mdadm's default policy action=re-add): RAID5 x4 with a
#     write-intent bitmap (a bit per MiB, bitmap_delay 1), written whole
#     by fio (crc32c) in two slices, no bit left set; role 1 failed and
#     removed, the first 4 MiB rewritten (D of M bits set), then
#     incremental --quiet on its device, as udev would: "re-added", the
#     kernel log "re-added as role 1" and "rebuilding the D of M bitmap
#     regions", the rebuild done, every member active, the array reads
#     back as it did degraded, the data verifies, a check finds 0.
#     Stale: role 3 failed, removed and rebuilt in full onto a fresh
#     device; with role 2 out, incremental on role 3's old device
#     adds nothing (its role works: exit 0) and on role 2's device
#     re-adds it; with the fresh device failed and removed, the old one
#     is refused (exit 1, "Stale file handle", no full rebuild): nothing
#     added, its superblock as it was, the array still degraded;
#   - on loop members (which udev watches: a close after writing makes it
#     send a change event), a set the kernel would refuse (not stopped
#     cleanly and degraded) is refused with the reason, by hand and through
#     the rule, where one change event must make one run (a run that
#     opened the members for writing would make more events, and more
#     runs, without end).
# The rule needs udevd in the guest (virtme-ng starts it; on the debug
# test kernel it dies at once): without one answering, lraidctl
# incremental is run by hand where udev would run it.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need udevadm fio
lr_setup
udev=1
if ! udevadm control --ping 2>/dev/null; then
	udev=0
	lr_log "udevd does not answer: lraidctl incremental run by hand for the rule"
fi

rules=/run/udev/rules.d/65-lraid-incremental.rules
# the rule goes, and udev finishes what it runs, before the arrays and
# devices go (lr_cleanup)
trap 'rm -f "$rules"; [ $udev = 0 ] || { udevadm control --reload; lr_settle; }; lr_cleanup' EXIT

cfg=/sys/kernel/config/nullb
power() { # NAME 0|1
	echo "$2" >"$cfg/$1/power" || lr_fail "power $2 $1"
	if [ "$2" = 1 ]; then
		lr_nullb_wait "/dev/$1"
	fi
}

# running: the number of arrays running
running() {
	"$LRAIDCTL" detail --scan | grep -c '^ARRAY' || :
}

# wait_array: /dev/lraid0 appears within 30 s
wait_array() {
	for _ in $(seq 300); do
		[ -b /dev/lraid0 ] && return 0
		sleep 0.1
	done
	lr_fail "/dev/lraid0 did not appear"
}

# inc OUT [ARG...]: lraidctl incremental ARG..., exit 0, stderr into OUT
inc() {
	local out=$1
	shift
	"$LRAIDCTL" incremental "$@" 2>"$out" ||
		lr_fail "incremental $*: $(cat "$out")"
}

lr_members nullb 4 64
names=()
for m in "${LR_M[@]}"; do
	names+=("$(basename "$m")")
done
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
dd if=/dev/urandom of=/dev/lraid0 bs=1M count=16 oflag=direct status=none ||
	lr_fail "write"
sum=$(lr_sha /dev/lraid0 32768)
"$LRAIDCTL" stop lraid0 || lr_fail stop

# event NAME: what the rule does when NAME appears (udev runs it itself)
event() {
	[ $udev = 1 ] || "$LRAIDCTL" incremental --quiet "/dev/$1" ||
		lr_fail "incremental --quiet /dev/$1"
}

lr_log "udev rule installed; members appear one at a time"
lr_settle
if [ $udev = 1 ]; then
	mkdir -p /run/udev/rules.d
	sed "s|@LRAIDCTL@|$LRAIDCTL|" tools/udev/65-lraid-incremental.rules.in >"$rules"
	udevadm control --reload || lr_fail "udevadm control --reload"
fi
for i in 1 2 3; do
	power "${names[$i]}" 0
done
lr_settle
inc "$LR_TMP/o" "${LR_M[0]}"
grep -q "1 of 4 members found, waiting for roles 1, 2, 3" "$LR_TMP/o" ||
	lr_fail "incremental with one member: $(cat "$LR_TMP/o")"
[ ! -e /dev/lraid0 ] || lr_fail "started with one member of four"
power "${names[1]}" 1
event "${names[1]}"
lr_settle
sleep 1
[ ! -e /dev/lraid0 ] || lr_fail "started with two members of four"
# three of four would do for RAID5: it must still wait for the last
power "${names[2]}" 1
event "${names[2]}"
lr_settle
sleep 1
[ ! -e /dev/lraid0 ] || lr_fail "started with three members of four (no --run)"
power "${names[3]}" 1
event "${names[3]}"
lr_settle
wait_array
LR_ARRAYS+=(lraid0)
lr_settle
[ "$(running)" = 1 ] || lr_fail "$(running) arrays running: $("$LRAIDCTL" detail --scan)"
lr_not_failed lraid0
lr_check_roles lraid0
[ "$(lr_sha /dev/lraid0 32768)" = "$sum" ] || lr_fail "data differs"

inc "$LR_TMP/o" "${LR_M[0]}"
grep -q "already running as /dev/lraid0" "$LR_TMP/o" ||
	lr_fail "incremental on a running member: $(cat "$LR_TMP/o")"
lr_nullb nullb9 16
if "$LRAIDCTL" incremental /dev/nullb9 2>"$LR_TMP/o"; then
	lr_fail "incremental on a device without a superblock exited 0"
fi
grep -q "no lraid superblock" "$LR_TMP/o" || lr_fail "no superblock: $(cat "$LR_TMP/o")"
inc "$LR_TMP/o" --quiet /dev/nullb9
[ ! -s "$LR_TMP/o" ] || lr_fail "--quiet printed: $(cat "$LR_TMP/o")"
"$LRAIDCTL" stop lraid0 || lr_fail stop

lr_log "without the rule: all four by hand at once"
rm -f "$rules"
[ $udev = 0 ] || udevadm control --reload
lr_settle
pids=()
for m in "${LR_M[@]}"; do
	b=$(basename "$m")
	"$LRAIDCTL" incremental "$m" >"$LR_TMP/p.$b.out" 2>"$LR_TMP/p.$b" &
	pids+=($!)
done
for p in "${pids[@]}"; do
	wait "$p" || lr_fail "an incremental at the same time failed: $(cat "$LR_TMP"/p.*)"
done
[ "$(running)" = 1 ] || lr_fail "$(running) arrays running after four at once"
[ -b /dev/lraid0 ] || lr_fail "not assembled as lraid0"
# exactly one of them started it (printed its name, as assemble does)
n=$(cat "$LR_TMP"/p.*.out | grep -c '^/dev/lraid0$' || :)
[ "$n" = 1 ] || lr_fail "$n of the four printed /dev/lraid0: $(cat "$LR_TMP"/p.*)"
"$LRAIDCTL" stop lraid0 || lr_fail stop

lr_log "a member missing: waits, --run starts it degraded"
power "${names[3]}" 0
lr_settle
inc "$LR_TMP/o" "${LR_M[0]}"
grep -q "3 of 4 members found, waiting for role 3" "$LR_TMP/o" ||
	lr_fail "incremental with three members: $(cat "$LR_TMP/o")"
[ ! -e /dev/lraid0 ] || lr_fail "started without --run"
inc "$LR_TMP/o" --run "${LR_M[1]}"
[ -b /dev/lraid0 ] || lr_fail "--run did not start it: $(cat "$LR_TMP/o")"
"$LRAIDCTL" detail lraid0 | grep -Eq 'State : .*degraded' ||
	lr_fail "not degraded: $("$LRAIDCTL" detail lraid0)"
[ "$(cat /sys/block/lraid0/lraid/failed)" = 3 ] ||
	lr_fail "failed roles: $(cat /sys/block/lraid0/lraid/failed)"
[ "$(lr_sha /dev/lraid0 32768)" = "$sum" ] || lr_fail "data differs degraded"
"$LRAIDCTL" stop lraid0 || lr_fail stop
power "${names[3]}" 1
lr_settle
inc "$LR_TMP/o" "${LR_M[3]}"
[ -b /dev/lraid0 ] ||
	lr_fail "role 3, recorded failed, held the array up: $(cat "$LR_TMP/o")"
[ "$(cat /sys/block/lraid0/lraid/failed)" = 3 ] ||
	lr_fail "failed roles after: $(cat /sys/block/lraid0/lraid/failed)"
[ "$(lr_sha /dev/lraid0 32768)" = "$sum" ] || lr_fail "data differs after"
"$LRAIDCTL" stop lraid0 || lr_fail stop

lr_log "re-add through incremental: RAID5 x4 with a write-intent bitmap"
lr_nullb_drop || lr_fail "null_blk devices still held"
# bits of idle regions cleared a second after their last write
echo 1 >/sys/module/lraid/parameters/bitmap_delay || lr_fail "bitmap_delay 1"
lr_members nullb 4 8
lr_create lraid0 --level 5 --chunk 64K --bitmap=internal --bitmap-chunk=1M \
	"${LR_M[@]}"
sys=/sys/block/lraid0/lraid
M=$(cat "$sys/bitmap_regions")
[ "$M" -ge 6 ] || lr_fail "bitmap_regions $M on 8 MiB members"

# slice NAME OFFSET SIZE SEED [FIO-ARG...]: bytes OFFSET, SIZE of lraid0
# written by fio with SEED (verified), its job kept for verify_slices
declare -A slices
slice() {
	slices[$1]="--offset=$2 --size=$3 --rw=write --bs=64k --iodepth=8 --randseed=$4"
	# shellcheck disable=SC2086 # the job's words
	lr_fio /dev/lraid0 "$1" ${slices[$1]} "${@:5}"
}
# verify_slices: each slice's blocks check out (fio verify_only holds
# each block to its own header: one an earlier job left passes too)
verify_slices() {
	local s
	for s in "${!slices[@]}"; do
		# shellcheck disable=SC2086
		lr_fio /dev/lraid0 "$s" ${slices[$s]} --verify_only
	done
}
# wait_sys FILE VALUE SECS: lraid0's sysfs FILE reads VALUE within SECS
wait_sys() {
	local v end=$((SECONDS + $3))
	while read -r v <"$sys/$1" && [ "$v" != "$2" ]; do
		[ $SECONDS -lt "$end" ] || lr_fail "$sys/$1 still '$v' after $3 s, expected '$2'"
		sleep 0.2
	done
}
# out DEV: DEV failed and removed from lraid0
out() {
	"$LRAIDCTL" fail lraid0 "$1" 2>/dev/null || lr_fail "fail $1"
	"$LRAIDCTL" remove lraid0 "$1" 2>/dev/null || lr_fail "remove $1"
}
# rebuilt: the pass ends within 60 s, every member active
rebuilt() {
	wait_sys sync_action idle 60
	lr_not_failed lraid0
}
# klog: the kernel log since the mark into $log (read once: dmesg is
# slow on the debug kernel)
klog() {
	log=$(lr_klog) || lr_fail "cannot read the kernel log from the mark"
}
# readded DEV ROLE D: the kernel log since the mark shows DEV re-added
# as ROLE over D of the M bitmap regions, and in sync
readded() {
	local e
	klog
	for e in "lraid0: $(basename "$1") re-added as role $2 " \
		"lraid0: recover started: re-adding role $2, rebuilding the $3 of $M bitmap regions" \
		"lraid0: recover done: $(basename "$1") (role $2) is in sync"; do
		grep -qF "$e" <<<"$log" ||
			lr_fail "no '$e' in the kernel log: $(grep lraid <<<"$log")"
	done
}
# sum: sha256 of all of lraid0, read around the page cache (a copy read
# while degraded must not answer for the members read after)
sum() {
	dd if=/dev/lraid0 bs=1M iflag=direct status=none | sha256sum
}
# dirty: the bits set now, some but not every region
dirty() {
	D=$(cat "$sys/bitmap_dirty")
	if [ "$D" -le 0 ] || [ "$D" -ge "$M" ]; then
		lr_fail "bitmap_dirty $D of $M after writes while degraded"
	fi
}

size=$(blockdev --getsize64 /dev/lraid0)
slice w 0 4M 1 --do_verify=0
slice rest 4M $((size - 4 * 1048576)) 2 --do_verify=0
wait_sys bitmap_dirty 0 15
out "${LR_M[1]}"
slice w 0 4M 3
dirty
# role 1's blocks from the others' parity: what it must hold once back
want=$(sum)
lr_klog_mark
inc "$LR_TMP/o" --quiet "${LR_M[1]}"
grep -q "re-added ${LR_M[1]} to lraid0" "$LR_TMP/o" ||
	lr_fail "incremental --quiet on a member back: $(cat "$LR_TMP/o")"
rebuilt
readded "${LR_M[1]}" 1 "$D"
# fio's verify_only passes blocks another job left (their checksums
# hold): a region left out of the rebuild shows here, and in the check
[ "$(sum)" = "$want" ] || lr_fail "lraid0 reads back otherwise after the re-add"
verify_slices
"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail check
[ "$(cat "$sys/last_sync_action")" = check ] || lr_fail "no check ran"
[ "$(cat "$sys/mismatch_cnt")" = 0 ] || lr_fail "check: mismatch_cnt $(cat "$sys/mismatch_cnt")"
lr_log "role 1 re-added over $D of $M regions: data verified, check 0"

# role 3 rebuilt in full onto a fresh device: its old one is stale
old=${LR_M[3]}
out "$old"
lr_nullb "nullb${#LR_NULLB[@]}" 8
fresh=$LR_DEV
"$LRAIDCTL" add lraid0 "$fresh" 2>/dev/null || lr_fail "add $fresh"
rebuilt
sb_old=$(lr_sbsum "$old")
out "${LR_M[2]}"
lr_klog_mark
inc "$LR_TMP/o" --quiet "$old"
[ ! -s "$LR_TMP/o" ] || lr_fail "--quiet printed for $old: $(cat "$LR_TMP/o")"
inc "$LR_TMP/o" "$old"
grep -q "role 3 of lraid0, which its superblock names, is held by another device that works: not re-added" "$LR_TMP/o" ||
	lr_fail "incremental on $old, its role working: $(cat "$LR_TMP/o")"
[ "$(cat "$sys/failed")" = 2 ] || lr_fail "failed roles: $(cat "$sys/failed")"
D=$(cat "$sys/bitmap_dirty")
inc "$LR_TMP/o" "${LR_M[2]}"
grep -q "already running as /dev/lraid0" "$LR_TMP/o" ||
	lr_fail "incremental on role 2's device back: $(cat "$LR_TMP/o")"
grep -q "re-added ${LR_M[2]} to lraid0" "$LR_TMP/o" ||
	lr_fail "incremental on role 2's device back: $(cat "$LR_TMP/o")"
rebuilt
readded "${LR_M[2]}" 2 "$D"
out "$fresh"
lr_klog_mark
if "$LRAIDCTL" incremental --quiet "$old" 2>"$LR_TMP/o"; then
	lr_fail "incremental re-added or added $old, stale beyond the bitmap: $(cat "$LR_TMP/o")"
fi
grep -q "re-add $old to lraid0 refused: Stale file handle" "$LR_TMP/o" ||
	lr_fail "refusal of $old: $(cat "$LR_TMP/o")"
if "$LRAIDCTL" incremental "$old" 2>"$LR_TMP/o"; then
	lr_fail "incremental (not --quiet) on $old exited 0"
fi
grep -q "not added to lraid0: incremental starts no full rebuild" "$LR_TMP/o" ||
	lr_fail "incremental on $old: $(cat "$LR_TMP/o")"
klog
grep -qF "re-add: $(basename "$old") is not a member that left the array recently enough for its bitmap (it left before the bits were last cleared)" <<<"$log" ||
	lr_fail "no re-add refusal in the kernel log: $(grep lraid <<<"$log")"
if grep -Eq "$(basename "$old") (re-)?added as role|recover started" <<<"$log"; then
	lr_fail "$old was added: $(grep lraid <<<"$log")"
fi
[ "$(cat "$sys/failed")" = 3 ] || lr_fail "failed roles after: $(cat "$sys/failed")"
[ "$(cat "$sys/sync_action")" = idle ] || lr_fail "sync_action $(cat "$sys/sync_action")"
[ "$(lr_sbsum "$old")" = "$sb_old" ] || lr_fail "$old's superblock was written"
lr_log "stale device left out: its role working, then refused"
"$LRAIDCTL" stop lraid0 || lr_fail stop

if [ $udev = 1 ]; then
	lr_log "a set the kernel would refuse, on loop members (udev watches them)"
	lr_members loop 3 64
	lr_create lraid1 --level 5 "${LR_M[@]}"
	"$LRAIDCTL" fail lraid1 "${LR_M[2]}" || lr_fail "fail role 2"
	# role 2 recorded failed, the array active: as if it then crashed
	lr_sb_save "${LR_M[0]}" "${LR_M[1]}"
	"$LRAIDCTL" stop lraid1 || lr_fail "stop lraid1"
	lr_sb_restore "${LR_M[0]}" "${LR_M[1]}"
	lr_settle
	if "$LRAIDCTL" incremental "${LR_M[0]}" 2>"$LR_TMP/o"; then
		lr_fail "a set not stopped cleanly that would start degraded was started"
	fi
	grep -q "was not stopped cleanly.*would start degraded.*not assembled" "$LR_TMP/o" ||
		lr_fail "refusal: $(cat "$LR_TMP/o")"
	# through udev, counting the runs: one change event must make one run,
	# not a run that opens the members for writing, whose close makes
	# udev send more change events, and so on
	cat >"$LR_TMP/wrap" <<-EOF
		#!/bin/sh
		echo "\$*" >>"$LR_TMP/runs"
		exec "$LRAIDCTL" "\$@"
	EOF
	chmod +x "$LR_TMP/wrap"
	: >"$LR_TMP/runs"
	sed "s|@LRAIDCTL@|$LR_TMP/wrap|" tools/udev/65-lraid-incremental.rules.in >"$rules"
	udevadm control --reload || lr_fail "udevadm control --reload"
	udevadm trigger --action=change "${LR_M[0]}" || lr_fail "udevadm trigger"
	lr_settle
	sleep 3
	lr_settle
	runs=$(grep -c "${LR_M[0]}\|${LR_M[1]}" "$LR_TMP/runs" || :)
	[ "$runs" -ge 1 ] || lr_fail "the rule did not run for ${LR_M[0]}"
	[ "$runs" -le 2 ] ||
		lr_fail "$runs runs for one change event: $(sort "$LR_TMP/runs" | uniq -c | tr '\n' ' ')"
	[ ! -e /dev/lraid1 ] || lr_fail "lraid1 started"
	rm -f "$rules"
	udevadm control --reload
	lr_settle
fi
echo "PASS: incremental assembly"
