#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Rebuild onto an added device (lraidctl add, as mdadm --add; md's
# "recover" pass), on 32 MiB null_blk members. A rebuild counts as done
# when sync_action reads idle again (within 240 s), last_sync_action is
# recover, sync_completed none, the kernel log says "recover done: DEV
# (role R) is in sync" (and no "recover stopped"), detail shows DEV
# "active sync" in role R, DEV carries a superblock of role R at the
# event count of the others, and sysfs failed and degraded no longer
# count the role.
#   - RAID5 x4: the whole array written (fio crc32c), role 1 failed, a
#     fifth device added and rebuilt with nothing written meanwhile: its
#     data area must then equal the failed member's byte for byte. A
#     check finds 0; stopped and assembled with the new device, the
#     array is whole and in order (lr_check_roles) and reads back; then
#     role 2 is failed, its data area overwritten with noise, and fio's
#     verify must read everything back through parity that includes the
#     new member.
#   - Refused, each with exit 1, its errno in lraidctl's message and
#     (but ENODEV) the reason in the kernel log: an add of an active
#     member (EBUSY), of a device too small (ENOSPC), to an array that
#     does not run (ENODEV), and of the device being rebuilt while its
#     rebuild runs (EBUSY; in the RAID6 x6 and interrupted parts). A
#     refused device is not kept: the next part removes it. (Any other
#     device added to an array that is not degraded, or while a pass
#     runs, is kept as a spare: 155-spares.)
#   - Under load: RAID6 x5, role 2 failed; once fio's random 4-64 KiB
#     writes (16 MiB over the whole array, crc32c, at most 2 MiB/s)
#     reach the array a device is added, the rebuild held to 3000 KiB/s
#     (sync_speed_min and _max); at least 3 samples must see the rebuild
#     running, past its start and short of its end, while the array
#     takes writes. Afterwards fio's data verifies, a check finds 0, and
#     with roles 1 and 3 failed (noise over them) the data still
#     verifies: a write behind the rebuild that missed the new member
#     fails one or the other.
#   - RAID6 x6, roles 4 and 1 failed, the whole array written: one add
#     rebuilds role 1 (the lowest) with role 4 still failed (two-failure
#     reconstruction; lraidctl names role 4 as still failed) and an add
#     of that device meanwhile is EBUSY ("a rebuild is running"); then
#     role 4. Each new device's data area equals its failed member's, a
#     check finds 0, and with roles 0 and 3 failed (noise) the data
#     verifies.
#   - Interrupted: RAID5 x4, 24 MiB written, role 2 failed, a rebuild
#     held to 300 KiB/s seen running (sync_action recover,
#     sync_completed moving, detail "spare rebuilding", the role still in
#     failed and degraded); the data read back while the rebuild is
#     short of it (reads must not use the new device); idle stops it:
#     "recover stopped ... interrupted; role 2 stays failed", the device
#     kept as the role's faulty member, the data reads back; added again
#     it is rebuilt in full and a check finds 0. Then role 3 failed, a
#     slowed rebuild and a stop: "recover stopped ... role 3 stays
#     failed", and the stop records how far it got ("rebuild of role 3
#     onto DEV stopped at sector N"): the device carries role 3 with
#     recovery_offset N (0 < N < the member size; examine's "Recovery
#     Offset"). The other three assemble degraded (role 3 failed) and
#     the data reads back; stopped and assembled with the device too, it
#     is left out (the others ran without it: no rebuild goes on), and
#     added again it is rebuilt in full.
#   - Resumed: role 1 failed, a rebuild onto a new device held to
#     2000 KiB/s seen running, the array stopped: recovery_offset N on
#     the device; 4 KiB at sector 16 of its data area (below N, written
#     by the rebuild) made noise behind lraid's back. Assembled with it,
#     lraidctl and the kernel say the rebuild goes on from sector N and
#     the pass starts there ("rebuilding role 1 from sector N"); done,
#     the device is in sync (recovery_offset null), the noise is still
#     there (nothing below N was rebuilt again), then put back; the data
#     verifies, a check finds 0, and with role 2 failed (noise) the data
#     verifies through the resumed member. Role 2 is then rebuilt onto
#     a new device.
#   - Last, that array is stopped (every superblock clean, no role
#     failed) and assembled with all four: no "not stopped cleanly", not
#     degraded, no pass started, roles in order, the data verifies and a
#     check finds 0.
# Mutations of the module each fail it (stock 6.12): writes during the
# rebuild not sent to the new member (under load: fio's verify once the
# rebuild is done), a rebuild that skips the last stripe (RAID5 x4: the
# data areas differ), reads served by the member being rebuilt (under
# load: fio's verify during the rebuild).
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

