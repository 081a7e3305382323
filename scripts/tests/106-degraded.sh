#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Degraded mode: RAID5 on 4 and RAID6 on 5 null_blk members. Write with
# crc32c verify, fail members one at a time (RAID5 one, RAID6 two), read
# everything back by reconstruction, write and verify again while degraded,
# check detail/examine, and that one failure too many is refused. RAID5
# uses 256 KiB chunks (several parity windows per chunk), RAID6 16 KiB.
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

# fill ARGS...: sequential odd-sized writes over the first 12 MiB
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bs=3584 --size=12M --iodepth=4 "$@"
}

# sha of the first 12 MiB, read around the page cache
sha() {
	dd if=/dev/lraid0 bs=1M count=12 iflag=direct status=none | sha256sum
}

# fail MEMBER: mark it failed and overwrite its data area with noise; the
# array must read back what was written, rebuilt from the others
fail_one() {
	local before
	before=$(sha)
	"$LRAIDCTL" fail lraid0 "$1" || lr_fail "fail $1"
	"$LRAIDCTL" detail lraid0 | grep -q "State : .*degraded" ||
		lr_fail "detail does not show degraded"
	"$LRAIDCTL" detail lraid0 | grep -q "faulty *$1\$" ||
		lr_fail "detail does not show $1 faulty"
	lr_noise "$1"
	fill --verify_only
	[ "$(sha)" = "$before" ] ||
		lr_fail "reconstructed contents differ after failing $1"
}

for cfg in "5 4 256K" "6 5 16K"; do
	read -r level n chunk <<<"$cfg"
	lr_log "RAID$level on $n null_blk members, chunk $chunk"
	lr_members nullb "$n" 48
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	fill
	# read once now: the next examine must not see this copy (the page
	# cache of a member lraid holds open; superblocks go around it)
	"$LRAIDCTL" examine "${LR_M[0]}" | grep -q "Failed Mask : 0x0$" ||
		lr_fail "examine of a healthy array shows a failed member"
	fail_one "${LR_M[1]}"
	mask=0x2
	if [ "$level" = 6 ]; then
		fail_one "${LR_M[3]}"
		mask=0xa
	fi
	# survivors record the failed set; the failed member keeps its old one
	"$LRAIDCTL" examine "${LR_M[0]}" | grep -q "Failed Mask : $mask$" ||
		lr_fail "examine does not show failed mask $mask: $("$LRAIDCTL" examine "${LR_M[0]}" | grep Failed)"
	# several members at once, as mdadm --examine: each in the order
	# given, one that is not a member reported and the rest still shown
	rc=0
	"$LRAIDCTL" examine "${LR_M[@]}" /dev/null >"$LR_TMP/ex" \
		2>"$LR_TMP/err" || rc=$?
	[ "$rc" = 1 ] || lr_fail "examine of members and /dev/null: exit $rc"
	grep -q "/dev/null" "$LR_TMP/err" ||
		lr_fail "examine did not report /dev/null: $(cat "$LR_TMP/err")"
	[ "$(sed -n 's/^ *Device Role : //p' "$LR_TMP/ex" | tr '\n' ' ')" = \
		"$(seq -s ' ' 0 $((n - 1))) " ] ||
		lr_fail "examine of all members: roles $(grep Role "$LR_TMP/ex")"
	[ "$(grep -c '^$' "$LR_TMP/ex")" = $((n - 1)) ] ||
		lr_fail "examine of all members: not one blank line between"
	"$LRAIDCTL" examine --json "${LR_M[@]}" >"$LR_TMP/ex" ||
		lr_fail "examine --json of all members"
	python3 -c '
import json, sys
n, devs = int(sys.argv[2]), sys.argv[3:]
sbs = [json.loads(line) for line in open(sys.argv[1])]
assert [s["device"] for s in sbs] == devs, sbs
assert [s["role"] for s in sbs] == list(range(n)), sbs
assert len({s["uuid"] for s in sbs}) == 1, sbs
' "$LR_TMP/ex" "$n" "${LR_M[@]}" ||
		lr_fail "examine --json of all members: $(cat "$LR_TMP/ex")"
	# degraded writes keep the survivors' parity right
	lr_fio /dev/lraid0 degraded --rw=randwrite --bsrange=512-48k \
		--blockalign=512 --offset=13M --size=8M --iodepth=8
	fill --verify_only
	if "$LRAIDCTL" fail lraid0 "${LR_M[2]}" 2>"$LR_TMP/err"; then
		lr_fail "failing one member too many was accepted"
	fi
	grep -q "refused.*cannot lose another member" "$LR_TMP/err" || lr_fail "no clear refusal message"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
echo "PASS: degraded"
