#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What md users stack on top of an array, on lraid:
#   - XFS, RAID5 x4 (64 KiB chunk) and RAID6 x6 (128 KiB): mkfs.xfs reads
#     the stripe geometry from lraid's minimum_io_size and optimal_io_size,
#     so sunit must come out as the chunk and swidth as the chunk times the
#     data members (xfs_info counts both in file system blocks). mkfs.xfs
#     ignores the device's geometry below 1 GiB, hence members of 272-360
#     MiB (sparse loop files on ext4, see lr_loop_fs). On RAID6 then a file
#     tree copied in and compared, fstrim freeing space on the members,
#     xfs_repair -n clean, stop, assemble, the tree compared again (103
#     does the same with ext4 on both levels).
#   - dm-crypt (LUKS2, PBKDF2 at 1000 iterations: fast under emulation) on
#     RAID6 x5, 16 KiB chunk: LUKS2 data aligned to the stripe; fio with
#     crc32c verify through the crypt device; stop must be refused while
#     the mapping holds the array and must change nothing; two members
#     failed one after the other, their data areas overwritten with noise,
#     and everything read back through the crypt device, rebuilt from
#     parity (the same bytes as before, through the mapping and on lraid0
#     itself, and fio's verify); last, closed, stopped, assembled from the
#     three survivors, opened again and read back.
#   - LVM on RAID5 x4 (32 KiB chunk, so a 96 KiB stripe that 1 MiB is not
#     a multiple of): LVM takes only device types it knows or is told of
#     (/proc/devices names lraid's), so pvcreate must fail as the admin
#     guide says, writing nothing, and a VG made with devices/types must be
#     invisible without it. With it: PV data aligned to the stripe, two LVs
#     inheriting lraid's minimum and optimal I/O sizes, fio verify on one,
#     the other written beside it, both read back after the VG was
#     deactivated, the array stopped and assembled, the VG activated again.
# A part whose kernel support is missing (no xfs or dm-crypt: the debug
# kernel) is logged as not run. The mount, the mapping and the VG are
# taken down before the array, also on failure (the EXIT trap, then
# lr_cleanup, which stops arrays before it removes device-mapper devices:
# its own sit below lraid).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio dmsetup mkfs.xfs xfs_info xfs_repair fstrim cryptsetup pvcreate
lr_setup

# LVM prints a warning per inherited descriptor (vng's virtio ports)
export LVM_SUPPRESS_FD_WARNINGS=1
# LVM and cryptsetup wait for udev to make device nodes: forever on the
# debug kernel, where udevd dies at once (146) but leaves its socket.
# There libdevmapper makes them itself (udev_sync and udev_rules off; it
# warns at each LVM command, taking the socket for a running udevd).
if ! udevadm control --ping --timeout=10 >/dev/null 2>&1; then
	lr_log "udevd does not answer: device-mapper nodes without it (DM_DISABLE_UDEV)"
	export DM_DISABLE_UDEV=1
fi
# what lvm.conf needs for lraid (admin-guide.rst): lraid disks have one
# minor each and no partitions
LVM_TYPES='devices { types = [ "lraid", 1 ] }'
VG=lr144vg
CRYPT=lr144crypt
MNT=$LR_TMP/mnt
mkdir -p "$MNT"

# Upper layers first, then lr_cleanup
above_cleanup() {
	local n
	set +e
	mountpoint -q "$MNT" && umount "$MNT"
	dmsetup info "$CRYPT" >/dev/null 2>&1 && cryptsetup close "$CRYPT"
	dmsetup info "$VG-lv1" >/dev/null 2>&1 &&
		vgchange --config "$LVM_TYPES" -an "$VG" >/dev/null 2>&1
	# whatever of ours the tools left
	while read -r n _; do
		case $n in lr144*) dmsetup remove --noudevsync "$n" ;; esac
	done < <(dmsetup ls 2>/dev/null)
	lr_cleanup
}
trap above_cleanup EXIT

# lvmt CMD ARG...: an LVM command told about lraid
lvmt() {
	local c=$1
	shift
	"$c" --config "$LVM_TYPES" "$@"
}

# dmdev NAME: the node of device-mapper device NAME (/dev/dm-N, which
# does not wait for udev)
dmdev() {
	local d
	d=/dev/$(dmsetup info -c --noheadings -o blkdevname "$1") ||
		lr_fail "no device-mapper device $1"
	[ -b "$d" ] || lr_fail "$1: no block device $d"
	echo "$d"
}

