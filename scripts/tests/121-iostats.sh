#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# I/O accounting of the lraid disk, as md keeps it for mdN: iostat and
# /sys/block/lraidN/stat count every request lraid takes, exactly once,
# whichever path serves it (a read remapped in place, a read cut across
# chunks, a degraded read, a partial-stripe write, discard, write-zeroes),
# nothing is left in flight, and queue/iostats switches it off and on.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need blkdiscard
lr_setup

# counts WHAT FIELD=DELTA... -- CMD...: run CMD, then every FIELD must have
# grown by exactly DELTA and nothing may be left in flight
counts() {
	local what=$1 kv f
	local -A before=()
	shift
	local pairs=()
	while [ "$1" != -- ]; do
		pairs+=("$1")
		shift
	done
	shift
	for kv in "${pairs[@]}"; do
		before[${kv%%=*}]=$(lr_stat "${kv%%=*}")
	done
	"$@" || lr_fail "$what: $* failed"
	for kv in "${pairs[@]}"; do
		f=${kv%%=*}
		got=$(($(lr_stat "$f") - before[$f]))
		[ "$got" = "${kv#*=}" ] ||
			lr_fail "$what: stat field $f grew by $got, expected ${kv#*=} ($(cat /sys/block/lraid0/stat))"
	done
	[ "$(lr_stat 9)" = 0 ] || lr_fail "$what: $(lr_stat 9) left in flight"
}

# fields: 1 reads, 3 sectors read, 5 writes, 7 sectors written,
# 12 discards, 14 sectors discarded
lr_log "RAID5 on 4 loop members, chunk 64K"
lr_members loop 4 48
lr_create lraid0 --level 5 --chunk 64K "${LR_M[@]}"
[ "$(cat /sys/block/lraid0/queue/iostats)" = 1 ] || lr_fail "iostats not on by default"
[ "$(cat /sys/block/lraid0/queue/discard_max_bytes)" != 0 ] ||
	lr_skip "no discard over loop members (no write-zeroes?)"

# udev probes a device after a writer closes it; those reads would count.
# Hold udev's event execution from here on (and release it on exit,
# pass or fail, or later scenarios' "udevadm settle" would wait it out).
if command -v udevadm >/dev/null && udevadm control --stop-exec-queue 2>/dev/null; then
	trap 'udevadm control --start-exec-queue ||
		lr_log "udevadm control --start-exec-queue failed"; lr_cleanup' EXIT
fi

counts "64 writes of 64K, partial stripes" 5=64 7=8192 1=0 -- \
	dd if=/dev/urandom of=/dev/lraid0 iflag=fullblock bs=64k count=64 oflag=direct status=none
counts "64 reads of 4K inside a chunk (in place)" 1=64 3=512 5=0 -- \
	dd if=/dev/lraid0 of=/dev/null bs=4k count=64 iflag=direct status=none
counts "32 reads of 64K across two chunks" 1=32 3=4096 5=0 -- \
	dd if=/dev/lraid0 of=/dev/null bs=64k count=32 iflag=direct,skip_bytes \
	skip=32768 status=none
counts "discard of 8 stripes" 12=1 14=3072 1=0 5=0 -- \
	blkdiscard -f -o 0 -l $((8 * 192 * 1024)) /dev/lraid0
counts "write-zeroes of 100K" 5=1 7=200 1=0 12=0 -- \
	blkdiscard -f -z -o $((2 << 20)) -l $((100 * 1024)) /dev/lraid0

"$LRAIDCTL" fail lraid0 "${LR_M[1]}" >/dev/null || lr_fail "fail ${LR_M[1]}"
# role 1 holds array bytes 64K-128K of stripe 0 (left-symmetric)
counts "16 degraded reads of 4K" 1=16 3=128 5=0 -- \
	dd if=/dev/lraid0 of=/dev/null bs=4k skip=16 count=16 iflag=direct status=none
counts "4 degraded writes of 64K" 5=4 7=512 -- \
	dd if=/dev/urandom of=/dev/lraid0 iflag=fullblock bs=64k seek=1 count=4 oflag=direct status=none

lr_log "queue/iostats 0: nothing counted; 1: counted again"
echo 0 >/sys/block/lraid0/queue/iostats
counts "reads and writes with iostats 0" 1=0 3=0 5=0 7=0 -- \
	dd if=/dev/lraid0 of=/dev/lraid0 bs=64k count=8 seek=100 iflag=direct \
	oflag=direct status=none
echo 1 >/sys/block/lraid0/queue/iostats
counts "8 reads with iostats 1" 1=8 3=1024 -- \
	dd if=/dev/lraid0 of=/dev/null bs=64k count=8 iflag=direct status=none
"$LRAIDCTL" stop lraid0 || lr_fail stop
echo PASS
