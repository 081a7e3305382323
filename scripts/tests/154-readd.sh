#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Re-add with the write-intent bitmap (md's --re-add): a member that left
# the array at or after the last superblock pass with every role working
# (superblock field bitmap_events, 0x0c0) is rebuilt only over the
# regions whose bit is set, since nothing clears a bit while a role is
# failed. Arrays are created with --bitmap=internal --bitmap-chunk=1M (a
# bit per MiB of member data: 15 regions) on 16 MiB null_blk members,
# 64 KiB chunks (3 MiB of array a region), bitmap_delay 1 (a bit is
# cleared 1-2 s after its region's last write while every role works;
# set before the first create). The array is written whole by fio
# (crc32c) as two jobs with seeds of their own: head (the first 12 MiB
# of the array, regions 0-3) and tail (the rest). Writes while members
# are out rewrite head (random 4-64 KiB writes, each block once) with a
# new seed; the data verifies when both jobs read back (verify_only),
# head as its last write left it, and the array reads byte for byte as
# right after the last write (lr_snap: verify_only alone passes a block
# an older write left).
# A re-add counts as done when lraidctl add (or re-add) said so, the
# kernel log has "DEV re-added as role R (events E, array at F)" and
# "recover started: re-adding role R, rebuilding the D of M bitmap
# regions" with D bitmap_dirty read just before the add (0 < D < M,
# M = bitmap_regions), then "recover done: DEV (role R) is in sync" and
# no "recover stopped"; detail shows DEV active sync in role R and DEV
# carries the others' event count.
#   - RAID5 x4: the whole array written, bitmap_dirty 0 within 15 s; role
#     1 failed and removed: its events are at least the working members'
#     bitmap_events (compat bit 0x2 set); head rewritten: D > 0,
#     still D 2.5 s (two delays) later; 4 KiB of region 2/3 M (clean) of
#     the removed device overwritten behind lraid's back: after the
#     re-add it still holds those bytes (the region was not rebuilt: a
#     full rebuild would have), which are then put back. The data
#     verifies, bitmap_dirty is 0 within 15 s, a check finds 0, and with
#     role 0 failed (its data area zeroed) the data verifies again:
#     reads now need the re-added member everywhere.
#   - Stale (same array): the zeroed role 0 removed and a fresh device
#     added and rebuilt in full ("added as role 0, rebuilding it from the
#     other members"); healthy again, bitmap_events moves past the old
#     device's events. With the fresh device failed and removed,
#     lraidctl re-add refuses the old one (exit 1, "Stale file handle";
#     kernel log "re-add: DEV is not a member that left the array
#     recently enough for its bitmap (it left before the bits were last
#     cleared)") and a device with no superblock ("no superblock of the
#     array"), each leaving role 0 failed, nothing running and the device
#     free; plain add rebuilds the old one in full ("recover started:
#     rebuilding role 0", no "re-added"): the data verifies, check 0.
#   - Across a stop (same array): role 2 failed and removed, head rewritten,
#     the array stopped (clean, degraded); assembled without role 2's
#     device: role 2 missing, the bitmap loaded with the D bits, the data
#     verifies; stopped again and assembled with all four: assembly
#     re-adds role 2's device (md's bitmap-based recovery; lraidctl and
#     the kernel log say so, the pass goes over the D regions), then it
#     is in sync: data verifies, check 0.
#   - RAID6 x5, interrupted: role 2 failed and removed, head rewritten,
#     sync_speed_max 500 (KiB/s: 8 s for the 4 regions); the re-add is
#     seen running (sync_action recover, sync_completed past its start,
#     detail "spare rebuilding"), idle stops it (the log: re-added, D of
#     M, "recover stopped ... interrupted; role 2 stays failed", no
#     "recover done"; the device faulty in the slot, bitmap_dirty still
#     D); lraidctl re-add of the device, still in the slot, re-adds it
#     again with the same D and completes: data verifies, check 0.
#   - RAID6 x5, two out: roles 1 and 3 failed and removed, head rewritten,
#     each device's region 2/3 M overwritten as above; role 3's device
#     added first goes back to role 3 (its superblock's, not the lowest
#     failed), then role 1's, both with the same D (no bit cleared while
#     role 1 stays failed); both kept the overwritten bytes, the data
#     verifies, a check finds 0, and with roles 0 and 2 failed (zeroed)
#     the data verifies from roles 1, 3 and 4.
#   - RAID6 x4, run apart: stopped, roles 0 and 1 assembled alone
#     (--run) and written (half A), stopped; roles 2 and 3 alone (half
#     B) written twice across two starts, so that B's count is past A's;
#     all four assembled: B speaks for the array, roles 0 and 1 failed,
#     and B's data verifies. Role 0's device, at a count inside B's
#     bitmap range, is no re-add: it records B's roles failed ("it ran
#     apart from it": B's bitmap never saw A's writes); add rebuilds
#     roles 0 and 1 in full, the data verifies, a check finds 0.
#   - RAID6 x5 without a bitmap, two out: roles 1 and 3 failed and
#     removed, head rewritten; role 3's device added first is no re-add:
#     it takes the lowest failed role, 1 (its superblock's role 3 is not
#     followed), and is rebuilt in full ("added as role 1"), then role 1's
#     device takes role 3 the same way; detail shows both where they went,
#     their superblocks carry those roles, the data verifies, a check
#     finds 0, and a stop and assemble find every member in sync (a
#     device given one slot while the rebuild wrote another left the
#     array with a member in a role it was not rebuilt for).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

