#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Spares, as md's: a device added to an array with no role to rebuild
# (or while a pass runs) is kept as a spare, its superblock naming the
# array and no role; a role that fails is rebuilt onto a spare by the
# array itself. On 32 MiB null_blk members, 64 KiB chunks; the data is
# written whole by fio (crc32c) and compared byte for byte against what
# the array read right after (lr_snap). A rebuild onto a spare counts as
# done when the kernel log says "spare S takes role R" (and, when a
# failed device sat in the slot, "D (role R) released"), sync_action
# reads idle again, "recover done: S (role R) is in sync", detail shows
# S "active sync" in role R, S's superblock names role R at the
# others' event count and sysfs failed and degraded count no role.
#   - RAID5 x4 made by create --spare-devices 1 (five devices): detail
#     has "Spare Devices : 1" and the fifth as "- spare"; examine names
#     it "Device Role : spare"; lraidN's slaves list it. A sixth device
#     added is "added ... as a spare"; added again, re-added or failed
#     it is refused (EBUSY "is a spare of lraid0 already" twice, EBUSY
#     "is a spare of lraid0, not a member"). Stopped and assembled by
#     name with the spares among the members: "started with 4 members
#     and 2 spares".
#   - Role 1 failed: the first spare takes it at once; the failed device
#     is released (opened O_EXCL afterwards, gone from slaves). The data
#     reads back, a check finds 0.
#   - Role 2 failed with the rebuild held to 1000 KiB/s: the other spare
#     takes it; a device added while that rebuild runs is kept as a
#     spare; the rebuilding spare failed by hand (lraidctl fail) stops
#     the rebuild, and the new spare takes the role in its place. Data
#     and check as before.
#   - Removed: a spare's superblock is erased (examine finds none), it
#     leaves slaves and is free (O_EXCL). A spare of another array (a
#     RAID5 x3 lraid1 given one, then stopped) offered with lraid0's
#     members is refused at assemble (EINVAL, "does not go with these
#     members"), no member's superblock changes, and the same members
#     assemble without it.
#   - incremental (udev) of a spare of the running array adds it as a
#     spare.
#   - RAID6 x5 with two spares, two roles failed one after the other: the
#     first spare rebuilds the lower role (started again if the second
#     failure ends its pass), the second the other; the data reads
#     back and a check finds 0.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
lr_need fio

MB=32
TIMEOUT=${LRAID_REBUILD_TIMEOUT:-240}
d=/sys/block/lraid0/lraid

# dev: a new null_blk device of MB MiB in LR_DEV
dev() {
	lr_nullb "nullb${#LR_NULLB[@]}" "$MB"
}

# says FILE ERE: lraidctl's words in FILE match ERE
says() {
	grep -Eq "$2" "$1" || lr_fail "lraidctl said '$(cat "$1")', not '$2'"
}

# refused CMD ERRNO_TEXT WHY ARG...: lraidctl CMD ARG... exits 1 with
# ERRNO_TEXT and WHY in its words
refused() {
	local cmd=$1 e=$2 why=$3 rc=0
	shift 3
	"$LRAIDCTL" "$cmd" "$@" >"$LR_TMP/out" 2>&1 || rc=$?
	[ "$rc" = 1 ] || lr_fail "$cmd $*: exit $rc, expected 1: $(cat "$LR_TMP/out")"
	if ! grep -q "$e" "$LR_TMP/out" || ! grep -Eq "$why" "$LR_TMP/out"; then
		lr_fail "$cmd $*: '$(cat "$LR_TMP/out")', expected $e and '$why'"
	fi
	lr_log "$cmd $* refused: $(cat "$LR_TMP/out")"
}

# spare_row DEV: detail lists DEV as a spare
spare_row() {
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" || lr_fail "detail lraid0"
	grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +- spare +/dev/$(lr_name "$1")\$" \
		"$LR_TMP/detail" || lr_fail "detail: $1 not a spare: $(cat "$LR_TMP/detail")"
}

# spares N: detail says "Spare Devices : N"
spares() {
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" || lr_fail "detail lraid0"
	grep -Eq "^ +Spare Devices : $1\$" "$LR_TMP/detail" ||
		lr_fail "detail: not $1 spares: $(cat "$LR_TMP/detail")"
}

# free DEV: nothing holds DEV (an exclusive open succeeds) and lraid0's
# slaves do not list it
free() {
	[ -e "/sys/block/lraid0/slaves/$(lr_name "$1")" ] &&
		lr_fail "$1 still in lraid0's slaves"
	python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_RDWR | os.O_EXCL))' \
		"$1" || lr_fail "$1 still held"
}