d=/sys/block/lraid0/lraid
MB=32		# member size, MiB
TIMEOUT=240	# seconds a rebuild or check may take

# is FILE VALUE: /sys/block/lraid0/lraid/FILE reads VALUE
is() {
	local got
	got=$(cat "$d/$1") || lr_fail "read $d/$1"
	[ "$got" = "$2" ] || lr_fail "$d/$1 reads '$got', expected '$2'"
}

# spare [MIB]: LR_DEV is a new null_blk device, not a member of anything
spare() {
	lr_nullb "nullb${#LR_NULLB[@]}" "${1:-$MB}"
}

# row ROLE STATE DEV: detail shows DEV in role ROLE as STATE ("active
# sync", "spare rebuilding", "faulty")
row() {
	local out
	out=$("$LRAIDCTL" detail lraid0) || lr_fail "detail lraid0"
	grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +$1 $2 +/dev/$(lr_name "$3")\$" <<<"$out" ||
		lr_fail "detail: role $1 is not '$2' on $3: $out"
}

# add DEV: lraidctl add lraid0 DEV succeeds (a log mark first); its
# words in $LR_TMP/add
add() {
	lr_klog_mark
	"$LRAIDCTL" add lraid0 "$1" >"$LR_TMP/add" 2>&1 ||
		lr_fail "add $1: $(cat "$LR_TMP/add")"
}

# refused ERRNO_TEXT KLOG ARRAY DEV: lraidctl add ARRAY DEV fails with
# exit 1 and ERRNO_TEXT (strerror's) in its message ($LR_TMP/refused),
# and the kernel log since then has KLOG (an ERE; "" when the kernel
# says nothing). The log mark is put back as it was.
refused() {
	local rc=0 keep=$LR_KLOG_MARK
	lr_klog_mark
	"$LRAIDCTL" add "$3" "$4" >"$LR_TMP/refused" 2>&1 || rc=$?
	[ "$rc" = 1 ] ||
		lr_fail "add $4 to $3: exit $rc, expected 1 ($1): $(cat "$LR_TMP/refused")"
	grep -q "$1" "$LR_TMP/refused" ||
		lr_fail "add $4 to $3: '$(cat "$LR_TMP/refused")', expected $1"
	if [ -n "$2" ]; then
		lr_klog_has -E "$2" ||
			lr_fail "add $4 to $3 refused, but no '$2' in the kernel log: $(lr_klog | tail -5)"
	fi
	lr_log "add $4 to $3 refused: $(cat "$LR_TMP/refused")"
	LR_KLOG_MARK=$keep
}

# rm_refused DEV WHY: lraidctl remove lraid0 DEV fails with exit 1 and
# WHY in its message
rm_refused() {
	local rc=0
	"$LRAIDCTL" remove lraid0 "$1" >"$LR_TMP/rm" 2>&1 || rc=$?
	if [ "$rc" != 1 ] || ! grep -q "$2" "$LR_TMP/rm"; then
		lr_fail "remove $1: exit $rc, '$(cat "$LR_TMP/rm")', expected 1 and '$2'"
	fi
	lr_log "remove $1 refused: $(cat "$LR_TMP/rm")"
}

# wait_idle WHAT: sync_action reads idle within TIMEOUT seconds
wait_idle() {
	lr_wait_idle "$1" "$TIMEOUT"
}

# klog_wait ERE: the kernel log since the mark has ERE within 5 s
klog_wait() {
	lr_klog_wait "$1"
}