d=/sys/block/lraid0/lraid
delay=/sys/module/lraid/parameters/bitmap_delay
MB=16				# member size, MiB
HEAD=$((12 * 1048576))		# bytes of the array that writes while degraded cover
TIMEOUT=120			# seconds a pass may take
[ -w "$delay" ] || lr_fail "no writable $delay"
echo 1 >"$delay" || lr_fail "bitmap_delay 1 refused"

# Under TCG every process started costs 0.1-0.7 s, so sysfs is read with
# read, the kernel log once per step and matched in bash (lr_klog_has
# starts three processes a pattern), a superblock once per step.

# val FILE: what /sys/block/lraid0/lraid/FILE reads, in v
val() {
	read -r v <"$d/$1" || lr_fail "read $d/$1"
}

# is FILE VALUE: /sys/block/lraid0/lraid/FILE reads VALUE
is() {
	val "$1"
	[ "$v" = "$2" ] || lr_fail "$d/$1 reads '$v', expected '$2'"
}

# slurp FILE: FILE's text in t
slurp() {
	t=
	read -r -d '' t <"$1" || :
}

# sb DEV FIELD...: DEV's superblock (lraidctl examine --json, read around
# the page cache): each FIELD (a number or a word) in sb_FIELD
sb_role='' sb_events='' sb_data_offset='' sb_state=''
sb() {
	local j f re
	j=$("$LRAIDCTL" examine --json "$1") || lr_fail "examine $1"
	for f in "${@:2}"; do
		re="\"$f\": \"?([a-z0-9]+)"
		[[ $j =~ $re ]] || lr_fail "examine $1: no $f: $j"
		printf -v "sb_$f" %s "${BASH_REMATCH[1]}"
	done
}

# bm_events DEV: DEV's bitmap_events (u64 at 0x0c0) in be, with the
# compat bit that says it is there (0x2 of feature_compat, 0x014): the
# 4-byte words from 0x014 to 0x0c8
bm_events() {
	local w
	dd if="$1" of="$LR_TMP/sb" bs=4096 count=1 iflag=direct status=none ||
		lr_fail "read the superblock of $1"
	read -r -d '' -a w < <(od -An -v -t u4 -j $((0x14)) -N $((0xc8 - 0x14)) \
		"$LR_TMP/sb") || :
	[ "${#w[@]}" = 45 ] || lr_fail "$1: superblock words ${w[*]}"
	(((w[0] & 2) != 0)) || lr_fail "$1: feature_compat ${w[0]}, no bitmap_events"
	be=$((w[43] + (w[44] << 32)))
}

