#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The edges of the geometry lraid accepts (3..32 members, RAID6 4..32,
# chunks 4 KiB..1 MiB), which the matrix (101) stays inside:
#   - RAID6 on 32 members with 1 MiB chunks (30 MiB stripes) and RAID5
#     on 32 with 4 KiB chunks (31 data chunks of 4 KiB): fio crc32c
#     verify with full-stripe writes and random writes of 512 B up to
#     30 MiB (several stripes),
#     stop, assemble in reverse order, verify again, then md over the
#     same members must read the same bytes and find parity consistent;
#   - RAID5 on 3 and RAID6 on 4 members with 1 MiB chunks, the same way;
#   - RAID6 on 32 members with the first and the last role failed (bit 31
#     of the failed-member mask): reads rebuilt from the other 30, writes
#     while doubly degraded, the mask on the survivors' superblocks, and
#     a stop and assemble that keeps both failed members out;
#   - 33 members refused, members untouched.
# quick-kernels: none
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio mdadm
lr_setup
modprobe -q raid456 2>/dev/null || lr_skip "no raid456 module"

# writes STRIPE-KiB SIZE-MiB [fio option...]: full-stripe sequential
# writes over the whole stripes in the first SIZE MiB, then random writes
# of 512 B..SIZE/4 MiB (several stripes) over the SIZE MiB after them,
# both verified. serialize_overlap: blockalign turns fio's random map
# off, so two writes in flight may overlap, and fio's verify expects the
# later one to land last, which no block device promises (lraid's per-CPU
# workers may apply them in either order; 102 checks such races without
# that assumption)
writes() {
	local stripe=$1 size=$2 full
	shift 2
	full=$((size * 1024 / stripe * stripe))
	lr_fio /dev/lraid0 full --rw=write --bs="${stripe}k" \
		--size="${full}k" --iodepth=2 "$@"
	lr_fio /dev/lraid0 rnd --rw=randwrite --offset="${full}k" \
		--size="${size}M" --blockalign=512 --iodepth=8 \
		--bssplit=512/10:3584/10:4k/20:12800/10:64k/10:1m/15:2m/15:$((size / 4))m/10 \
		--serialize_overlap=1 "$@"
}

# edge LEVEL N CHUNK-KiB MEMBER-MiB SIZE-MiB: create, write, stop,
# assemble reversed, verify, md's cross-check
edge() {
	local level=$1 n=$2 chunk=$3 mb=$4 size=$5 sectors sha
	# a stripe's data: n - 1 chunks for RAID5, n - 2 for RAID6
	local stripe=$((chunk * (n - (level - 4))))
	lr_log "RAID$level on $n members, chunk ${chunk}K"
	lr_members nullb "$n" "$mb"
	# fresh null_blk reads zeroes: consistent parity without zeroing
	lr_create lraid0 --level "$level" --chunk "${chunk}K" --assume-clean \
		"${LR_M[@]}"
	"$LRAIDCTL" detail lraid0 | grep -q "Raid Devices : $n$" ||
		lr_fail "detail does not show $n members"
	writes "$stripe" "$size"
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
	lr_reversed "${LR_M[@]}"
	"$LRAIDCTL" assemble lraid0 "${LR_REV[@]}" >/dev/null ||
		lr_fail "assemble in reverse order"
	lr_settle
	lr_check_roles lraid0
	writes "$stripe" "$size" --verify_only
	# what was written (the rest reads zeroes through lraid and md alike)
	sectors=$((size * 2 * 2048))
	sha=$(lr_sha /dev/lraid0 "$sectors")
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
	lr_md_check "$level" "$chunk" "$sectors" "$sha" "${LR_M[@]}"
	# the cases' null_blk members must not add up in the guest's memory
	lr_nullb_drop || lr_fail "remove this case's null_blk members"
}

edge 6 32 1024 6 60
edge 5 32 4 4 24
edge 5 3 1024 16 12
edge 6 4 1024 16 12

lr_log "RAID6 on 32 members, chunk 1M, roles 0 and 31 failed"
lr_members nullb 32 10
first=${LR_M[0]}
last=${LR_M[31]}
lr_create lraid0 --level 6 --chunk 1M --assume-clean "${LR_M[@]}"
writes 30720 60
sha=$(dd if=/dev/lraid0 bs=1M count=120 iflag=direct status=none | sha256sum)
for d in "$last" "$first"; do
	"$LRAIDCTL" fail lraid0 "$d" || lr_fail "fail $d"
	"$LRAIDCTL" detail lraid0 | grep -q "faulty *$d\$" ||
		lr_fail "detail does not show $d faulty"
	# what a read that still went to it would return
	lr_noise "$d"
	[ "$(dd if=/dev/lraid0 bs=1M count=120 iflag=direct status=none |
		sha256sum)" = "$sha" ] ||
		lr_fail "contents differ after failing $d"
done
writes 30720 60 --verify_only
mask=$(lr_sb_num "${LR_M[1]}" failed_mask)
[ "$mask" = $((0x80000001)) ] ||
	lr_fail "failed_mask on a survivor is $mask, not $((0x80000001))"
# written while doubly degraded: data, P and Q of the stripes they touch
# are rebuilt from 30 members on every read
deg=(--rw=randwrite --offset=120M --size=120M --blockalign=512 --iodepth=8
	--bssplit=4k/40:64k/30:1m/20:31m/10 --serialize_overlap=1)
lr_fio /dev/lraid0 deg "${deg[@]}"
sha=$(dd if=/dev/lraid0 bs=1M count=240 iflag=direct status=none | sha256sum)
"$LRAIDCTL" stop lraid0 || lr_fail "stop"
lr_reversed "${LR_M[@]}"
"$LRAIDCTL" assemble lraid0 "${LR_REV[@]}" >"$LR_TMP/asm" 2>&1 ||
	{ cat "$LR_TMP/asm"; lr_fail "assemble of the doubly degraded array"; }
lr_settle
lr_check_roles lraid0
for d in "$first" "$last"; do
	if "$LRAIDCTL" detail lraid0 | grep -q " $d\$"; then
		"$LRAIDCTL" detail lraid0
		lr_fail "failed member $d taken back in at assemble"
	fi
done
"$LRAIDCTL" detail lraid0 | grep -q "State : .*degraded" ||
	lr_fail "detail does not show the array degraded after assemble"
[ "$(dd if=/dev/lraid0 bs=1M count=240 iflag=direct status=none |
	sha256sum)" = "$sha" ] || lr_fail "contents differ after assemble"
lr_fio /dev/lraid0 deg "${deg[@]}" --verify_only
"$LRAIDCTL" stop lraid0 || lr_fail "stop"

lr_log "33 members refused"
lr_nullb "nullb33" 10
before=$(for d in "${LR_M[@]}" "$LR_DEV"; do head -c 64K "$d" | sha256sum; done)
if out=$("$LRAIDCTL" create lraid1 --run --level 6 --assume-clean "${LR_M[@]}" \
	"$LR_DEV" 2>&1); then
	LR_ARRAYS+=(lraid1)
	lr_fail "33 members accepted"
fi
grep -q "lraidctl: " <<<"$out" || lr_fail "33 members: no error message: $out"
lr_log "refused: $out"
[ ! -e /dev/lraid1 ] || lr_fail "/dev/lraid1 exists after a refused create"
after=$(for d in "${LR_M[@]}" "$LR_DEV"; do head -c 64K "$d" | sha256sum; done)
[ "$before" = "$after" ] || lr_fail "the refused create changed a member"
echo "PASS: 32 members, 1 MiB and 4 KiB chunks, role 31 failed, 33 refused"