# rebuilt ROLE DEV FAILED DEGRADED: the rebuild add started ended with
# DEV in sync in ROLE, and sysfs failed and degraded then read FAILED and
# DEGRADED; lraidctl add had said it rebuilds ROLE
rebuilt() {
	local ev w
	grep -Eq "rebuilding role $1\$|role $1, rebuilt already" "$LR_TMP/add" ||
		lr_fail "add $2 did not say it rebuilds role $1: $(cat "$LR_TMP/add")"
	wait_idle "rebuild of role $1 onto $2"
	klog_wait "lraid0: recover done: $(lr_name "$2") \\(role $1\\) is in sync"
	lr_klog_has "recover stopped" &&
		lr_fail "rebuild of role $1: $(lr_klog | grep 'recover stopped')"
	is last_sync_action recover
	is sync_completed none
	is failed "$3"
	is degraded "$4"
	row "$1" "active sync" "$2"
	[ "$(lr_sb_num "$2" role)" = "$1" ] ||
		lr_fail "$2 has no superblock of role $1: $("$LRAIDCTL" examine "$2" 2>&1)"
	# a working member other than ROLE (m: the members by role)
	w=${m[0]}
	[ "$1" = 0 ] && w=${m[1]}
	ev=$(lr_sb_num "$w" events)
	[ "$(lr_sb_num "$2" events)" = "$ev" ] ||
		lr_fail "$2: events $(lr_sb_num "$2" events), $w's $ev"
	lr_log "role $1 rebuilt onto $2"
}

# running ROLE DEV: a rebuild of ROLE onto DEV is seen running within
# 30 s, past its first stripe and before its end, the role still failed
running() {
	local i a s
	for ((i = 0; i < 300; i++)); do
		read -r a <"$d/sync_action"
		read -r s <"$d/sync_completed"
		[ "$a" = idle ] &&
			lr_fail "the rebuild of role $1 ended before it was seen running: $(lr_klog | tail -3)"
		if [ "$a" = recover ] && [[ $s =~ ^([0-9]+)\ /\ ([0-9]+)$ ]] &&
			[ "${BASH_REMATCH[1]}" -gt 0 ]; then
			[ "${BASH_REMATCH[2]}" = "$total" ] ||
				lr_fail "sync_completed '$s': total not $total"
			[ "${BASH_REMATCH[1]}" -lt "$total" ] ||
				lr_fail "sync_completed '$s' while it runs"
			grep -qw "$1" "$d/failed" ||
				lr_fail "role $1 being rebuilt, failed reads '$(cat "$d/failed")'"
			[ "$(cat "$d/degraded")" -ge 1 ] ||
				lr_fail "role $1 being rebuilt, degraded reads $(cat "$d/degraded")"
			row "$1" "spare rebuilding" "$2"
			return 0
		fi
		sleep 0.1
	done
	lr_fail "the rebuild of role $1 was not seen running in 30 s: $a, $s"
}

# pass_check: a check runs to its end and finds 0
pass_check() {
	lr_klog_mark
	echo check >"$d/sync_action" || lr_fail "sync_action refused check"
	wait_idle check
	klog_wait "lraid0: check done"
	is last_sync_action check
	is mismatch_cnt 0
	lr_log "check: mismatch_cnt 0"
}

# same_data OLD NEW: the data areas of OLD and NEW are equal, byte for
# byte (read around the page cache)
same_data() {
	local off len
	off=$(lr_sb_num "$2" data_offset)
	len=$(($(cat "$d/component_size") * 1024))
	if ! [[ $off =~ ^[0-9]+$ ]] || [ "$len" -le 0 ]; then
		lr_fail "data area of $2: offset '$off', $len bytes"
	fi
	cmp <(dd if="$1" bs=1M skip=$((off * 512)) count="$len" \
		iflag=direct,skip_bytes,count_bytes status=none) \
		<(dd if="$2" bs=1M skip=$((off * 512)) count="$len" \
		iflag=direct,skip_bytes,count_bytes status=none) ||
		lr_fail "the data area of $2 differs from that of $1, the member it replaced"
	lr_log "$2 holds what $1 held, byte for byte ($len bytes)"
}

# fail_noise MEMBER...: each failed (lraidctl fail) and its data area
# overwritten: reads must now come from the others
fail_noise() {
	local x
	for x; do
		"$LRAIDCTL" fail lraid0 "$x" || lr_fail "fail $x"
		lr_noise "$x"
	done
}

# fill ARGS...: the whole array written in sequential writes of 16 KiB
# to 512 KiB, not read back (ARGS: --verify_only reads it)
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=16k-512k --iodepth=4 \
		--do_verify=0 "$@"
}

