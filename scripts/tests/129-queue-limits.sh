#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The queue limits lraid's disk offers, as read in sysfs:
#   - logical and physical block size: the largest of the members'
#     (one member of 4 KiB sectors makes the array 4 KiB; a write of
#     512 B is then refused by the block layer, one of 4 KiB works);
#   - minimum_io_size the chunk, optimal_io_size the stripe width;
#   - I/O statistics on; stable writes only for an array started with
#     lraid.copy_writes=N (as md declares them only with skip_copy):
#     copied writes do not need the page cache to wait for them;
#   - a volatile write cache and FUA, even on members that have no cache
#     (as md): a member may turn its cache on later, and the block layer
#     drops flush and FUA before they reach a disk without one.
#   - the buffer alignment the members need (dma_alignment): reads and
#     zero-copy writes hand the caller's pages down, and the block layer
#     checks an O_DIRECT buffer against lraid's alignment only. A dm-crypt
#     member with 4 KiB sectors (where the kernel has dm-crypt) needs 4095.
# Checked for RAID5 x4 at 64 KiB and RAID6 x6 at 512 KiB (started with
# copy_writes=N), and for a degraded assembly (with Y again), where the
# missing member's limits cannot count.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup

# q ATTR: /sys/block/lraid0/queue/ATTR
q() {
	cat "/sys/block/lraid0/queue/$1"
}

# want ATTR VALUE
want() {
	local got
	got=$(q "$1")
	[ "$got" = "$2" ] || lr_fail "$what: queue/$1 is '$got', not '$2'"
}

# same_block: 4 KiB block 3 of lraid0 reads back as $LR_TMP/blk
same_block() {
	[ "$(dd if=/dev/lraid0 bs=4096 skip=3 count=1 iflag=direct status=none |
		sha256sum)" = "$(sha256sum <"$LR_TMP/blk")" ] ||
		lr_fail "$what: the 4 KiB block read back differs"
}

# limits LBS PBS CHUNK-BYTES DATA-MEMBERS STABLE
limits() {
	want logical_block_size "$1"
	want physical_block_size "$2"
	want minimum_io_size "$3"
	want optimal_io_size $(($3 * $4))
	want stable_writes "$5"
	want iostats 1
	want write_cache "write back"
	want fua 1
}

what="RAID5 x4, chunk 64K, 512 B members without a cache"
lr_members nullb 4 32
m=("${LR_M[@]}")
for d in "${m[@]}"; do
	[ "$(cat "/sys/block/${d#/dev/}/queue/write_cache")" = "write through" ] ||
		lr_fail "null_blk ${d#/dev/} has a write cache: the check below proves nothing"
done
param=/sys/module/lraid/parameters/copy_writes
[ "$(cat "$param")" = Y ] || lr_fail "copy_writes is $(cat "$param"), not Y"
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
limits 512 512 65536 3 0
lr_log "$what: as expected"
dd if=/dev/urandom of=/dev/lraid0 bs=512 count=1 seek=3 oflag=direct,sync \
	status=none || lr_fail "$what: a 512 B write"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=()

what="RAID6 x6, chunk 512K, one member of 4 KiB sectors, copy_writes=N"
LR_M=()
for i in 0 1 2 3 4 5; do
	if [ "$i" = 2 ]; then
		lr_nullb "qlim$i" 64 blocksize=4096
	else
		lr_nullb "qlim$i" 64
	fi
	LR_M+=("$LR_DEV")
done
m=("${LR_M[@]}")
echo N >"$param"
lr_create lraid0 --level 6 --chunk 512K "${m[@]}"
echo Y >"$param"
limits 4096 4096 524288 4 1
dd if=/dev/urandom of=/dev/lraid0 bs=512 count=1 seek=8 oflag=direct \
	status=none 2>/dev/null &&
	lr_fail "$what: a 512 B write to a 4 KiB-sector array was taken"
dd if=/dev/urandom of="$LR_TMP/blk" bs=4096 count=1 status=none
dd if="$LR_TMP/blk" of=/dev/lraid0 bs=4096 seek=3 oflag=direct,sync \
	status=none || lr_fail "$what: a 4 KiB write"
same_block
lr_log "$what: as expected"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=()

what="the same, assembled without the 4 KiB member"
"$LRAIDCTL" assemble --run lraid0 "${m[0]}" "${m[1]}" "${m[3]}" "${m[4]}" "${m[5]}" \
	>/dev/null 2>&1 || lr_fail "$what: assemble"
LR_ARRAYS=(lraid0)
lr_settle
limits 512 512 524288 4 0
same_block
lr_log "$what: 512 B sectors again, the block rebuilt from parity"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=()

what="RAID5 x3, one member needing 4 KiB-aligned buffers (dm-crypt)"
lr_members nullb 3 32
m=("${LR_M[@]}")
modprobe -q dm-crypt 2>/dev/null || true
if lr_dm qlimcrypt "0 65536 crypt cipher_null-ecb - 0 ${m[2]} 0 1 sector_size:4096" \
	2>/dev/null; then
	m[2]=$LR_DEV
	align=/sys/block/${LR_DEV#/dev/}/queue/dma_alignment
	if [ -e "$align" ]; then
		[ "$(cat "$align")" = 4095 ] ||
			lr_fail "$what: dm-crypt's dma_alignment is $(cat "$align"), not 4095: the case proves nothing"
	fi
	lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
	[ ! -e "$align" ] || want dma_alignment 4095
	python3 - /dev/lraid0 <<'PY' || lr_fail "$what: buffer alignment"
import errno, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 12288)
buf[:8192] = os.urandom(8192)
mv = memoryview(buf)
try:
    os.pwritev(fd, [mv[512:4608]], 0)
except OSError as e:
    assert e.errno == errno.EINVAL, e
    print("ok: a 4 KiB O_DIRECT write from a buffer 512 B into a page: EINVAL")
else:
    sys.exit("a 4 KiB O_DIRECT write from a buffer 512 B into a page was taken")
assert os.pwritev(fd, [mv[4096:8192]], 0) == 4096
assert os.preadv(fd, [mv[8192:12288]], 0) == 4096
assert mv[8192:12288] == mv[4096:8192], "read back differs"
PY
	lr_log "$what: dma_alignment 4095, misaligned buffers refused"
else
	lr_log "$what: no dm-crypt with cipher_null in this kernel: not run"
fi
echo "PASS: block sizes, io_min/io_opt, buffer alignment, stable writes, iostats, write cache and FUA as documented"
