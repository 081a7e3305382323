#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A filesystem on lraid: mkfs.ext4, copy a file tree in, compare, fsck,
# fstrim, remount after stop/assemble and compare again (RAID5 and RAID6
# on loop members, which support discard).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mkfs.ext4 fsck.ext4 fstrim
lr_setup

src=/usr/include
[ -d "$src/linux" ] || lr_skip "no $src/linux to copy"

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
	sync
	diff -r "$src/linux" "$mnt/linux" >/dev/null || lr_fail "tree differs"
	rm -rf "$mnt/asm-generic"
	fstrim -v "$mnt" || lr_fail fstrim
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