# new LEVEL N CHUNK: lraid0 on N new members, m = LR_M, total its
# member sectors
new() {
	"$LRAIDCTL" stop lraid0 >/dev/null 2>&1 || :
	LR_ARRAYS=()
	lr_nullb_drop || lr_fail "null_blk devices still held"
	lr_members nullb "$2" "$MB"
	m=("${LR_M[@]}")
	lr_create lraid0 --level "$1" --chunk "$3" "${m[@]}"
	total=$(($(cat "$d/component_size") * 2))
	is degraded 0
	is failed ""
}

# assemble MEMBER...: lraid0 from these members, lraidctl's words in
# $LR_TMP/asm
assemble() {
	"$LRAIDCTL" assemble lraid0 "$@" >"$LR_TMP/asm" 2>&1 ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble lraid0 $*"; }
	LR_ARRAYS=(lraid0)
	lr_settle
	[ -d "$d" ] || lr_fail "no $d after assemble"
}

stop() {
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
	LR_ARRAYS=()
}

# ---------------------------------------------------------------------
lr_log "RAID5 x4: rebuild of role 1 onto a fifth device"
new 5 4 64K
fill
spare
s1=$LR_DEV
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
is failed 1
is degraded 1
refused "Device or resource busy" "lraid0: add: .*${m[0]#/dev/} is an active member \\(role 0\\)" \
	lraid0 "${m[0]}"
spare $((MB / 2))
small=$LR_DEV
refused "No space left on device" "lraid0: add: ${small#/dev/} has [0-9]+ sectors, the data area needs" \
	lraid0 "$small"
refused "No such device" "" lraid7 "$s1"
is failed 1
row 1 faulty "${m[1]}"
add "$s1"
rebuilt 1 "$s1" "" 0
same_data "${m[1]}" "$s1"
pass_check
m[1]=$s1
stop
assemble "${m[@]}"
is degraded 0
lr_not_failed lraid0
lr_check_roles lraid0
fill --verify_only
lr_log "role 2 failed: read back through the rebuilt member"
fail_noise "${m[2]}"
fill --verify_only

# ---------------------------------------------------------------------
lr_log "RAID6 x5: rebuild of role 2 under random writes"
new 6 5 64K
# 16 MiB at 2 MiB/s at most: fio writes for 8 s or more, a slow host
# longer; the rebuild at 3000 KiB/s (31 MiB per member) 10 s or more
job=(--rw=randwrite --bsrange=4k-64k --io_size=16M --iodepth=8 "--rate=0,2m")
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
spare
s1=$LR_DEV
echo 3000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 3000"
echo 3000 >"$d/sync_speed_min" || lr_fail "sync_speed_min 3000"
read -r _ _ _ _ w0 _ </sys/block/lraid0/stat
fio --name=load --filename=/dev/lraid0 --direct=1 --ioengine=libaio \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --verify_state_save=0 \
	--output="$LR_TMP/load.out" "${job[@]}" &
pid=$!
# the rebuild starts once fio's writes reach the array (field 5 of stat:
# writes completed)
for ((i = 0; i < 600; i++)); do
	read -r _ _ _ _ w _ </sys/block/lraid0/stat
	[ "$w" -gt $((w0 + 32)) ] && break
	lr_running $pid || break
	sleep 0.1
done
lr_running $pid || { cat "$LR_TMP/load.out"; lr_fail "fio ended before the rebuild began"; }
add "$s1"
# samples where the rebuild runs, past its start and short of its end,
# and the array took writes since the sample before
during=0
while lr_running $pid; do
	read -r a <"$d/sync_action"
	read -r s <"$d/sync_completed"
	read -r _ _ _ _ w1 _ </sys/block/lraid0/stat
	if [ "$a" = recover ] && [ "$w1" -gt "$w" ] &&
		[[ $s =~ ^([0-9]+)\ /\ ([0-9]+)$ ]] &&
		[ "${BASH_REMATCH[1]}" -gt 0 ] &&
		[ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ]; then
		during=$((during + 1))
	fi
	w=$w1
	sleep 0.2
done
wait $pid || { cat "$LR_TMP/load.out"; lr_fail "fio during the rebuild"; }
if grep -Eq "err= *[1-9]" "$LR_TMP/load.out"; then
	cat "$LR_TMP/load.out"
	lr_fail "fio during the rebuild reported errors"
fi
lr_log "fio done: $during samples saw writes during the rebuild; now $(cat "$d/sync_action"), $(cat "$d/sync_completed")"
[ $during -ge 3 ] ||
	lr_fail "writes seen during the rebuild in $during samples, wanted 3 or more"