# taken ROLE SPARE [OLD]: SPARE was given ROLE (OLD released from the
# slot) and rebuilt it; the array is whole again
taken() {
	lr_klog_wait "lraid0: spare $(lr_name "$2") takes role $1, rebuilding it" 100
	if [ -n "${3:-}" ]; then
		lr_klog_wait "lraid0: $(lr_name "$3") \\(role $1\\) released: spare $(lr_name "$2") takes its role" 100
	fi
	lr_wait_idle "rebuild of role $1 onto $2" "$TIMEOUT"
	lr_klog_wait "lraid0: recover done: $(lr_name "$2") \\(role $1\\) is in sync" 100
	lr_is failed ""
	lr_is degraded 0
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" || lr_fail "detail lraid0"
	grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +$1 active sync +/dev/$(lr_name "$2")\$" \
		"$LR_TMP/detail" ||
		lr_fail "detail: role $1 not active sync on $2: $(cat "$LR_TMP/detail")"
	[ "$(lr_sb_num "$2" role)" = "$1" ] ||
		lr_fail "$2 has no superblock of role $1: $("$LRAIDCTL" examine "$2" 2>&1)"
	[ "$(lr_sb_num "$2" events)" = "$(lr_sb_num "${m[0]}" events)" ] ||
		lr_fail "$2: events $(lr_sb_num "$2" events), ${m[0]}'s $(lr_sb_num "${m[0]}" events)"
	m[$1]=$2
	lr_log "role $1 rebuilt onto the spare $2"
}

# pass_check: a check runs to its end and finds 0
pass_check() {
	lr_klog_mark
	echo check >"$d/sync_action" || lr_fail "sync_action refused check"
	lr_wait_idle check "$TIMEOUT"
	lr_klog_wait "lraid0: check done" 100
	lr_is mismatch_cnt 0
}

fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=16k-512k --iodepth=4 \
		--do_verify=0
	lr_snap data
}

# ---------------------------------------------------------------------
lr_log "RAID5 x4 with a spare from create, a second one added"
lr_members nullb 5 "$MB"
m=("${LR_M[@]:0:4}")
s1=${LR_M[4]}
"$LRAIDCTL" create --run lraid0 --level 5 --chunk 64K --spare-devices 1 \
	"${LR_M[@]}" >"$LR_TMP/out" 2>&1 || lr_fail "create: $(cat "$LR_TMP/out")"
LR_ARRAYS+=(lraid0)
lr_settle
spares 1
spare_row "$s1"
"$LRAIDCTL" examine "$s1" | grep -Eq "^ +Device Role : spare\$" ||
	lr_fail "examine $s1: $("$LRAIDCTL" examine "$s1")"
[ -e "/sys/block/lraid0/slaves/$(lr_name "$s1")" ] ||
	lr_fail "$s1 not among lraid0's slaves"
fill
dev
s2=$LR_DEV
"$LRAIDCTL" add lraid0 "$s2" >"$LR_TMP/out" 2>&1 || lr_fail "add $s2: $(cat "$LR_TMP/out")"
says "$LR_TMP/out" "added $s2 to lraid0 as a spare"
spares 2
spare_row "$s2"
refused add "Device or resource busy" "is a spare of lraid0 already" lraid0 "$s2"
refused fail "Device or resource busy" "is a spare of lraid0, not a member" lraid0 "$s2"
refused re-add "Device or resource busy" "is a spare of lraid0 already" lraid0 "$s2"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
"$LRAIDCTL" assemble lraid0 "${m[0]}" "$s1" "${m[1]}" "$s2" "${m[2]}" "${m[3]}" \
	>"$LR_TMP/out" 2>&1 || lr_fail "assemble: $(cat "$LR_TMP/out")"
says "$LR_TMP/out" "started with 4 members and 2 spares"
spares 2
lr_snap_cmp data "assembled with two spares"

# ---------------------------------------------------------------------
lr_log "role 1 failed: the first spare takes it"
old=${m[1]}
lr_klog_mark
"$LRAIDCTL" fail lraid0 "$old" || lr_fail "fail $old"
taken 1 "$s1" "$old"
free "$old"
spares 1
lr_snap_cmp data "rebuilt onto a spare"
pass_check