# dsha DEV MIB: sha256 of DEV's first MIB MiB, read around the page cache
dsha() {
	dd if="$1" bs=1M count="$2" iflag=direct status=none | sha256sum |
		cut -d' ' -f1
}

# dsame FILE DEV: DEV begins with FILE's bytes, read around the page cache
dsame() {
	dd if="$2" bs=1M count="$(stat -c %s "$1")" iflag=direct,count_bytes \
		status=none | cmp -s - "$1"
}

# oneline FILE: FILE's lines joined, blanks squeezed
oneline() {
	tr -s ' \n' '  ' <"$1" | sed 's/^ //; s/ $//'
}

# limits DEV IO_MIN IO_OPT: DEV's queue offers them
limits() {
	local a want got
	for a in "minimum_io_size $2" "optimal_io_size $3"; do
		read -r a want <<<"$a"
		got=$(lr_qmax "$1" "$a")
		[ "$got" = "$want" ] || lr_fail "$1: queue/$a is '$got', not $want"
	done
}

# KiB the loop files hold
held() {
	du -k -c "$LR_LOOP_DIR"/loop.* | tail -n 1 | cut -f1
}

ran=()

# ---- XFS ----
# xfs_geom MNT: "BSIZE SUNIT SWIDTH" of the data section, the last two in
# file system blocks as xfs_info prints them
xfs_geom() {
	xfs_info "$1" | awk '
		/^data / { d = 1 }
		d { for (i = 1; i <= NF; i++) {
			if ($i ~ /^bsize=/) b = substr($i, 7)
			if ($i ~ /^sunit=/) u = substr($i, 7)
			if ($i ~ /^swidth=/) { print b, u, substr($i, 8); exit }
		} }'
}

# xfs_round WHAT: the data round on lraid0 (XFS mounted on $MNT): a tree
# copied in with 16 MiB beside it, compared, the 16 MiB deleted and
# trimmed from the members, xfs_repair -n, stop, assemble, compared again
xfs_round() {
	local what=$1 before after
	cp -a "$tree" "$MNT/" || lr_fail "$what: copy"
	dd if=/dev/urandom of="$MNT/big" bs=1M count=16 status=none ||
		lr_fail "$what: write $MNT/big"
	sync
	diff -r "$tree" "$MNT/tree" >/dev/null || lr_fail "$what: tree differs"
	rm "$MNT/big"
	sync
	before=$(held)
	fstrim "$MNT" || lr_fail "$what: fstrim"
	after=$(held)
	lr_log "$what: the loop files held $before KiB before fstrim, $after after"
	[ $((before - after)) -ge 8192 ] ||
		lr_fail "$what: fstrim freed $((before - after)) KiB on the members, expected 8192 or more"
	umount "$MNT"
	xfs_repair -n /dev/lraid0 >"$LR_TMP/repair" 2>&1 ||
		{ cat "$LR_TMP/repair"; lr_fail "$what: xfs_repair -n not clean"; }
	"$LRAIDCTL" stop lraid0 || lr_fail "$what: stop"
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null ||
		lr_fail "$what: assemble"
	lr_settle
	mount /dev/lraid0 "$MNT" || lr_fail "$what: mount after assemble"
	diff -r "$tree" "$MNT/tree" >/dev/null ||
		lr_fail "$what: tree differs after assemble"
}

lr_loop_fs 3072
modprobe -q xfs 2>/dev/null || true
if ! grep -qw xfs /proc/filesystems; then
	lr_log "XFS: not in this kernel: not run"
else
	ran+=(XFS)
	# The tree: 24 directories of 32 files each, of 0 B to 192 KiB, and a
	# symbolic link, made in the guest's tmpfs (a cp -a of
	# /usr/include/linux, as 103 does, reads the guest's 9p root: 20-45 s)
	tree=$LR_TMP/tree
	python3 - "$tree" <<'PY' || lr_fail "cannot make a file tree in $tree"
import os, random, sys
top = sys.argv[1]
data = os.urandom(2 * 196608)
for d in range(24):
    p = os.path.join(top, f"d{d:02}", f"s{d % 5}")
    os.makedirs(p)
    for f in range(32):
        n = random.choice((0, 1, 511, 4096, 4097, random.randrange(1, 196608)))
        at = random.randrange(196608)
        with open(os.path.join(p, f"f{f:02}"), "wb") as o:
            o.write(data[at:at + n])
    os.symlink("f00", os.path.join(p, "link"))
