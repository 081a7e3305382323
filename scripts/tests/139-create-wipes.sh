#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# create erases the older metadata around the data area, as mdadm's create
# erases older md superblocks. Members that held an md array (metadata
# 0.90 and 1.0 at the end, 1.2 at 4 KiB) and a btrfs signature (64 KiB)
# used to keep all but what lraid's superblock overwrote: blkid went on
# calling them linux_raid_member, and udev's mdadm rules would assemble
# the old md array over lraid's data. Every create zeroes the first MiB
# behind the superblock and the last MiB of each member past the data
# area; without --assume-clean it zeroes the data area, and with it it
# erases the md 0.90 and 1.0 superblocks that lie inside the data area
# (on members whose data area reaches their last chunk) and keeps the
# rest of the data area as it was. udev's event execution is held while
# the md arrays are planted and the array is created (udev would
# assemble the planted arrays and hold the members); once it runs the
# events it held, no md array may have been assembled. RAID5 x4 on loop
# members: three of 64 MiB + 192 KiB and one of 72 MiB. With --assume-clean
# and chunk 64K the three small ones' data areas reach their ends (md 0.90
# and 1.0 inside), the large one has 8 MiB past it; the zeroing create
# uses chunk 512K, which leaves 384 sectors past the small ones' data.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need mdadm cmp wipefs
lr_setup

# hold_udev / release_udev: stop and restart udev's event execution (and
# restart it on exit, pass or fail, or later scenarios' "udevadm settle"
# would wait it out); a guest without udevd has nothing to hold
HELD=
hold_udev() {
	if udevadm control --stop-exec-queue 2>/dev/null; then
		HELD=1
	fi
}
release_udev() {
	if [ -n "$HELD" ]; then
		udevadm control --start-exec-queue || lr_fail "udevadm control --start-exec-queue"
		HELD=
	fi
	lr_settle
}
# lr_cleanup first: it stops what a failed run left, before udev sees the
# members' events and assembles md arrays from what it left on them
trap 'lr_cleanup; [ -z "$HELD" ] || udevadm control --start-exec-queue ||
	echo "udevadm control --start-exec-queue failed"' EXIT
export MDADM_NO_UDEV=1	# mdadm makes its nodes itself, waits for no udev

LR_M=()
for s in 65728K 65728K 73728K 65728K; do
	lr_loop "$s"
	LR_M+=("$LR_DEV")
done
# data_end CHUNK_SECTORS: where every member's data area ends (the
# smallest member's size decides)
data_end() {
	echo $((2048 + (131456 - 2048) / $1 * $1))
}

# md_at VERSION DEV: byte offset of md's VERSION superblock on DEV
md_at() {
	local bytes
	bytes=$(blockdev --getsize64 "$2")
	case $1 in
	0.90) echo $(((bytes & ~65535) - 65536)) ;;
	1.0) echo $((((bytes >> 9) - 16) / 8 * 8 * 512)) ;;
	1.2) echo 4096 ;;
	esac
}

# md_sb VERSION DEV: mdadm finds an md superblock of VERSION on DEV (its
# exit status says nothing when --metadata is given)
md_sb() {
	mdadm --examine --metadata="$1" "$2" 2>/dev/null | grep -q "Magic : a92b4efc"
}

# md_plant VERSION: an md array of that metadata over the members, then
# stopped; each member's superblock block is kept in $LR_TMP
md_plant() {
	local m i=0
	mdadm --create /dev/md120 --run --quiet --metadata="$1" --level=5 \
		--chunk=64 --raid-devices=4 --assume-clean --bitmap=none \
		"${LR_M[@]}" >"$LR_TMP/mdadm.out" 2>&1 ||
		{ cat "$LR_TMP/mdadm.out"; lr_fail "mdadm --create -e $1"; }
	mdadm --stop /dev/md120 >/dev/null 2>&1 || lr_fail "mdadm --stop"
	for m in "${LR_M[@]}"; do
		dd if="$m" of="$LR_TMP/md$1.$i" bs=4096 count=1 iflag=direct,skip_bytes \
			skip="$(md_at "$1" "$m")" status=none
		i=$((i + 1))
	done
}

# plant: (udev held) every member holds md superblocks of metadata 0.90, 1.0 and 1.2
# (mdadm's create erases the older ones: they are written back), and the
# btrfs magic, where each keeps it
plant() {
	local m v i
	md_plant 0.90
	md_plant 1.0
	md_plant 1.2
	i=0
	for m in "${LR_M[@]}"; do
		for v in 0.90 1.0; do
			dd if="$LR_TMP/md$v.$i" of="$m" bs=4096 oflag=direct,seek_bytes \
				seek="$(md_at "$v" "$m")" status=none
		done
		printf '_BHRfS_M' | dd of="$m" bs=1 seek=$((65536 + 64)) conv=notrunc status=none
		i=$((i + 1))
	done
	for m in "${LR_M[@]}"; do
		for v in 0.90 1.0 1.2; do
			md_sb "$v" "$m" || lr_fail "planting: no md $v superblock on $m"
		done
	done
	if "$LRAIDCTL" create lraid0 --level 5 "${LR_M[@]}" >"$LR_TMP/c.out" 2>&1 </dev/null; then
		lr_fail "create over the planted members went ahead without --run"
	fi
	for v in 0.90 1.0 1.2; do
		[ "$(grep -c "md superblock (metadata $v)" "$LR_TMP/c.out")" = 4 ] ||
			lr_fail "create's probe does not see md $v on every member: $(cat "$LR_TMP/c.out")"
	done
	[ "$(grep -c "btrfs" "$LR_TMP/c.out")" = 4 ] ||
		lr_fail "create's probe does not see btrfs on every member: $(cat "$LR_TMP/c.out")"
}

