#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The queue limits lraid's disk offers, as read in sysfs:
#   - logical and physical block size: the largest of the members'
#     (one member of 4 KiB sectors makes the array 4 KiB; a write of
#     512 B is then refused by the block layer, one of 4 KiB works);
#   - minimum_io_size the chunk, optimal_io_size the stripe width;
#   - stable writes and I/O statistics on;
#   - a volatile write cache and FUA, even on members that have no cache
#     (as md): a member may turn its cache on later, and the block layer
#     drops flush and FUA before they reach a disk without one.
# Checked for RAID5 x4 at 64 KiB and RAID6 x6 at 512 KiB, and for a
# degraded assembly, where the missing member's limits cannot count.
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

# limits LBS PBS CHUNK-BYTES DATA-MEMBERS
limits() {
	want logical_block_size "$1"
	want physical_block_size "$2"
	want minimum_io_size "$3"
	want optimal_io_size $(($3 * $4))
	want stable_writes 1
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
lr_create lraid0 --level 5 --chunk 64K "${m[@]}"
limits 512 512 65536 3
lr_log "$what: as expected"
dd if=/dev/urandom of=/dev/lraid0 bs=512 count=1 seek=3 oflag=direct,sync \
	status=none || lr_fail "$what: a 512 B write"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop"
LR_ARRAYS=()

what="RAID6 x6, chunk 512K, one member of 4 KiB sectors"
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
lr_create lraid0 --level 6 --chunk 512K "${m[@]}"
limits 4096 4096 524288 4
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
"$LRAIDCTL" assemble lraid0 "${m[0]}" "${m[1]}" "${m[3]}" "${m[4]}" "${m[5]}" \
	>/dev/null 2>&1 || lr_fail "$what: assemble"
LR_ARRAYS=(lraid0)
lr_settle
limits 512 512 524288 4
same_block
lr_log "$what: 512 B sectors again, the block rebuilt from parity"
echo "PASS: block sizes, io_min/io_opt, stable writes, iostats, write cache and FUA as documented"