PY
	for cfg in "5 4 64 360 -" "6 6 128 272 data"; do
		read -r level n chunk mb round <<<"$cfg"
		what="XFS on RAID$level x$n, chunk ${chunk}K"
		lr_log "$what"
		lr_members loop "$n" "$mb"
		lr_create lraid0 --level "$level" --chunk "${chunk}K" "${LR_M[@]}"
		unit=$((chunk * 1024))
		width=$((unit * (n - level + 4)))
		limits /dev/lraid0 $unit $width
		[ "$(blockdev --getsize64 /dev/lraid0)" -ge $((1 << 30)) ] ||
			lr_fail "$what: lraid0 is below 1 GiB, where mkfs.xfs ignores the stripe geometry"
		mkfs.xfs -q -f /dev/lraid0 >"$LR_TMP/mkfs" 2>&1 ||
			{ cat "$LR_TMP/mkfs"; lr_fail "$what: mkfs.xfs"; }
		mount /dev/lraid0 "$MNT" || lr_fail "$what: mount"
		read -r bsize sunit swidth <<<"$(xfs_geom "$MNT")"
		[[ "$bsize" =~ ^[0-9]+$ && "$sunit" =~ ^[0-9]+$ &&
			"$swidth" =~ ^[0-9]+$ ]] ||
			{ xfs_info "$MNT"; lr_fail "$what: cannot read xfs_info"; }
		lr_log "$what: bsize $bsize, sunit $sunit, swidth $swidth blocks"
		if [ $((sunit * bsize)) != $unit ] || [ $((swidth * bsize)) != $width ]; then
			cat "$LR_TMP/mkfs"
			xfs_info "$MNT"
			lr_fail "$what: sunit $sunit, swidth $swidth blocks of $bsize B; wanted $((unit / bsize)) and $((width / bsize))"
		fi
		[ "$round" = - ] || xfs_round "$what"
		umount "$MNT"
		"$LRAIDCTL" stop lraid0 || lr_fail "$what: stop"
	done
fi

# ---- dm-crypt ----
# fill ARGS...: sequential writes of 12 KiB (across 16 KiB chunks) over the
# crypt device's first 9 MiB; more ARGS...: random 4 KiB ones at 9-10 MiB
# (read-modify-write of partial stripes)
fill() {
	lr_fio "$cdev" fill --rw=write --bs=12k --size=9M --iodepth=8 "$@"
}
more() {
	lr_fio "$cdev" more --rw=randwrite --bs=4k --offset=9M --size=1M \
		--iodepth=8 "$@"
}

# shas: the crypt device's first 11 MiB (all that is written) and
# lraid0's first 28 MiB (the LUKS header, 16 MiB, and the same data
# encrypted), read around the page cache
shas() {
	echo "$(dsha "$cdev" 11) $(dsha /dev/lraid0 28)"
}

# same WHAT: shas reads as before ($sums)
same() {
	[ "$(shas)" = "$sums" ] ||
		lr_fail "crypt: $1: the crypt device or lraid0 reads other bytes"
}

modprobe -q dm-crypt 2>/dev/null || true
if ! dmsetup targets 2>/dev/null | grep -q '^crypt '; then
	lr_log "dm-crypt: not in this kernel: not run"
