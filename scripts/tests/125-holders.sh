#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The stacking is visible in sysfs as md and dm show it: while an array
# runs, /sys/block/lraidN/slaves/ names exactly its present members and each
# member's holders/ names lraidN (lsblk draws its tree from these). A failed
# member stays listed until the array stops, as in md; a degraded assembly
# lists only the members it has; stop removes every link, and the members
# can then be held by another array.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
# the holder API is built only with CONFIG_BLOCK_HOLDER_DEPRECATED (md, dm)
grep -qw bd_link_disk_holder /proc/kallsyms ||
	lr_skip "kernel without bd_link_disk_holder (no md or dm)"

# entries DIR: the names in DIR, sorted, on one line
entries() {
	find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | xargs
}

# slaves_are ARRAY DEV...: /sys/block/ARRAY/slaves holds exactly DEV...
# and every DEV's holders/ holds ARRAY and nothing else
slaves_are() {
	local arr=$1 want got d
	shift
	want=$(for d in "$@"; do basename "$d"; done | sort | xargs)
	got=$(entries "/sys/block/$arr/slaves")
	[ "$got" = "$want" ] ||
		lr_fail "$arr slaves: '$got', expected '$want'"
	for d in "$@"; do
		got=$(entries "/sys/block/${d##*/}/holders")
		[ "$got" = "$arr" ] ||
			lr_fail "${d##*/} holders: '$got', expected '$arr'"
	done
}

# unheld DEV...: no DEV has a holder left
unheld() {
	local d got
	for d in "$@"; do
		got=$(entries "/sys/block/${d##*/}/holders")
		[ -z "$got" ] || lr_fail "${d##*/} still held by '$got'"
	done
}

lr_log "RAID5 on 4 null_blk members"
lr_members nullb 4 64
m5=("${LR_M[@]}")
lr_create lraid0 --level 5 --chunk 64K "${m5[@]}"
slaves_are lraid0 "${m5[@]}"
if command -v lsblk >/dev/null; then
	lsblk -o NAME,TYPE,SIZE "${m5[0]}"
	# lsblk lists a member's holders below it
	for d in "${m5[@]}"; do
		lsblk -nro NAME "$d" | grep -qx lraid0 ||
			lr_fail "lsblk $d does not show lraid0: $(lsblk -nro NAME "$d" | xargs)"
	done
fi

lr_log "RAID6 on 5 members beside it: each array lists its own"
lr_members nullb 5 64
m6=("${LR_M[@]}")
lr_create lraid1 --level 6 --chunk 64K "${m6[@]}"
slaves_are lraid1 "${m6[@]}"
slaves_are lraid0 "${m5[@]}"

lr_log "a failed member stays listed until stop"
"$LRAIDCTL" fail lraid0 "${m5[2]}" >/dev/null || lr_fail "fail ${m5[2]}"
slaves_are lraid0 "${m5[@]}"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
[ ! -e /sys/block/lraid0 ] || lr_fail "/sys/block/lraid0 left after stop"
unheld "${m5[@]}"
slaves_are lraid1 "${m6[@]}"

lr_log "degraded assembly lists the members it has"
"$LRAIDCTL" assemble --run lraid0 "${m5[0]}" "${m5[1]}" "${m5[3]}" \
	>/dev/null 2>"$LR_TMP/asm" || { cat "$LR_TMP/asm"; lr_fail "assemble degraded"; }
lr_settle
slaves_are lraid0 "${m5[0]}" "${m5[1]}" "${m5[3]}"
unheld "${m5[2]}"

lr_log "stop both: no link left, and the members can be held again"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
"$LRAIDCTL" stop lraid1 >/dev/null || lr_fail "stop lraid1"
unheld "${m5[@]}" "${m6[@]}"
lr_create lraid2 --level 6 --chunk 64K "${m6[0]}" "${m6[1]}" "${m5[0]}" \
	"${m5[1]}"
slaves_are lraid2 "${m6[0]}" "${m6[1]}" "${m5[0]}" "${m5[1]}"
"$LRAIDCTL" stop lraid2 >/dev/null || lr_fail "stop lraid2"
unheld "${m5[@]}" "${m6[@]}"
echo PASS
