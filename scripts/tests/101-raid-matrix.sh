#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lraid data path over null_blk: RAID5 on 3/4/5/8 members, RAID6 on
# 4/5/6/8, chunks 4K/64K/512K. For each: create, fio crc32c verify with
# random writes of 512 B..2 MiB (sizes not multiples of 4 KiB included),
# stop, assemble in another member order, verify the data again.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

lr_members nullb 8 64
all=("${LR_M[@]}")

run() {
	local level=$1 n=$2 chunk=$3 m
	m=("${all[@]:0:$n}")
	lr_reversed "${m[@]}"
	lr_log "RAID$level, $n members, chunk $chunk"
	lr_create lraid0 --level "$level" --chunk "$chunk" "${m[@]}"
	lr_fio /dev/lraid0 rnd --rw=randwrite --size=12M \
		--bssplit=512/10:3584/15:4k/25:12800/15:64k/15:260k/10:2m/10 \
		--blockalign=512 --iodepth=8
	lr_fio /dev/lraid0 seq --rw=write --offset=24M --size=8M \
		--bsrange=512-256k --blockalign=512 --iodepth=4
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
	"$LRAIDCTL" assemble lraid0 "${LR_REV[@]}" >/dev/null || lr_fail "assemble"
	lr_settle
	lr_check_roles lraid0
	lr_fio /dev/lraid0 rnd --rw=randwrite --size=12M \
		--bssplit=512/10:3584/15:4k/25:12800/15:64k/15:260k/10:2m/10 \
		--blockalign=512 --iodepth=8 --verify_only
	lr_fio /dev/lraid0 seq --rw=write --offset=24M --size=8M \
		--bsrange=512-256k --blockalign=512 --iodepth=4 --verify_only
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
}

# full: every level x member count x chunk (24 arrays). quick (make check):
# a covering set in which every member count of both levels and every chunk
# size appears, each chunk size with both levels.
i=0
if lr_full; then
	for cfg in 5:3 5:4 5:5 5:8 6:4 6:5 6:6 6:8; do
		for c in 4K 64K 512K; do
			run "${cfg%:*}" "${cfg#*:}" "$c"
			i=$((i + 1))
		done
	done
else
	for cfg in 5:3:4K 5:4:64K 5:5:512K 5:8:64K 6:4:512K 6:5:4K 6:6:64K 6:8:4K; do
		IFS=: read -r level n c <<<"$cfg"
		run "$level" "$n" "$c"
		i=$((i + 1))
	done
fi
echo "PASS: raid matrix ($i arrays)"
