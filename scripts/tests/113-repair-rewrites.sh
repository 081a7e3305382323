#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Blocks a member fails to read are rebuilt from the others and written
# back, whatever the member holds there (data, P or Q) and whether a read
# or a write needed them, and the member stays in the array, as md does.
# The members come from lr_bad_setup (reads of chosen sectors fail, writes
# succeed); their chosen chunks are first overwritten with garbage behind
# lraid's back, so only a rewrite can make them right.
#  RAID5 x5, member 1 bad in two stripes: 4 KiB writes into its chunk
#  (read-modify-write reads the old data there), and one write of the
#  three other data chunks of a stripe (reconstruct-write reads member 1).
#  RAID6 x7, members 1 and 2 bad in the same rows of six stripes, where
#  they hold two data blocks, data and P, and Q and data: 4 KiB
#  read-modify-writes into three of them, then reads of everything.
# Every read returns the expected bytes, no member is marked failed, the
# log says "read error corrected" (the rewritten blocks read back right);
# then, with the errors off, no bad sector is left (each one was
# rewritten), and md assembled over the members reads the same bytes and
# its check finds no parity mismatch.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mdadm
lr_setup

mib=32
img=$LR_TMP/img
# this tests rewrites, not the limit
echo 0 >/sys/module/lraid/parameters/max_read_errors

# msec STRIPE: first member sector of STRIPE (1 MiB data offset, 64 KiB chunks)
msec() {
	echo $((2048 + $1 * 128))
}

# off N NP STRIPE DI: array byte offset of data index DI of STRIPE
off() {
	echo $((($3 * ($1 - $2) + $4) * 65536))
}

# put OFF LEN BS: new random bytes at array byte OFF, written in BS
# direct writes, and the same in the image
put() {
	head -c "$2" /dev/urandom >"$LR_TMP/new"
	dd if="$LR_TMP/new" of=/dev/lraid0 bs="$3" seek="$1B" oflag=direct \
		status=none || lr_fail "write at $1"
	dd if="$LR_TMP/new" of="$img" bs="$3" seek="$1B" conv=notrunc \
		status=none
}

# garbage DEV STRIPE...: random bytes over the chunk of each STRIPE
garbage() {
	local dev=$1 s
	shift
	for s in "$@"; do
		head -c 65536 /dev/urandom |
			dd of="$dev" bs=512 seek="$(msec "$s")" oflag=direct \
				status=none
	done
}

# bad N STRIPE...: the chunks of those stripes fail reads on the first N
# of LR_BAD
bad() {
	local n=$1 r=() s
	shift
	for s in "$@"; do
		r+=("$(msec "$s")" 128)
	done
	lr_bad_on "$n" "${r[@]}"
}

# start LEVEL MEMBERS...: array over MEMBERS holding $mib MiB of the image
start() {
	local level=$1 d
	shift
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=1M count=1 oflag=direct status=none
	done
	lr_create lraid0 --level "$level" --chunk 64K "$@"
	head -c $((mib << 20)) /dev/urandom >"$img"
	dd if="$img" of=/dev/lraid0 bs=1M oflag=direct status=none
}

same() {
	local got
	got=$(dd if=/dev/lraid0 bs=64K count=$((mib * 16)) iflag=direct \
		status=none | sha256sum)
	[ "$got" = "$(sha256sum <"$img")" ] || lr_fail "$1: reads differ"
}

in_array() {
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	if grep -Eq "faulty|degraded" "$LR_TMP/detail"; then
		cat "$LR_TMP/detail"
		lr_fail "$1: a member was marked failed"
	fi
	lr_klog_has "read error corrected" ||
		lr_fail "$1: no corrected read error in the kernel log"
}

# finish LEVEL MEMBERS...: errors off, every bad block rewritten, parity
# right according to md
finish() {
	local level=$1 left
	shift
	lr_bad_off
	left=$(lr_bad_left)
	[ "$left" = 0 ] || lr_fail "RAID$level: $left bad sectors never rewritten"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	lr_md_check "$level" 64 $((mib * 2048)) \
		"$(sha256sum <"$img" | cut -d' ' -f1)" "$@"
}

lr_bad_setup 2

lr_log "RAID5 x5: writes that read a bad member rewrite it"
lr_members nullb 4 64
m=("${LR_M[0]}" "${LR_BAD[0]}" "${LR_M[1]}" "${LR_M[2]}" "${LR_M[3]}")
# stripe 20: member 1 holds data index 1 (read-modify-write into it);
# stripe 22: data index 3 (a write of indexes 0-2 reads it)
[ "$(lr_role 5 1 20 1) $(lr_role 5 1 22 1)" = "1 3" ] ||
	lr_fail "unexpected RAID5 layout"
start 5 "${m[@]}"
garbage "${m[1]}" 20 22
bad 1 20 22
lr_klog_mark
put "$(off 5 1 20 1)" 65536 4K
put "$(off 5 1 22 0)" $((3 * 65536)) 192K
lr_klog_has "read error .* rebuilding it from the others" ||
	lr_fail "RAID5: the writes met no read error"
in_array "RAID5 writes"
same "RAID5"
finish 5 "${m[@]}"

lr_log "RAID6 x7: data, P and Q rewritten after reads and writes"
lr_members nullb 5 64
m=("${LR_M[0]}" "${LR_BAD[0]}" "${LR_BAD[1]}" "${LR_M[1]}" "${LR_M[2]}"
	"${LR_M[3]}" "${LR_M[4]}")
# members 1 and 2: data and data in stripes 70 and 77, data and P in 74
# and 81, Q and data in 76 and 83
for sr in "70 0 1" "77 0 1" "74 4 P" "81 4 P" "76 Q 0" "83 Q 0"; do
	read -r s r1 r2 <<<"$sr"
	[ "$(lr_role 7 2 "$s" 1) $(lr_role 7 2 "$s" 2)" = "$r1 $r2" ] ||
		lr_fail "unexpected RAID6 layout in stripe $s"
done
start 6 "${m[@]}"
garbage "${m[1]}" 70 74 76 77 81 83
garbage "${m[2]}" 70 74 76 77 81 83
bad 2 70 74 76 77 81 83
lr_klog_mark
# 4 KiB writes: read-modify-write (3 reads, against 4 for reconstruct)
put "$(off 7 2 77 0)" 65536 4K
put "$(off 7 2 81 4)" 65536 4K
put "$(off 7 2 83 0)" 65536 4K
lr_klog_has "read error .* rebuilding it from the others" ||
	lr_fail "RAID6: the writes met no read error"
in_array "RAID6 writes"
# stripes 70, 74 and 76 were not written: the reads must correct them.
# The message is rate-limited per call site (10 in 5 s): let the writes'
# messages age out of the window first, or the reads' may not show.
sleep 6
lr_klog_mark
same "RAID6"
in_array "RAID6 reads"
finish 6 "${m[@]}"
echo "PASS: blocks members fail to read are written back: data, P and Q"
