#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A FUA write to a failed member's blocks survives a power cut. Degraded,
# that data is on no member: it is parity together with the other
# members' blocks of the same rows, and those may sit in a volatile write
# cache (written plainly, not flushed). RAID5 x3 and RAID6 x4, chunk 16K,
# each member null_blk behind tests/badblk's lraid-wcache target (16 MiB
# of volatile cache); the member holding data chunk 1 of stripe 0 is
# failed. Then, on the degraded array:
#  - 4 KiB written plainly at the start of chunk 0 (another member), and
#    4 KiB 8 KiB further on;
#  - 4 KiB written FUA (RWF_DSYNC through Linux AIO, which sends REQ_FUA
#    and no flush) at the start of chunk 1, the failed member's: parity
#    now holds it, with the plain block of chunk 0 in the same rows;
#  - the cut, as in 131: every member suspended, its cache thrown away;
#    the array assembles (--force: it would start degraded after a crash)
#    from the null_blk devices without the failed one.
# The FUA block must read back (rebuilt from parity and chunk 0's rows,
# so those rows must have gone FUA too); the plain block 8 KiB further on,
# which no FUA write touched, must be gone (else the cut dropped nothing
# and this proves nothing). Without the FUA of the other members' rows,
# the FUA block reads back as its data XOR the lost plain block.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need python3 dmsetup
lr_setup
lr_target lraid-wcache
tests=$(cd "$(dirname "$0")" && pwd)

# fua_write DEV OFFSET BYTE: 4 KiB of BYTE at OFFSET of DEV, written
# O_DIRECT with RWF_DSYNC through Linux AIO (scripts/tests/powercut.py's
# FuaWriter): REQ_FUA, no flush
fua_write() {
	python3 - "$tests" "$@" <<'EOF'
import mmap, os, sys
sys.path.insert(0, sys.argv[1])
from powercut import FuaWriter
dev, off, byte = sys.argv[2], int(sys.argv[3]), int(sys.argv[4], 0)
buf = mmap.mmap(-1, 4096)
buf.write(bytes([byte]) * 4096)
fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
FuaWriter(fd, buf).pwrite(4096, off)
os.close(fd)
EOF
}

# plain_write DEV OFFSET BYTE: the same without FUA, and no flush after it
plain_write() {
	python3 -c 'import sys; sys.stdout.buffer.write(bytes([int(sys.argv[1], 0)]) * 4096)' "$3" |
		dd of="$1" bs=4096 seek="$2" oflag=direct,seek_bytes conv=notrunc status=none
}

# block DEV OFFSET: the distinct bytes of 4 KiB of DEV at OFFSET, as hex
block() {
	dd if="$1" bs=4096 skip="$2" count=1 iflag=direct,skip_bytes status=none |
		od -An -v -tx1 | tr -s ' ' '\n' | sed '/^$/d' | sort -u | xargs
}

chunk=16384
# m1: the member of stripe 0's data chunk 1 (left-symmetric: RAID5 P on
# the last member, data from member 0; RAID6 P on the last, Q on member 0,
# data from member 1)
for cfg in "5 3 1" "6 4 2"; do
	read -r level n m1 <<<"$cfg"
	lr_log "RAID$level x$n, member $m1 (chunk 1 of stripe 0) failed, volatile caches"
	lr_members nullb "$n" 64
	raw=("${LR_M[@]}")
	dm=()
	for ((i = 0; i < n; i++)); do
		lr_dm "lrfua$level$i" "0 $(blockdev --getsz "${raw[i]}") lraid-wcache ${raw[i]} 16" ||
			lr_fail "dmsetup create lrfua$level$i"
		dm+=("$LR_DEV")
	done
	lr_create lraid0 --level "$level" --chunk 16K "${dm[@]}"
	"$LRAIDCTL" fail lraid0 "${dm[m1]}" >/dev/null || lr_fail "fail ${dm[m1]}"

	plain_write /dev/lraid0 0 0xa5
	plain_write /dev/lraid0 8192 0x3c
	fua_write /dev/lraid0 "$chunk" 0x5c || lr_fail "FUA write"
	[ "$(block /dev/lraid0 "$chunk")" = 5c ] || lr_fail "the FUA block does not read back before the cut"

	# the cut: writes taken so far complete (into the caches), then the
	# tables go, and the caches with them
	for ((i = 0; i < n; i++)); do
		dmsetup suspend --nolockfs --noudevsync "lrfua$level$i" ||
			lr_fail "dmsetup suspend lrfua$level$i"
	done
	for ((i = 0; i < n; i++)); do
		echo "0 $(blockdev --getsz "${raw[i]}") error" | dmsetup load "lrfua$level$i" ||
			lr_fail "dmsetup load lrfua$level$i error"
		dmsetup resume --noudevsync "lrfua$level$i" || lr_fail "dmsetup resume lrfua$level$i"
	done
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop after the cut"
	LR_ARRAYS=()
	for ((i = 0; i < n; i++)); do
		dmsetup remove --noudevsync "lrfua$level$i" || lr_fail "dmsetup remove lrfua$level$i"
	done
	LR_DM=()

	left=()
	for ((i = 0; i < n; i++)); do
		[ "$i" = "$m1" ] || left+=("${raw[i]}")
	done
	"$LRAIDCTL" assemble --force --run lraid0 "${left[@]}" >/dev/null ||
		lr_fail "assemble after the cut"
	LR_ARRAYS=(lraid0)
	lr_settle
	got=$(block /dev/lraid0 8192)
	[ "$got" = 00 ] ||
		lr_fail "the plain block no FUA write touched reads '$got' after the cut, not zeroes: the cut kept the caches"
	got=$(block /dev/lraid0 "$chunk")
	[ "$got" = 5c ] ||
		lr_fail "the FUA block of the failed member reads '$got' after the cut, wanted 5c"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
	LR_ARRAYS=()
done
lr_log "FUA writes to failed members survived the cut on both levels"