# ---------------------------------------------------------------------
lr_log "role 2 failed: the other spare takes it; it fails, a new spare follows"
echo 1000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 1000"
old=${m[2]}
lr_klog_mark
"$LRAIDCTL" fail lraid0 "$old" || lr_fail "fail $old"
lr_klog_wait "lraid0: spare $(lr_name "$s2") takes role 2, rebuilding it" 100
lr_is sync_action recover
dev
s3=$LR_DEV
"$LRAIDCTL" add lraid0 "$s3" >"$LR_TMP/out" 2>&1 || lr_fail "add $s3: $(cat "$LR_TMP/out")"
says "$LR_TMP/out" "added $s3 to lraid0 as a spare"
spare_row "$s3"
"$LRAIDCTL" fail lraid0 "$s2" || lr_fail "fail the rebuilding $s2"
echo system >"$d/sync_speed_max"
taken 2 "$s3" "$s2"
spares 0
lr_snap_cmp data "rebuilt onto a spare after the first one failed"
pass_check

# ---------------------------------------------------------------------
lr_log "a spare removed; a spare of another array refused at assemble"
dev
s4=$LR_DEV
"$LRAIDCTL" add lraid0 "$s4" >/dev/null 2>&1 || lr_fail "add $s4"
"$LRAIDCTL" remove lraid0 "$s4" >"$LR_TMP/out" 2>&1 ||
	lr_fail "remove $s4: $(cat "$LR_TMP/out")"
says "$LR_TMP/out" "removed spare $s4 from lraid0"
"$LRAIDCTL" examine "$s4" >/dev/null 2>&1 &&
	lr_fail "$s4 still has a superblock after its remove"
free "$s4"
spares 0
lr_members nullb 3 "$MB"
o=("${LR_M[@]}")
lr_create lraid1 --level 5 --chunk 64K "${o[@]}"
"$LRAIDCTL" add lraid1 "$s4" >/dev/null 2>&1 || lr_fail "add $s4 to lraid1"
"$LRAIDCTL" stop lraid1 >/dev/null || lr_fail "stop lraid1"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
sum=$(lr_sbsum "${m[@]}")
refused assemble "Invalid argument" "does not go with these members" lraid0 "${m[@]}" "$s4"
[ "$(lr_sbsum "${m[@]}")" = "$sum" ] ||
	lr_fail "a refused assemble changed a member's superblock"
"$LRAIDCTL" assemble lraid0 "${m[@]}" >/dev/null 2>&1 || lr_fail "assemble lraid0"
lr_snap_cmp data "assembled after the refusal"

lr_log "incremental of a spare of the running array"
dev
s5=$LR_DEV
"$LRAIDCTL" add lraid0 "$s5" >/dev/null 2>&1 || lr_fail "add $s5"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
"$LRAIDCTL" assemble lraid0 "${m[@]}" >/dev/null 2>&1 || lr_fail "assemble lraid0"
spares 0
"$LRAIDCTL" incremental "$s5" >"$LR_TMP/out" 2>&1 ||
	lr_fail "incremental $s5: $(cat "$LR_TMP/out")"
spare_row "$s5"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
LR_ARRAYS=()

# ---------------------------------------------------------------------
lr_log "RAID6 x5 with two spares: two roles failed"
lr_nullb_drop || lr_fail "null_blk devices still held"
lr_members nullb 7 "$MB"
m=("${LR_M[@]:0:5}")
lr_create lraid0 --level 6 --chunk 64K --spare-devices 2 "${LR_M[@]}"
spares 2
fill
lr_klog_mark
"$LRAIDCTL" fail lraid0 "${m[3]}" || lr_fail "fail ${m[3]}"
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
lr_klog_wait "lraid0: spare $(lr_name "${LR_M[5]}") takes role [13], rebuilding it" 100
# the second rebuild starts right after the first: wait for both
end=$((SECONDS + TIMEOUT))
while [ "$(cat "$d/degraded")" != 0 ] ||
	[ "$(cat "$d/sync_action")" != idle ]; do
	[ $SECONDS -lt $end ] ||
		lr_fail "not whole after $TIMEOUT s: $(lr_klog | tail -5)"
	sleep 0.2
done
# whichever role the first spare took, both end in sync
for r in 1 3; do
	lr_klog_wait "lraid0: recover done: nullb[0-9]+ \\(role $r\\) is in sync" 100
done
lr_is failed ""
spares 0
lr_snap_cmp data "two roles rebuilt onto two spares"
pass_check
lr_log "RAID6: both roles rebuilt onto the spares"