rebuilt 2 "$s1" "" 0
echo system >"$d/sync_speed_min"
echo system >"$d/sync_speed_max"
m[2]=$s1
lr_fio /dev/lraid0 load "${job[@]}" --verify_only
pass_check
lr_log "roles 1 and 3 failed: read back through the rebuilt member"
fail_noise "${m[1]}" "${m[3]}"
lr_fio /dev/lraid0 load "${job[@]}" --verify_only

# ---------------------------------------------------------------------
lr_log "RAID6 x6: roles 1 and 4 failed, rebuilt one after the other"
new 6 6 32K
fill
"$LRAIDCTL" fail lraid0 "${m[4]}" || lr_fail "fail ${m[4]}"
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
is failed 1,4
is degraded 2
spare
s1=$LR_DEV
spare
s2=$LR_DEV
# slowed a little, for the second add to find it running
echo 4000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 4000"
add "$s1"
grep -q "role 4 still failed" "$LR_TMP/add" ||
	lr_fail "add with two roles failed did not name role 4: $(cat "$LR_TMP/add")"
is sync_action recover
# the device being rebuilt, added again: refused (another device would
# be kept as a spare, 155-spares)
refused "Device or resource busy" "lraid0: add: a recover pass runs" lraid0 "$s1"
grep -q "a rebuild is running" "$LR_TMP/refused" ||
	lr_fail "add during a rebuild: no word of the rebuild: $(cat "$LR_TMP/refused")"
echo system >"$d/sync_speed_max"
rebuilt 1 "$s1" 4 1
same_data "${m[1]}" "$s1"
add "$s2"
rebuilt 4 "$s2" "" 0
same_data "${m[4]}" "$s2"
m[1]=$s1
m[4]=$s2
pass_check
lr_log "roles 0 and 3 failed: read back through both rebuilt members"
fail_noise "${m[0]}" "${m[3]}"
fill --verify_only

# ---------------------------------------------------------------------
lr_log "RAID5 x4: a rebuild interrupted by idle, then one by a stop"
new 5 4 64K
fill --size=24M
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
spare
s1=$LR_DEV
spare
other=$LR_DEV
# 300 KiB/s (under the default minimum, 1000): 8 MiB take 27 s, longer
# than the read back below takes on the debug kernel
echo 100 >"$d/sync_speed_min" || lr_fail "sync_speed_min 100"
echo 300 >"$d/sync_speed_max" || lr_fail "sync_speed_max 300"
add "$s1"
running 2 "$s1"
# the data read back while the rebuild is short of its end (8 MiB of
# each member: 24 MiB over three data members): reads must not come from
# the new member, which holds nothing there yet
fill --size=24M --verify_only
read -r pos _ <"$d/sync_completed"
if [ "$pos" = none ] || [ "$pos" -ge $((8 * 2048)) ]; then
	lr_fail "the rebuild got past the data ($pos) before it was read back"
fi
lr_log "read back while the rebuild is at $pos"
# lraidctl list, as /proc/mdstat: the new device in role 2, the role
# down, the progress line
"$LRAIDCTL" list >"$LR_TMP/list" || lr_fail "lraidctl list"
grep -Eq "^lraid0 : active raid5( [a-z0-9]+\[[0-9]\])* ${s1#/dev/}\[2\]( |\$)" "$LR_TMP/list" ||
	lr_fail "list: no ${s1#/dev/}[2] on lraid0's line: $(cat "$LR_TMP/list")"
grep -Eq "^ +$(($(cat "$d/component_size") * 3)) blocks level 5, 64k chunk, algorithm 2 \[4/3\] \[UU_U\]\$" "$LR_TMP/list" ||
	lr_fail "list: no '[4/3] [UU_U]' status line: $(cat "$LR_TMP/list")"
grep -Eq "^ +\[[=>.]{20}\]  recovery = +[0-9]+\.[0-9]% \([0-9]+/$(cat "$d/component_size")\)" "$LR_TMP/list" ||
	lr_fail "list: no recovery line: $(cat "$LR_TMP/list")"