# klog_is [!]ERE...: the kernel log since the mark has each ERE, and no
# ERE given as !ERE (a line ends in a newline: no ^ or $)
klog_is() {
	local lines i log e
	mapfile -t lines < <(dmesg)
	for ((i = ${#lines[@]} - 1; i >= 0; i--)); do
		[[ ${lines[i]} == *"$LR_KLOG_MARK" ]] && break
	done
	((i >= 0)) || lr_fail "the mark is not in the kernel log (dmesg failed?)"
	printf -v log '%s\n' "${lines[@]:i+1}"
	for e; do
		if [ "${e:0:1}" = "!" ]; then
			[[ ! $log =~ ${e:1} ]] ||
				lr_fail "kernel log: '${BASH_REMATCH[0]}': $log"
		else
			[[ $log =~ $e ]] ||
				lr_fail "no '$e' in the kernel log: ${log:$((${#log} > 800 ? ${#log} - 800 : 0))}"
		fi
	done
}

# row ROLE STATE DEV: detail shows DEV in role ROLE as STATE
row() {
	local out re="
 +[0-9]+ +[0-9]+ +[0-9]+ +$1 $2 +$3
"
	out=$("$LRAIDCTL" detail lraid0) || lr_fail "detail lraid0"
	[[ $'\n'$out$'\n' =~ $re ]] ||
		lr_fail "detail: role $1 is not '$2' on $3: $out"
}

# wait_idle WHAT: sync_action reads idle within TIMEOUT seconds
wait_idle() {
	local a end=$((SECONDS + TIMEOUT))
	while read -r a <"$d/sync_action" && [ "$a" != idle ]; do
		[ $SECONDS -lt $end ] ||
			lr_fail "$1: still '$a' after $TIMEOUT s ($(cat "$d/sync_completed"))"
		sleep 0.2
	done
}

# wait_dirty N SECS WHAT: bitmap_dirty reads N within SECS seconds
wait_dirty() {
	local start=$SECONDS
	while val bitmap_dirty && [ "$v" != "$1" ]; do
		[ $((SECONDS - start)) -lt "$2" ] ||
			lr_fail "$3: bitmap_dirty still $v after $2 s, expected $1"
		sleep 0.2
	done
}

# pass_check: a check runs to its end and finds 0
pass_check() {
	"$LRAIDCTL" action check --wait lraid0 >/dev/null || lr_fail "check"
	is last_sync_action check
	is mismatch_cnt 0
}

# The data: fio jobs head (1) and tail (2) of one run, as fio's seeds
# depend on a job's place as well as on randseed; head alone is job 1.
SEED=1
# fio_run GLOBAL JOB...: one fio run over lraid0, crc32c, with the
# global option GLOBAL (--do_verify=0 or --verify_only); fails on errors
fio_run() {
	fio --filename=/dev/lraid0 --direct=1 --ioengine=libaio --iodepth=8 \
		--verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--output="$LR_TMP/fio.out" "$@" ||
		{ slurp "$LR_TMP/fio.out"; lr_fail "fio $*: $t"; }
	slurp "$LR_TMP/fio.out"
	[[ ! $t =~ err=\ *[1-9] ]] || lr_fail "fio $* reported errors: $t"
}

# fill: the whole array written, head and tail in 1 MiB writes
fill() {
	local size
	size=$(blockdev --getsize64 /dev/lraid0)
	head_job=(--name=head --offset=0 "--size=$HEAD" --rw=write --bs=1M
		--randseed=$((++SEED)))
	tail_job=(--name=tail "--offset=$HEAD" "--size=$((size - HEAD))" --rw=write
		--bs=1M --randseed=$((++SEED)))
	fio_run --do_verify=0 "${head_job[@]}" "${tail_job[@]}"
	lr_snap cur
}

# head_new: head rewritten, random 4-64 KiB writes (each block once)
head_new() {
	head_job=(--name=head --offset=0 "--size=$HEAD" --rw=randwrite
		--bsrange=4k-64k --randseed=$((++SEED)))
	fio_run --do_verify=0 "${head_job[@]}"
	lr_snap cur
}

# verify WHAT: head and tail read back as last written
verify() {
	fio_run --verify_only "${head_job[@]}" "${tail_job[@]}"
	lr_snap_cmp cur "$1"
	lr_log "data verified: $1"
}

# new LEVEL N: lraid0 on N new members (m), bitmap every MiB, written
# whole, no bit set; M its regions
new() {
	"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 || :
	LR_ARRAYS=()
	lr_nullb_drop || lr_fail "null_blk devices still held"
	lr_members nullb "$2" "$MB"
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$1" --chunk 64K --bitmap=internal \
		--bitmap-chunk=1M "${m[@]}"
	is bitmap_region_kb 1024
	val bitmap_regions
	M=$v
	[ "$M" -ge 14 ] || lr_fail "bitmap_regions $M on $MB MiB members"
	fill
	wait_dirty 0 15 "after the fill"
	lr_log "RAID$1 x$2: written whole, $M regions, none dirty"
}

spare() {
	lr_nullb "nullb${#LR_NULLB[@]}" "$MB"
}

# out ROLE...: each role's device failed and removed; each left with
# events at or past the array's bitmap_events (the last member, m[N-1],
# is working in every part)
out() {
	local r
	for r; do
		"$LRAIDCTL" fail lraid0 "${m[$r]}" >/dev/null || lr_fail "fail ${m[$r]}"
		"$LRAIDCTL" remove lraid0 "${m[$r]}" >/dev/null ||
			lr_fail "remove ${m[$r]}"
	done
	bm_events "${m[${#m[@]} - 1]}"
	for r; do
		sb "${m[$r]}" events
		[ "$sb_events" -ge "$be" ] ||
			lr_fail "${m[$r]} left at events $sb_events, before bitmap_events $be"
	done
	lr_log "roles $* out at events $sb_events, bitmap_events $be"
}

# dirty_now [SECS]: D is bitmap_dirty, some but not every region, and
# still D SECS seconds later (no clear pass may clear a bit while degraded)
dirty_now() {
	val bitmap_dirty
	D=$v
	if [ "$D" -le 0 ] || [ "$D" -ge "$M" ]; then
		lr_fail "bitmap_dirty $D of $M after writes while degraded"
	fi
	if [ $# = 1 ]; then
		sleep "$1"
		is bitmap_dirty "$D"
	fi
	lr_log "degraded: $D of $M regions dirty${1:+, still after $1 s}"
}

# tamper DEV: 4 KiB of DEV's data area in region 2/3 M (clean) made noise
# behind lraid's back, the bytes kept (toff, $LR_TMP/orig.NAME)
tamper() {
	local n=${1##*/}
	sb "$1" data_offset
	toff=$((sb_data_offset * 512 + (M * 2 / 3) * 1048576 + 28672))
	dd if="$1" of="$LR_TMP/orig.$n" bs=4096 count=1 skip="$toff" \
		iflag=direct,skip_bytes status=none || lr_fail "read $1 at $toff"
	head -c 4096 /dev/urandom >"$LR_TMP/noise.$n"
	dd if="$LR_TMP/noise.$n" of="$1" bs=4096 count=1 seek="$toff" \
		oflag=direct,seek_bytes conv=notrunc status=none ||
		lr_fail "overwrite $1 at $toff"
}

# untouched DEV: DEV's bytes from tamper are still the noise (no rebuild
# went over that clean region); then they are put back
untouched() {
	local n=${1##*/}
	dd if="$1" of="$LR_TMP/now.$n" bs=4096 count=1 skip="$toff" \
		iflag=direct,skip_bytes status=none || lr_fail "read $1 at $toff"
	cmp -s "$LR_TMP/noise.$n" "$LR_TMP/now.$n" ||
		lr_fail "$1: region $((M * 2 / 3)), clean, was rebuilt by the re-add"
	dd if="$LR_TMP/orig.$n" of="$1" bs=4096 count=1 seek="$toff" \
		oflag=direct,seek_bytes conv=notrunc status=none ||
		lr_fail "put back $1 at $toff"
}

# add DEV [VERB]: lraidctl VERB (add) lraid0 DEV succeeds, a log mark
# first; its words in $LR_TMP/add
add() {
	lr_klog_mark
	"$LRAIDCTL" "${2:-add}" lraid0 "$1" >"$LR_TMP/add" 2>&1 ||
		{ slurp "$LR_TMP/add"; lr_fail "${2:-add} $1: $t"; }
}

# readd ROLE DEV [VERB]: DEV added (or re-added: VERB re-add),
# bitmap_dirty D just before; lraidctl says re-added (rebuilt ROLE DEV
# readd then checks the kernel log)
readd() {
	is bitmap_dirty "$D"
	add "$2" "${3:-add}"
	slurp "$LR_TMP/add"
	[[ $t == *re-added* ]] || lr_fail "lraidctl did not say re-added: $t"
}

# rebuilt ROLE DEV KIND: the rebuild the add started ended with DEV in
# sync in ROLE, as a re-add over D of M regions (KIND readd) or in full
# (full)
rebuilt() {
	local n=${2#/dev/} other='' ev r f
	wait_idle "rebuild of role $1 onto $2"
	if [ "$3" = readd ]; then
		klog_is "lraid0: $n re-added as role $1 \\(events [0-9]+, array at [0-9]+\\): rebuilding what the bitmap records it missed" \
			"lraid0: recover started: re-adding role $1, rebuilding the $D of $M bitmap regions written while it was out" \
			"!from the other members"
	else
		klog_is "lraid0: $n added as role $1, rebuilding it from the other members" \
			"lraid0: recover started: rebuilding role $1"$'\n' "!re-add"
	fi
	klog_is "lraid0: recover done: $n \\(role $1\\) is in sync" "!recover stopped"
	is last_sync_action recover
	is sync_completed none
	row "$1" "active sync" "$2"
	sb "$2" role events
	[ "$sb_role" = "$1" ] || lr_fail "$2 carries role $sb_role, not $1"
	ev=$sb_events
	# the first working member of another role
	read -r f <"$d/failed" || f=
	for r in "${!m[@]}"; do
		if [ "$r" != "$1" ] && [[ ,$f, != *,$r,* ]]; then
			other=${m[$r]}
			break
		fi
	done
	sb "$other" events
	[ "$ev" = "$sb_events" ] || lr_fail "$2: events $ev, $other's $sb_events"
	lr_log "role $1 back on $2 ($3)"
}

# fail_wipe ROLE...: each failed, its data area then zeroed behind
# lraid's back (zeroes rather than lr_noise's random bytes: as sure to
# fail fio's verify, faster under TCG)
fail_wipe() {
	local r x
	for r; do
		x=${m[$r]}
		"$LRAIDCTL" fail lraid0 "$x" >/dev/null || lr_fail "fail $x"
		sb "$x" data_offset
		dd if=/dev/zero of="$x" bs=1M seek=$((sb_data_offset * 512)) \
			count=$((($(blockdev --getsz "$x") - sb_data_offset) / 2048)) \
			oflag=direct,seek_bytes conv=fsync status=none ||
			lr_fail "zero the data area of $x"
	done
}

# stale_refused DEV REASON: lraidctl re-add refuses DEV with ESTALE and
# the kernel gives REASON; nothing changes
stale_refused() {
	local rc=0 f
	val failed
	f=$v
	lr_klog_mark
	"$LRAIDCTL" re-add lraid0 "$1" >"$LR_TMP/refused" 2>&1 || rc=$?
	slurp "$LR_TMP/refused"
	[ "$rc" = 1 ] || lr_fail "re-add $1: exit $rc, expected 1: $t"
	[[ $t == *"Stale file handle"* ]] || lr_fail "re-add $1: '$t', expected ESTALE"
	klog_is "lraid0: re-add: ${1##*/} is not a member that left the array recently enough for its bitmap \\($2\\)"
	is failed "$f"
	is sync_action idle
	h=("/sys/block/${1##*/}/holders/"*)
	[ ! -e "${h[0]}" ] || lr_fail "$1 still held after the refused re-add: ${h[*]}"
	lr_log "re-add $1 refused: $t"
}

# ---------------------------------------------------------------------
lr_log "RAID5 x4: role 1 out, written, re-added"
new 5 4
out 1
head_new
dirty_now 2.5
tamper "${m[1]}"
readd 1 "${m[1]}"
rebuilt 1 "${m[1]}" readd
untouched "${m[1]}"
verify "re-added"
wait_dirty 0 15 "healthy after the re-add"
pass_check
fail_wipe 0
verify "role 0 failed"

# ---------------------------------------------------------------------
lr_log "RAID5 x4: a device that left before the bits were last cleared"
old=${m[0]}
"$LRAIDCTL" remove lraid0 "$old" >/dev/null || lr_fail "remove $old"
spare
add "$LR_DEV"
m[0]=$LR_DEV
rebuilt 0 "${m[0]}" full
bm_events "${m[3]}"
sb "$old" events
[ "$be" -gt "$sb_events" ] ||
	lr_fail "healthy again, bitmap_events $be, not past the old device's $sb_events"
lr_log "bitmap_events $be, the old device at $sb_events"
"$LRAIDCTL" fail lraid0 "${m[0]}" >/dev/null || lr_fail "fail ${m[0]}"
"$LRAIDCTL" remove lraid0 "${m[0]}" >/dev/null || lr_fail "remove ${m[0]}"
stale_refused "$old" "it left before the bits were last cleared"
spare
stale_refused "$LR_DEV" "no superblock of the array"
add "$old"
m[0]=$old
rebuilt 0 "${m[0]}" full
verify "the old device rebuilt in full"
pass_check

# ---------------------------------------------------------------------
lr_log "RAID5 x4: role 2 out, written, stopped, assembled, re-added"
out 2
head_new
dirty_now
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
for x in "${m[0]}" "${m[1]}" "${m[3]}"; do
	sb "$x" state
	[ "$sb_state" = clean ] || lr_fail "$x: superblock $sb_state after the stop"
done
# without it: degraded as it stopped, the bits kept, stopped again
lr_klog_mark
"$LRAIDCTL" assemble lraid0 "${m[0]}" "${m[1]}" "${m[3]}" >"$LR_TMP/asm" 2>&1 ||
	{ slurp "$LR_TMP/asm"; lr_fail "assemble without role 2: $t"; }
LR_ARRAYS=(lraid0)
lr_settle
klog_is "lraid0: write-intent bitmap: $M regions of 1024 KiB, $D dirty"
row 2 missing "-"
is failed 2
is sync_action idle
verify "assembled without role 2"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
# with it: assembly re-adds it over the D regions (md's bitmap-based
# recovery at assembly)
lr_klog_mark
"$LRAIDCTL" assemble lraid0 "${m[@]}" >"$LR_TMP/asm" 2>&1 ||
	{ slurp "$LR_TMP/asm"; lr_fail "assemble with every member: $t"; }
LR_ARRAYS=(lraid0)
slurp "$LR_TMP/asm"
[[ $t == *"${m[2]} (role 2) left the array at events "*", since the write-intent bits were last cleared ("*"): assembled with it, it is re-added over the regions written while it was out"* ]] ||
	lr_fail "lraidctl assemble did not say it re-adds ${m[2]}: $t"
[[ $t == *"the rebuild onto ${m[2]}, a re-add, runs"* ]] ||
	lr_fail "lraidctl assemble: $t"
wait_idle "re-add of role 2 at assembly"
klog_is "lraid0: ${m[2]#/dev/} \\(role 2\\) left the array at events [0-9]+, since the write-intent bits were last cleared \\([0-9]+\\): re-added, rebuilding the regions written while it was out" \
	"lraid0: write-intent bitmap: $M regions of 1024 KiB, $D dirty" \
	"lraid0: recover started: re-adding role 2, rebuilding the $D of $M bitmap regions written while it was out" \
	"lraid0: recover done: ${m[2]#/dev/} \\(role 2\\) is in sync" \
	"!recover stopped" "!is stale"
row 2 "active sync" "${m[2]}"
is failed ""
verify "re-added at assembly"
pass_check

# ---------------------------------------------------------------------
lr_log "RAID6 x5: role 2 out, an interrupted re-add, re-added again"
new 6 5
out 2
head_new
dirty_now
echo 100 >"$d/sync_speed_min" || lr_fail "sync_speed_min 100"
echo 500 >"$d/sync_speed_max" || lr_fail "sync_speed_max 500"
readd 2 "${m[2]}"
for ((i = 0; i < 300; i++)); do
	read -r a <"$d/sync_action"
	read -r s _ <"$d/sync_completed"
	[ "$a" = idle ] && lr_fail "the re-add ended before it was seen running"
	[ "$a" = recover ] && [ "$s" != none ] && [ "$s" -gt 0 ] && break
	sleep 0.1
done
[ "$a" = recover ] || lr_fail "the re-add not seen running in 30 s: $a $s"
row 2 "spare rebuilding" "${m[2]}"
lr_log "re-add running at sector $s"
echo idle >"$d/sync_action" || lr_fail "sync_action refused idle"
wait_idle "idle"
klog_is "lraid0: ${m[2]#/dev/} re-added as role 2 \\(events [0-9]+, array at [0-9]+\\)" \
	"lraid0: recover started: re-adding role 2, rebuilding the $D of $M bitmap regions" \
	"lraid0: recover stopped at stripe [0-9]+ of [0-9]+: interrupted; role 2 stays failed" \
	"!recover done"
is failed 2
is bitmap_dirty "$D"
row 2 faulty "${m[2]}"
echo system >"$d/sync_speed_min"
echo system >"$d/sync_speed_max"
readd 2 "${m[2]}" re-add
rebuilt 2 "${m[2]}" readd
verify "re-added after an interrupted re-add"
wait_dirty 0 15 "healthy after the re-add"
pass_check

# ---------------------------------------------------------------------
lr_log "RAID6 x5: roles 1 and 3 out, written, re-added"
out 1 3
head_new
dirty_now 2.5
tamper "${m[1]}"
tamper "${m[3]}"
readd 3 "${m[3]}"
rebuilt 3 "${m[3]}" readd
is failed 1
readd 1 "${m[1]}"
rebuilt 1 "${m[1]}" readd
untouched "${m[3]}"
untouched "${m[1]}"
verify "both re-added"
pass_check
fail_wipe 0 2
verify "roles 0 and 2 failed"

# ---------------------------------------------------------------------
lr_log "RAID6 x4: halves run apart, the older half is not re-added"
new 6 4
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
# half ROLE ROLE: those two roles' devices alone started (--run),
# written, stopped
half() {
	"$LRAIDCTL" assemble --run lraid0 "${m[$1]}" "${m[$2]}" >/dev/null 2>&1 ||
		lr_fail "assemble --run roles $1 and $2"
	LR_ARRAYS=(lraid0)
	head_new
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
	LR_ARRAYS=()
}
# half A (roles 0 and 1) once; half B (2 and 3) twice: a count past A's
half 0 1
half 2 3
half 2 3
"$LRAIDCTL" assemble lraid0 "${m[@]}" >/dev/null 2>&1 ||
	lr_fail "assemble all four"
LR_ARRAYS=(lraid0)
is failed 0,1
verify "half B, the newer"
# A's members carry writes B's bitmap never saw: a re-add over B's bits
# would leave A's blocks in B's clean regions
stale_refused "${m[0]}" "it records roles failed that the array has working: it ran apart from it"
add "${m[0]}"
rebuilt 0 "${m[0]}" full
add "${m[1]}"
rebuilt 1 "${m[1]}" full
verify "the older half rebuilt in full"
pass_check

# ---------------------------------------------------------------------
lr_log "RAID6 x5, no bitmap: roles 1 and 3 out, added back in full"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
lr_nullb_drop || lr_fail "null_blk devices still held"
lr_members nullb 5 "$MB"
m=("${LR_M[@]}")
lr_create lraid0 --level 6 --chunk 64K --bitmap=none "${m[@]}"
is bitmap_regions 0
fill
for r in 1 3; do
	"$LRAIDCTL" fail lraid0 "${m[$r]}" >/dev/null || lr_fail "fail ${m[$r]}"
	"$LRAIDCTL" remove lraid0 "${m[$r]}" >/dev/null ||
		lr_fail "remove ${m[$r]}"
done
head_new
add "${m[3]}"
rebuilt 1 "${m[3]}" full
is failed 3
add "${m[1]}"
rebuilt 3 "${m[1]}" full
verify "old members added in full to the other's role"
pass_check
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()
"$LRAIDCTL" assemble lraid0 "${m[@]}" >/dev/null || lr_fail "assemble lraid0"
LR_ARRAYS=(lraid0)
is failed ""
row 1 "active sync" "${m[3]}"
row 3 "active sync" "${m[1]}"
verify "assembled again"
echo "PASS: re-added members are rebuilt over the bitmap's regions only, stale ones in full"