else
	ran+=(dm-crypt)
	lr_log "dm-crypt (LUKS2) on RAID6 x5, chunk 16K"
	lr_members loop 5 24
	m=("${LR_M[@]}")
	lr_create lraid0 --level 6 --chunk 16K "${m[@]}"
	limits /dev/lraid0 16384 49152
	key=$LR_TMP/key
	head -c 64 /dev/urandom >"$key"
	cryptsetup luksFormat --batch-mode --type luks2 --pbkdf pbkdf2 \
		--pbkdf-force-iterations 1000 --key-file "$key" /dev/lraid0 ||
		lr_fail "crypt: luksFormat"
	cryptsetup open --key-file "$key" /dev/lraid0 "$CRYPT" ||
		lr_fail "crypt: open"
	cdev=$(dmdev "$CRYPT")
	# cryptsetup, too, puts the data at a multiple of optimal_io_size
	read -r _ _ t _ _ _ _ off _ <<<"$(dmsetup table "$CRYPT")"
	if [ "$t" != crypt ] || ! [[ "$off" =~ ^[0-9]+$ ]] ||
		[ $((off * 512 % 49152)) != 0 ]; then
		lr_fail "crypt: data offset '$off' sectors, not a multiple of the 48 KiB stripe: $(dmsetup table "$CRYPT")"
	fi
	lr_log "crypt: LUKS2 data at $((off / 2)) KiB"
	fill
	more
	sums=$(shas)

	lr_log "crypt: stop refused while the mapping holds lraid0"
	if "$LRAIDCTL" stop lraid0 2>"$LR_TMP/err"; then
		lr_fail "crypt: stop lraid0 accepted under an open dm-crypt mapping"
	fi
	grep -q "busy" "$LR_TMP/err" ||
		lr_fail "crypt: stop refused without saying busy: $(cat "$LR_TMP/err")"
	[ -b /dev/lraid0 ] || lr_fail "crypt: lraid0 gone after a refused stop"
	lr_not_failed lraid0
	cryptsetup status "$CRYPT" | grep -q "is active" ||
		lr_fail "crypt: the mapping is not active after the refused stop"
	same "after the refused stop"
	# and the array still takes writes
	lr_fio "$cdev" after --rw=randwrite --bs=8k --offset=10M --size=1M \
		--iodepth=4
	sums=$(shas)

	gone=
	for i in 1 3; do
		gone+=" ${m[$i]}"
		lr_log "crypt: ${m[$i]} failed, its data area overwritten"
		"$LRAIDCTL" fail lraid0 "${m[$i]}" || lr_fail "crypt: fail ${m[$i]}"
		out=$("$LRAIDCTL" detail lraid0) || lr_fail "crypt: detail"
		grep -q "faulty *${m[$i]}\$" <<<"$out" ||
			lr_fail "crypt: detail does not show ${m[$i]} faulty: $out"
		lr_noise "${m[$i]}"
		same "degraded, without$gone"
	done
	# fio's own check of what it wrote, doubly degraded
	fill --verify_only
	more --verify_only

	lr_log "crypt: closed, stop, assembled from the survivors, opened again"
	cryptsetup close "$CRYPT" || lr_fail "crypt: close"
	"$LRAIDCTL" stop lraid0 || lr_fail "crypt: stop after close"
	"$LRAIDCTL" assemble --run lraid0 "${m[0]}" "${m[2]}" "${m[4]}" \
		>/dev/null 2>"$LR_TMP/err" || lr_fail "crypt: assemble the survivors"
	grep -q "started degraded.*without roles 1, 3" "$LR_TMP/err" ||
		lr_fail "crypt: assemble said: $(cat "$LR_TMP/err")"
	lr_settle
	cryptsetup open --key-file "$key" /dev/lraid0 "$CRYPT" ||
		lr_fail "crypt: open after assemble"
	cdev=$(dmdev "$CRYPT")
	fill --verify_only
	more --verify_only
	same "assembled again"
	cryptsetup close "$CRYPT" || lr_fail "crypt: close"
	"$LRAIDCTL" stop lraid0 || lr_fail "crypt: stop"
fi

# ---- LVM ----
modprobe -q dm-mod 2>/dev/null || true
if ! dmsetup targets 2>/dev/null | grep -q '^linear '; then
	lr_log "LVM: no device-mapper in this kernel: not run"