refused "Device or resource busy" "lraid0: add: a recover pass runs" lraid0 "$s1"
rm_refused "$s1" "it is being rebuilt"
rm_refused "${m[0]}" "it is active"
lr_klog_mark
echo idle >"$d/sync_action" || lr_fail "sync_action refused idle"
is sync_action idle
klog_wait "lraid0: recover stopped at stripe [0-9]+ of [0-9]+: interrupted; role 2 stays failed"
lr_klog_has "recover done" && lr_fail "the rebuild ended before idle: array too small?"
is last_sync_action recover
is failed 2
is degraded 1
row 2 faulty "$s1"
"$LRAIDCTL" list >"$LR_TMP/list" || lr_fail "lraidctl list"
grep -q " ${s1#/dev/}\[2\](F)" "$LR_TMP/list" ||
	lr_fail "list: ${s1#/dev/} not marked failed in role 2: $(cat "$LR_TMP/list")"
grep -q "recovery =" "$LR_TMP/list" &&
	lr_fail "list: a recovery line with no pass running: $(cat "$LR_TMP/list")"
fill --size=24M --verify_only
# removed (mdadm --remove): the role missing, the device let go, which a
# write to it opened exclusively shows, and added back from there
"$LRAIDCTL" remove lraid0 "$s1" >"$LR_TMP/rm" 2>&1 ||
	lr_fail "remove $s1: $(cat "$LR_TMP/rm")"
grep -q "removed $s1 from lraid0" "$LR_TMP/rm" ||
	lr_fail "remove $s1 said: $(cat "$LR_TMP/rm")"
"$LRAIDCTL" detail lraid0 | grep -Eq '^ +2 +0 +0 +2 missing ' ||
	lr_fail "detail: role 2 not missing after the remove: $("$LRAIDCTL" detail lraid0)"
[ -e "/sys/block/lraid0/slaves/$(lr_name "$s1")" ] &&
	lr_fail "$s1 still in lraid0's slaves after its remove"
is failed 2
python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDWR | os.O_EXCL))' \
	"$s1" || lr_fail "$s1 still held after its remove"
rm_refused "$s1" "No such device"
fill --size=24M --verify_only
echo system >"$d/sync_speed_min"
echo system >"$d/sync_speed_max"
add "$s1"
rebuilt 2 "$s1" "" 0
m[2]=$s1
pass_check

"$LRAIDCTL" fail lraid0 "${m[3]}" || lr_fail "fail ${m[3]}"
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
add "$other"
running 3 "$other"
lr_klog_mark
stop
lr_klog_has -E "lraid0: recover stopped at stripe [0-9]+ of [0-9]+: .*; role 3 stays failed" ||
	lr_fail "stop during a rebuild: no 'recover stopped' in the kernel log: $(lr_klog | tail -5)"
lr_klog_has "recover done" && lr_fail "the rebuild ended before the stop: array too small?"
# the stop recorded how far the rebuild got on the new device
lr_klog_has -E "lraid0: rebuild of role 3 onto $(lr_name "$other") stopped at sector [0-9]+ of $total: assembled with it, the array goes on from there" ||
	lr_fail "the stop did not record the rebuild: $(lr_klog | tail -5)"
[ "$(lr_sb_num "$other" role)" = 3 ] ||
	lr_fail "$other after the stop: $("$LRAIDCTL" examine "$other" 2>&1)"
ro=$(lr_sb_num "$other" recovery_offset)
if ! [[ $ro =~ ^[0-9]+$ ]] || [ "$ro" -le 0 ] || [ "$ro" -ge "$total" ]; then
	lr_fail "$other: recovery_offset '$ro' after a rebuild stopped short of $total"
fi
"$LRAIDCTL" examine "$other" | grep -q "^Recovery Offset : $ro sectors\$" ||
	lr_fail "examine $other: no 'Recovery Offset : $ro sectors': $("$LRAIDCTL" examine "$other")"
# assembled without it, the others go on and leave it behind: it is
# added again, in full
assemble "${m[@]:0:3}"
is degraded 1
is failed 3
is sync_action idle
fill --size=24M --verify_only
stop
lr_klog_mark
assemble "${m[@]:0:3}" "$other"
lr_klog_has "goes on from there" &&
	lr_fail "a rebuild went on after the others ran without it: $(lr_klog | tail -5)"
is failed 3
is sync_action idle
add "$other"
rebuilt 3 "$other" "" 0
m[3]=$other

