#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A write is not acknowledged while a member it left out is failed but no
# superblock says so yet, as md holds writes while a superblock change is
# pending. Acknowledged earlier, a crash before the record lands would let
# the next assemble trust that member again, with the block it missed.
# Every member is an lraid-bad device (lr_bad_setup). RAID5 x4: role 1
# starts failing writes, and the other members keep back writes to their
# superblock. A direct write into role 1's chunk fails there, so
# role 1 is marked failed and the write stands on the others; it must not
# finish while the superblock write waits. `lraidctl detail` still answers
# meanwhile. Once the superblock write goes through, the write finishes
# without error, every survivor's superblock records role 1 failed, and
# the block reads back (rebuilt from the others).
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need dmsetup
lr_setup

lr_bad_setup 4
lr_create lraid0 --level 5 --chunk 64K "${LR_BAD[@]}"

# hold 0|1: roles 0, 2 and 3 keep back superblock writes (1), or let the
# held ones go and stop holding (0)
hold() {
	local i m=(release)
	[ "$1" = 1 ] && m=(hold 0 8)
	for i in 0 2 3; do
		dmsetup message "${LR_BAD_DM[i]}" 0 "${m[@]}" ||
			lr_fail "${LR_BAD_DM[i]}: ${m[*]}"
	done
}
# held: superblock writes kept back on roles 0, 2 and 3
held() {
	local i n=0 h
	for i in 0 2 3; do
		h=$(dmsetup status "${LR_BAD_DM[i]}" |
			awk '$3 == "lraid-bad" { print $9 }')
		n=$((n + h))
	done
	echo "$n"
}
writer=
held_cleanup() {
	set +e
	hold 0 2>/dev/null
	[ -n "$writer" ] && wait "$writer" 2>/dev/null
	lr_cleanup
}
trap held_cleanup EXIT

head -c 1M /dev/urandom >"$LR_TMP/data"
head -c 4K /dev/urandom >"$LR_TMP/new"
dd if="$LR_TMP/data" of=/dev/lraid0 bs=1M oflag=direct status=none ||
	lr_fail "write"

lr_log "role 1 fails writes while the superblock writes wait"
hold 1
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 1 || lr_fail "fail_writes"
dmesg -C
# stripe 0: bytes 64K-128K are role 1's chunk
dd if="$LR_TMP/new" of=/dev/lraid0 bs=4k seek=20 count=1 oflag=direct \
	conv=notrunc status=none 2>"$LR_TMP/dd.err" &
writer=$!
for _ in $(seq 300); do
	[ "$(held)" -gt 0 ] && break
	kill -0 "$writer" 2>/dev/null || break
	sleep 0.1
done
[ "$(held)" -gt 0 ] ||
	lr_fail "no superblock write after role 1 failed a write: $(dmesg | grep lraid0 | tail -3)"
# the write must wait for the record, however long that takes
sleep 2
kill -0 "$writer" 2>/dev/null ||
	lr_fail "the write finished before any superblock recorded role 1 failed"
timeout 20 "$LRAIDCTL" detail lraid0 >"$LR_TMP/detail" ||
	lr_fail "detail does not answer while a superblock write waits"
grep -q "degraded" "$LR_TMP/detail" ||
	{ cat "$LR_TMP/detail"; lr_fail "detail does not say degraded"; }

lr_log "the superblock write lands: the write finishes"
hold 0
rc=0
wait "$writer" || rc=$?
writer=
[ "$rc" = 0 ] || lr_fail "the write failed ($rc): $(cat "$LR_TMP/dd.err")"
for i in 0 2 3; do
	dd if="${LR_BAD[i]}" of="$LR_TMP/sb" bs=4k count=1 iflag=direct \
		status=none || lr_fail "read superblock of role $i"
	"$LRAIDCTL" examine "$LR_TMP/sb" >"$LR_TMP/ex" ||
		lr_fail "examine role $i"
	grep -q "Failed Mask : 0x2$" "$LR_TMP/ex" ||
		{ cat "$LR_TMP/ex"; lr_fail "role $i's superblock does not record role 1 failed"; }
done
dd if=/dev/lraid0 of="$LR_TMP/got" bs=4k skip=20 count=1 iflag=direct \
	status=none || lr_fail "read back"
cmp -s "$LR_TMP/got" "$LR_TMP/new" || lr_fail "the block reads back other bytes"
dd if=/dev/lraid0 of="$LR_TMP/got" bs=64k skip=2 count=1 iflag=direct \
	status=none || lr_fail "read role 2's chunk"
cmp -s "$LR_TMP/got" <(head -c 192K "$LR_TMP/data" | tail -c 64K) ||
	lr_fail "role 2's chunk reads other bytes"
dmsetup message "${LR_BAD_DM[1]}" 0 fail_writes 0
"$LRAIDCTL" stop lraid0 || lr_fail stop
lr_log "assembles degraded without role 1"
"$LRAIDCTL" assemble lraid0 "${LR_BAD[@]}" >/dev/null || lr_fail assemble
"$LRAIDCTL" detail lraid0 | grep -q degraded || lr_fail "not degraded"
dd if=/dev/lraid0 of="$LR_TMP/got" bs=4k skip=20 count=1 iflag=direct \
	status=none || lr_fail "read back after assemble"
cmp -s "$LR_TMP/got" "$LR_TMP/new" ||
	lr_fail "the block reads back other bytes after assemble"
echo "PASS"