else
	ran+=(LVM)
	what="LVM on RAID5 x4, chunk 32K"
	lr_log "$what: pvcreate without devices/types"
	lr_members loop 4 64
	lr_create lraid0 --level 5 --chunk 32K "${LR_M[@]}"
	limits /dev/lraid0 32768 98304
	# as the admin guide says (the array is new: all zeroes)
	if pvcreate /dev/lraid0 >"$LR_TMP/out" 2>&1; then
		lr_fail "$what: pvcreate took lraid0 without devices/types (does lvm.conf name lraid?): update admin-guide.rst"
	fi
	grep -qF "Cannot use /dev/lraid0: device type is unknown" "$LR_TMP/out" ||
		lr_fail "$what: pvcreate failed otherwise than the admin guide says: $(cat "$LR_TMP/out")"
	lr_log "$what: pvcreate said: $(oneline "$LR_TMP/out")"
	head -c $((1 << 20)) /dev/zero >"$LR_TMP/zero"
	dsame "$LR_TMP/zero" /dev/lraid0 ||
		lr_fail "$what: the refused pvcreate wrote to lraid0"

	lr_log "$what: with devices/types: a VG with two LVs"
	lvmt pvcreate /dev/lraid0 >/dev/null || lr_fail "$what: pvcreate"
	lvmt vgcreate "$VG" /dev/lraid0 >/dev/null || lr_fail "$what: vgcreate"
	lvmt lvcreate -y -n lv1 -L 32M "$VG" >/dev/null || lr_fail "$what: lvcreate lv1"
	lvmt lvcreate -y -n lv2 -L 16M "$VG" >/dev/null || lr_fail "$what: lvcreate lv2"
	# which a system without the setting does not see
	if vgs "$VG" >"$LR_TMP/out" 2>&1; then
		lr_fail "$what: vgs without devices/types found $VG"
	fi
	grep -qF "Volume group \"$VG\" not found" "$LR_TMP/out" ||
		lr_fail "$what: vgs without devices/types: $(cat "$LR_TMP/out")"
	lr_log "$what: vgs without devices/types said: $(oneline "$LR_TMP/out")"
	# LVM aligns the PV's data to optimal_io_size
	pe=$(lvmt pvs --noheadings --nosuffix --units b -o pe_start /dev/lraid0 | tr -d ' ')
	if ! [[ "$pe" =~ ^[0-9]+$ ]] || [ $((pe % 98304)) != 0 ]; then
		lr_fail "$what: the PV's data starts at '$pe', not a multiple of the 96 KiB stripe"
	fi
	lr_log "$what: the PV's data starts at $pe bytes"
	lv1=$(dmdev "$VG-lv1")
	lv2=$(dmdev "$VG-lv2")
	read -r _ _ t _ off <<<"$(dmsetup table "$VG-lv1")"
	[[ "$t" = linear && "$off" = $((pe / 512)) ]] ||
		lr_fail "$what: lv1's table: $(dmsetup table "$VG-lv1")"
	limits "$lv1" 32768 98304
	limits "$lv2" 32768 98304

	lv1fio() {
		lr_fio "$lv1" lv1 --rw=randwrite --bsrange=4k-96k --size=8M \
			--iodepth=8 "$@"
	}
	lv1fio
	head -c $((8 << 20)) /dev/urandom >"$LR_TMP/lv2"
	dd if="$LR_TMP/lv2" of="$lv2" bs=1M oflag=direct status=none ||
		lr_fail "$what: write lv2"
	lv1fio --verify_only
	dsame "$LR_TMP/lv2" "$lv2" || lr_fail "$what: lv2 reads other bytes"

	lr_log "$what: deactivated, stop, assemble, activated again"
	lvmt vgchange -an "$VG" >/dev/null || lr_fail "$what: vgchange -an"
	for lv in lv1 lv2; do
		! dmsetup info "$VG-$lv" >/dev/null 2>&1 ||
			lr_fail "$what: $lv still mapped after vgchange -an"
	done
	"$LRAIDCTL" stop lraid0 || lr_fail "$what: stop"
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >/dev/null ||
		lr_fail "$what: assemble"
	lr_settle
	lvmt vgchange -ay "$VG" >/dev/null || lr_fail "$what: vgchange -ay"
	lv1=$(dmdev "$VG-lv1")
	lv2=$(dmdev "$VG-lv2")
	lv1fio --verify_only
	dsame "$LR_TMP/lv2" "$lv2" ||
		lr_fail "$what: lv2 reads other bytes after assemble"
	# (vgremove takes the active LVs down first)
	lvmt vgremove -y "$VG" >/dev/null || lr_fail "$what: vgremove"
	! dmsetup info "$VG-lv1" >/dev/null 2>&1 ||
		lr_fail "$what: lv1 still mapped after vgremove"
	lvmt pvremove -y /dev/lraid0 >/dev/null || lr_fail "$what: pvremove"
	"$LRAIDCTL" stop lraid0 || lr_fail "$what: stop"
fi

[ ${#ran[@]} -gt 0 ] || lr_skip "neither xfs nor device-mapper in this kernel"
echo "PASS: ${ran[*]} on lraid"
