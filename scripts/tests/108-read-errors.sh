#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Member read errors: one member sits behind a device-mapper table whose
# middle is swapped for the "error" target after the data is written. Every
# read that lands there must come back right, rebuilt from the other
# members: single-chunk reads (remapped in place) and multi-chunk reads
# (cloned per chunk) alike, on RAID5 and on RAID6 with another member
# already failed. With no redundancy left (RAID5 with a failed member) the
# same read must fail instead of returning wrong data.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio dmsetup
lr_setup
modprobe -q dm-mod 2>/dev/null || true
dmsetup targets 2>/dev/null | grep -q '^error' || lr_skip "no device-mapper error target"

dm=lrflaky
mb=64
sectors=$((mb * 2048))
# member sectors 4096..12287 (2 MiB..6 MiB, past the 1 MiB data offset)
bad0=4096
badn=8192

dm_cleanup() {
	lr_cleanup
	dmsetup remove "$dm" 2>/dev/null || true
}
trap dm_cleanup EXIT

# dm_table DEV [bad]: linear over DEV, or with the bad range erroring
dm_table() {
	if [ "${2:-}" = bad ]; then
		printf '0 %d linear %s 0\n%d %d error\n%d %d linear %s %d\n' \
			"$bad0" "$1" "$bad0" "$badn" "$((bad0 + badn))" \
			"$((sectors - bad0 - badn))" "$1" "$((bad0 + badn))"
	else
		echo "0 $sectors linear $1 0"
	fi
}

fill() {
	lr_fio /dev/lraid0 fill --rw=write --bsrange=4k-192k --size=24M \
		--iodepth=8 "$@"
}

# sha [BS]: of the first 24 MiB, read around the page cache in BS reads
sha() {
	local bs=${1:-1M}
	dd if=/dev/lraid0 bs="$bs" count=$((24 * 1048576 / $(numfmt --from=iec "$bs"))) \
		iflag=direct status=none | sha256sum
}

for cfg in "5 4" "6 5"; do
	read -r level n <<<"$cfg"
	lr_log "RAID$level on $n members, member 1 behind $dm"
	lr_members nullb "$n" "$mb"
	under=${LR_M[1]}
	dm_table "$under" | dmsetup create "$dm" || lr_fail "dmsetup create"
	LR_M[1]=/dev/mapper/$dm
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	fill
	before=$(sha)

	dmesg -C
	if ! { dmsetup suspend "$dm" && dm_table "$under" bad | dmsetup load "$dm" &&
		dmsetup resume "$dm"; }; then
		lr_fail "swapping in the error table"
	fi
	# the member really fails there (else this test proves nothing)
	if dd if="/dev/mapper/$dm" of=/dev/null bs=4k skip=$((bad0 / 8 + 16)) \
		count=1 iflag=direct status=none 2>/dev/null; then
		lr_fail "the error range of $dm reads fine"
	fi

	lr_log "4 KiB reads (remapped in place) over the bad range"
	[ "$(sha 4K)" = "$before" ] || lr_fail "4 KiB reads differ after read errors"
	lr_log "1 MiB reads (cloned per chunk)"
	[ "$(sha)" = "$before" ] || lr_fail "1 MiB reads differ after read errors"
	fill --verify_only
	dmesg | grep -q "read error .* reconstructing" ||
		lr_fail "no read error reported in the kernel log"

	if [ "$level" = 5 ]; then
		lr_log "RAID5 with a member failed: a read error cannot be covered"
		"$LRAIDCTL" fail lraid0 "${LR_M[3]}" >/dev/null || lr_fail "fail"
		# logical data on member 1's bad rows: some must error, none may
		# return wrong bytes
		if dd if=/dev/lraid0 of=/dev/null bs=1M count=24 iflag=direct \
			status=none 2>/dev/null; then
			lr_fail "RAID5 with two bad members read without error"
		fi
	else
		lr_log "RAID6 with a member failed: still covered"
		"$LRAIDCTL" fail lraid0 "${LR_M[3]}" >/dev/null || lr_fail "fail"
		[ "$(sha)" = "$before" ] ||
			lr_fail "RAID6: 1 MiB reads differ with a failed member and read errors"
		fill --verify_only
	fi
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	dmsetup remove "$dm" || lr_fail "dmsetup remove"
done
echo "PASS: read errors"