# ---------------------------------------------------------------------
lr_log "RAID5 x4: a rebuild a stop interrupted goes on at assemble"
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
spare
s2=$LR_DEV
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
add "$s2"
running 1 "$s2"
lr_klog_mark
stop
ro=$(lr_sb_num "$s2" recovery_offset)
if ! [[ $ro =~ ^[0-9]+$ ]] || [ "$ro" -le 0 ] || [ "$ro" -ge "$total" ]; then
	lr_fail "$s2: recovery_offset '$ro' after a rebuild stopped short of $total"
fi
# 4 KiB below the offset (the rebuild wrote it) made noise behind
# lraid's back: a rebuild that went on from the start would put it right
off=$(lr_sb_num "$s2" data_offset)
dd if="$s2" of="$LR_TMP/orig" bs=4096 count=1 skip=$((off * 512 + 8192)) \
	iflag=direct,skip_bytes status=none || lr_fail "read $s2"
head -c 4096 /dev/urandom >"$LR_TMP/noise"
dd if="$LR_TMP/noise" of="$s2" bs=4096 count=1 seek=$((off * 512 + 8192)) \
	oflag=direct,seek_bytes conv=notrunc status=none || lr_fail "write $s2"
lr_klog_mark
"$LRAIDCTL" assemble lraid0 "${m[0]}" "$s2" "${m[2]}" "${m[3]}" >"$LR_TMP/asm" 2>&1 ||
	lr_fail "assemble with the device part rebuilt: $(cat "$LR_TMP/asm")"
LR_ARRAYS=(lraid0)
grep -q "$s2 (role 1) was being rebuilt when the array stopped, up to sector $ro of $total: assembled with it, the rebuild goes on from there" "$LR_TMP/asm" ||
	lr_fail "lraidctl assemble did not say the rebuild goes on: $(cat "$LR_TMP/asm")"
klog_wait "lraid0: $(lr_name "$s2") \(role 1\) was being rebuilt when the array stopped, up to sector $ro of $total: the rebuild goes on from there"
klog_wait "lraid0: recover started: rebuilding role 1 from sector $ro of $total \(a stop interrupted the rebuild there\)"
echo system >"$d/sync_speed_max"
wait_idle "the rebuild of role 1 going on"
klog_wait "lraid0: recover done: $(lr_name "$s2") \(role 1\) is in sync"
lr_klog_has "recover stopped" && lr_fail "$(lr_klog | grep 'recover stopped')"
is failed ""
is degraded 0
row 1 "active sync" "$s2"
"$LRAIDCTL" examine --json "$s2" | grep -q '"recovery_offset": null' ||
	lr_fail "$s2 in sync: $("$LRAIDCTL" examine --json "$s2")"
dd if="$s2" of="$LR_TMP/now" bs=4096 count=1 skip=$((off * 512 + 8192)) \
	iflag=direct,skip_bytes status=none || lr_fail "read $s2"
cmp -s "$LR_TMP/noise" "$LR_TMP/now" ||
	lr_fail "the rebuild went over sector 16 of $s2, below where it stopped ($ro)"
dd if="$LR_TMP/orig" of="$s2" bs=4096 count=1 seek=$((off * 512 + 8192)) \
	oflag=direct,seek_bytes conv=notrunc status=none || lr_fail "write $s2"
m[1]=$s2
lr_log "role 1 rebuilt from sector $ro on, after the stop"
fill --size=24M --verify_only
pass_check
# reads of roles 0 and 2 now come through role 1, all of it rebuilt
fail_noise "${m[2]}"
fill --size=24M --verify_only
spare
s3=$LR_DEV
add "$s3"
rebuilt 2 "$s3" "" 0
m[2]=$s3

# ---------------------------------------------------------------------
lr_log "all four members again"
stop
for x in "${m[@]}"; do
	[ "$(lr_sb_state "$x")" = clean ] ||
		lr_fail "$x: superblock $(lr_sb_state "$x") after the stop, not clean"
	[ "$(lr_sb_num "$x" failed_mask)" = 0 ] ||
		lr_fail "$x: failed_mask $(lr_sb_num "$x" failed_mask) after the stop"
done
lr_klog_mark
assemble "${m[@]}"
lr_klog_has "not stopped cleanly" && lr_fail "assembled after a clean stop: $(lr_klog | tail -3)"
is degraded 0
is failed ""
is sync_action idle
is last_sync_action none
lr_not_failed lraid0
lr_check_roles lraid0
fill --size=24M --verify_only
pass_check
echo "PASS: rebuild onto added devices"
