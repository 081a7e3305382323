#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Member I/O errors: one member sits behind a device-mapper table whose
# middle is swapped for the "error" target after the data is written.
# Reads: every read that lands there must come back right, rebuilt from the
# other members: single-chunk reads (remapped in place) and multi-chunk
# reads (cloned per chunk) alike, on RAID5 and RAID6. The rebuilt blocks
# are written back (as md does); the error target fails that write too,
# so the member ends up failed, and RAID6 then loses one more and still
# reads right. With no redundancy left (RAID5 with another member failed
# first) the same read must fail instead of returning wrong data.
# (110-read-repair covers rewrites that succeed.)
# Writes: a write that fails on the member marks it failed (recorded in the
# survivors' superblocks) and stands on the others; new data reads back,
# and the array assembles again without the stale member.
# quick-kernels: stock-6.12 debug
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
# member sectors 4100..12283 (about 2 MiB..6 MiB, past the 1 MiB data
# offset); not 4 KiB aligned, so device-mapper splits the reads that cross
# either end (a split member bio comes back chained, which the in-place
# read's retry must cope with)
bad0=4100
badn=8184

dm_cleanup() {
	lr_cleanup
	dmsetup remove --noudevsync "$dm" 2>/dev/null || true
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

# write_errors [failed]: overwrite everything with new data; member 1
# must end up failed (with "failed", it already is: it gets no writes, and
# nothing new is asked of the log), the new data must read back, before
# and after stop + assemble
write_errors() {
	local newsha
	lr_log "RAID$level: writes over the bad range"
	fill --randseed=4242
	if [ "${1:-}" != failed ]; then
		"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
		grep -Eq "faulty *($(readlink -f "${LR_M[1]}")|${LR_M[1]})\$" "$LR_TMP/detail" ||
			{ cat "$LR_TMP/detail"; lr_fail "member 1 not faulty after write errors"; }
		lr_klog_has -E "(write error .*|max_read_errors [0-9]+: )member marked failed" ||
			lr_fail "no write error reported in the kernel log"
	fi
	fill --randseed=4242 --verify_only
	newsha=$(sha)
	[ "$(sha 4K)" = "$newsha" ] || lr_fail "4 KiB and 1 MiB reads differ"
	# member 1 failed (and on RAID6 member 3 before it)
	fm=$(lr_sb_num "${LR_M[0]}" failed_mask) || lr_fail "examine ${LR_M[0]}"
	[ "$fm" = $((level == 5 ? 2 : 10)) ] ||
		lr_fail "survivors' superblocks record failed roles $fm"
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	"$LRAIDCTL" assemble lraid0 "${LR_M[@]}" >"$LR_TMP/asm" 2>&1 ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble after a write error"; }
	lr_settle
	"$LRAIDCTL" detail lraid0 | grep -q "State : .*degraded" ||
		lr_fail "assembled array is not degraded"
	[ "$(sha)" = "$newsha" ] || lr_fail "data differs after assemble"
	fill --randseed=4242 --verify_only
}

# noredund_reads: RAID5 on $n members, member 3 failed (and noise over
# it) and member 1's range [bad0, bad0 + badn) failing reads. Every 4 KiB
# block of the stripes over that range is read on its own, around the page
# cache: blocks that need member 1 there (its own, and member 3's, rebuilt
# from it) cannot be read right, so some must fail with an I/O error, and
# every block that reads must be what was written ($LR_TMP/expect).
noredund_reads() {
	local cs=128 nd=$((n - 1)) off s0 s1 b0 b1 failed good counts at
	off=$(lr_sb_num "${LR_M[0]}" data_offset)
	[ -n "$off" ] || lr_fail "no data offset on ${LR_M[0]}"
	[ "$off" -lt "$bad0" ] || lr_fail "data offset $off past the bad range"
	# the first and last stripe (chunk row) with bad sectors, and the
	# 4 KiB blocks of array data they hold
	s0=$(((bad0 - off) / cs))
	s1=$(((bad0 + badn - 1 - off) / cs))
	b0=$((s0 * nd * cs / 8))
	b1=$(((s1 + 1) * nd * cs / 8))
	dd if="$LR_TMP/expect" of="$LR_TMP/want" bs=4k skip="$b0" \
		count=$((b1 - b0)) status=none
	[ "$(stat -c %s "$LR_TMP/want")" = $(((b1 - b0) * 4096)) ] ||
		lr_fail "the bad range maps past the data written"
	# each block read lands in its place in a copy of what was written:
	# those that fail leave it as it was, those that read must keep it
	cp "$LR_TMP/want" "$LR_TMP/got"
	# one process for all of them: a dd per block took over 15 minutes
	# on the debug kernel (process creation under KASAN and TCG)
	counts=$(python3 - /dev/lraid0 "$b0" "$b1" "$LR_TMP/got" <<'PY'
import errno, mmap, os, sys
dev, b0, b1, got = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
out = os.open(got, os.O_WRONLY)
buf = mmap.mmap(-1, 4096)      # page aligned, as O_DIRECT wants
failed = good = 0
for b in range(b0, b1):
    try:
        n = os.preadv(fd, [buf], b * 4096)
    except OSError as e:
        if e.errno != errno.EIO:
            sys.exit(f"block {b}: not an I/O error: {e}")
        failed += 1
        continue
    if n != 4096:
        sys.exit(f"block {b}: short read ({n} bytes)")
    os.pwrite(out, buf, (b - b0) * 4096)
    good += 1
print(failed, good)
PY
	) || lr_fail "reading the blocks one by one"
	read -r failed good <<<"$counts"
	lr_log "blocks $b0..$((b1 - 1)): $failed failed, $good read"
	if ! at=$(cmp "$LR_TMP/want" "$LR_TMP/got"); then
		at=${at##* byte }
		lr_fail "block $((b0 + (${at%%,*} - 1) / 4096)) read without error, but wrong"
	fi
	[ "$failed" -gt 0 ] || lr_fail "RAID5 with two bad members read without error"
	# (the other two members' blocks do not need member 1)
	[ "$good" -gt 0 ] || lr_fail "no block read, not even those on good members"
}

teardown() {
	"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail stop
	LR_ARRAYS=()
	dmsetup remove --noudevsync "$dm" || lr_fail "dmsetup remove"
}

for cfg in "5 4 read" "5 4 noredund" "5 4 write" "6 5 both"; do
	read -r level n what <<<"$cfg"
	lr_log "RAID$level on $n members, member 1 behind $dm ($what errors)"
	lr_members nullb "$n" "$mb"
	under=${LR_M[1]}
	# no udev synchronisation: guests may run without udevd
	dm_table "$under" | dmsetup create --noudevsync "$dm" ||
		lr_fail "dmsetup create"
	LR_M[1]=/dev/$(dmsetup info -c --noheadings -o blkdevname "$dm")
	[ -b "${LR_M[1]}" ] || lr_fail "no block device for $dm"
	lr_create lraid0 --level "$level" --chunk 64K "${LR_M[@]}"
	fill
	before=$(sha)
	if [ "$what" = noredund ]; then
		# what the reads below must return where they do not fail
		dd if=/dev/lraid0 of="$LR_TMP/expect" bs=1M count=24 iflag=direct \
			status=none || lr_fail "read before the errors"
		[ "$(sha256sum <"$LR_TMP/expect")" = "$before" ] ||
			lr_fail "reads differ before the errors"
		"$LRAIDCTL" fail lraid0 "${LR_M[3]}" >/dev/null || lr_fail "fail"
		# whatever still came from member 3 would read wrong
		lr_noise "${LR_M[3]}" 8
	fi

	lr_klog_mark
	if ! { dmsetup suspend --noudevsync "$dm" &&
		dm_table "$under" bad | dmsetup load "$dm" &&
		dmsetup resume --noudevsync "$dm"; }; then
		lr_fail "swapping in the error table"
	fi
	# the member really fails there (else this test proves nothing)
	if dd if="${LR_M[1]}" of=/dev/null bs=4k skip=$((bad0 / 8 + 16)) \
		count=1 iflag=direct status=none 2>/dev/null; then
		lr_fail "the error range of $dm reads fine"
	fi

	if [ "$what" = write ]; then
		write_errors
		teardown
		continue
	fi
	if [ "$what" = noredund ]; then
		lr_log "RAID5 with a member failed: a read error cannot be covered"
		noredund_reads
		teardown
		continue
	fi
	lr_log "4 KiB reads (remapped in place) over the bad range"
	[ "$(sha 4K)" = "$before" ] || lr_fail "4 KiB reads differ after read errors"
	lr_log "1 MiB reads (cloned per chunk)"
	[ "$(sha)" = "$before" ] || lr_fail "1 MiB reads differ after read errors"
	fill --verify_only
	lr_klog_has "read error .* reconstructing" ||
		lr_fail "no read error reported in the kernel log"
	# the rewrite of the rebuilt blocks failed too: member 1 is failed
	lr_klog_has "write error .* marked failed" ||
		lr_fail "no failed rewrite reported in the kernel log"
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	grep -Eq "faulty *($(readlink -f "${LR_M[1]}")|${LR_M[1]})\$" "$LR_TMP/detail" ||
		{ cat "$LR_TMP/detail"; lr_fail "member 1 not faulty after a failed rewrite"; }
	[ "$(sha)" = "$before" ] || lr_fail "reads differ with member 1 failed"

	if [ "$level" = 6 ]; then
		lr_log "RAID6 with a member failed: still covered"
		"$LRAIDCTL" fail lraid0 "${LR_M[3]}" >/dev/null || lr_fail "fail"
		[ "$(sha)" = "$before" ] ||
			lr_fail "RAID6: 1 MiB reads differ with a failed member and read errors"
		fill --verify_only
		# two failed (one marked, one by the failed rewrite above): still
		# covered
		write_errors failed
	fi
	teardown
done
echo "PASS: member errors"
