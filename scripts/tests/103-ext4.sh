#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A filesystem on lraid: mkfs.ext4, copy a file tree in, compare, fsck,
# fstrim, remount after stop/assemble and compare again (RAID5 and RAID6
# on loop members, which support write-zeroes, so lraid offers discard).
# fstrim must reach the members: 16 MiB written and deleted, the loop
# files then hold at least 8 MiB less. (The loop files sit on ext4, see
# lr_loop_fs: on tmpfs, mkfs.ext4 leaves loop on 6.12 without
# write-zeroes, and lraid then rightly offers no discard; before lraid
# withdrew it, fstrim there succeeded and trimmed nothing.)
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mkfs.ext4 fsck.ext4 fstrim
lr_setup

src=/usr/include
[ -d "$src/linux" ] || lr_skip "no $src/linux to copy"
lr_loop_fs 2048

# KiB the loop files hold
held() {
	du -k -c "$LR_LOOP_DIR"/loop.* | tail -n 1 | cut -f1
}

for cfg in "5 4 64K" "6 5 16K"; do
	read -r level n chunk <<<"$cfg"
	lr_log "ext4 on RAID$level, $n members, chunk $chunk"
	lr_members loop "$n" 128
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	mnt=$LR_TMP/mnt
	mkdir -p "$mnt"
	mkfs.ext4 -q -F /dev/lraid0 || lr_fail mkfs
	mount /dev/lraid0 "$mnt" || lr_fail mount
	cp -a "$src/linux" "$src/asm-generic" "$mnt/" || lr_fail copy
	dd if=/dev/urandom of="$mnt/big" bs=1M count=16 status=none ||
		lr_fail "write $mnt/big"
	sync
	diff -r "$src/linux" "$mnt/linux" >/dev/null || lr_fail "tree differs"
	rm -rf "$mnt/asm-generic" "$mnt/big"
	sync
	before=$(held)
	fstrim -v "$mnt" || lr_fail fstrim
	after=$(held)
	lr_log "the loop files held $before KiB before fstrim, $after after"
	[ $((before - after)) -ge 8192 ] ||
		lr_fail "fstrim freed $((before - after)) KiB on the members, expected 8192 or more"
	umount "$mnt"
	fsck.ext4 -fn /dev/lraid0 >/dev/null 2>&1 || lr_fail "fsck not clean"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail assemble
	fsck.ext4 -fn /dev/lraid0 >/dev/null 2>&1 || lr_fail "fsck after assemble"
	mount /dev/lraid0 "$mnt" || lr_fail mount
	diff -r "$src/linux" "$mnt/linux" >/dev/null || lr_fail "tree differs after assemble"
	umount "$mnt"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
echo "PASS: ext4 on lraid"