# zero_at DEV SECTOR COUNT: COUNT sectors of DEV from SECTOR read zeroes
zero_at() {
	cmp -n $(($3 * 512)) /dev/zero <(sectors "$@") >/dev/null
}

# sectors DEV SECTOR COUNT: those sectors of DEV, read around the page cache
sectors() {
	dd if="$1" bs=1M skip=$(($2 * 512)) count=$(($3 * 512)) \
		iflag=direct,skip_bytes,count_bytes status=none
}

# wiped DATA_END: nothing of the planted metadata is left on any member,
# whose data area ends at DATA_END, and the array's own superblock is there
wiped() {
	local data_end=$1 m v dev out
	for m in "${LR_M[@]}"; do
		for v in 0.90 1.0 1.2; do
			if md_sb "$v" "$m"; then
				lr_fail "md $v superblock left on $m"
			fi
		done
		out=$(wipefs --no-act --noheadings "$m") || lr_fail "wipefs $m"
		[ -z "$out" ] || lr_fail "signatures left on $m: $out"
		zero_at "$m" 8 2040 || lr_fail "$m: not zero between superblock and data"
		dev=$(blockdev --getsz "$m")
		if [ $((dev - data_end)) -gt 2048 ]; then
			zero_at "$m" $((dev - 2048)) 2048 || lr_fail "$m: last MiB not zero"
		else
			zero_at "$m" "$data_end" $((dev - data_end)) ||
				lr_fail "$m: not zero past the data area"
		fi
		"$LRAIDCTL" examine "$m" >/dev/null || lr_fail "no lraid superblock on $m"
	done
}

# create CHUNK [OPTION]: RAID5 over the members (udev held: no lr_create,
# whose settle would wait for it)
create() {
	"$LRAIDCTL" create --run lraid0 --level 5 --chunk "$@" "${LR_M[@]}" \
		>"$LR_TMP/c.out" 2>&1 || { cat "$LR_TMP/c.out"; lr_fail "create lraid0 $*"; }
	LR_ARRAYS+=(lraid0)
	[ -b /dev/lraid0 ] || lr_fail "/dev/lraid0 missing after create"
}

# nothing_assembled: udev ran the events of the members (held until now)
# and no md array came of them
nothing_assembled() {
	if grep -q '^md' /proc/mdstat 2>/dev/null; then
		lr_fail "md assembled an array from the members: $(cat /proc/mdstat)"
	fi
}

lr_log "--assume-clean over members that held md and btrfs: both erased, data kept"
hold_udev
plant
end=$(data_end 128)
# the data area's first MiB and most of its last (up to md 0.90's block on
# the small members) on each member, to be kept
for m in "${LR_M[@]}"; do
	head -c 1M /dev/urandom >"$LR_TMP/first.${m##*/}"
	head -c 896K /dev/urandom >"$LR_TMP/last.${m##*/}"
	dd if="$LR_TMP/first.${m##*/}" of="$m" bs=1M seek=1 oflag=direct status=none
	dd if="$LR_TMP/last.${m##*/}" of="$m" bs=512 seek=$((end - 2048)) \
		oflag=direct status=none
done
lr_klog_mark
create 64K --assume-clean
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
wiped "$end"
for m in "${LR_M[@]}"; do
	cmp "$LR_TMP/first.${m##*/}" <(sectors "$m" 2048 2048) ||
		lr_fail "$m: --assume-clean changed the data area's first MiB"
	cmp "$LR_TMP/last.${m##*/}" <(sectors "$m" $((end - 2048)) 1792) ||
		lr_fail "$m: --assume-clean changed the data area's last MiB"
done
for v in 0.90 1.0; do
	n=$(lr_klog | grep -c "lraid0: erased an md $v superblock in loop[0-9]*'s data area") || true
	[ "$n" = 3 ] || lr_fail "md $v erased inside the data area of $n members, want 3: $(lr_klog)"
done
release_udev
nothing_assembled
"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null || lr_fail "assemble lraid0"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"

lr_log "create (zeroing) over members that held md and btrfs: both erased"
hold_udev
plant
create 512K
zero_at /dev/lraid0 0 "$(lr_sectors lraid0)" || lr_fail "lraid0 not zero after create"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
wiped "$(data_end 1024)"
release_udev
nothing_assembled
echo "PASS"
