#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Degraded assembly, as mdadm --assemble does it: RAID5 on 4 and RAID6 on 5
# null_blk members. Write with crc32c verify, stop; assembling without a
# member last recorded working is refused and changes nothing, --run starts
# it without one member (RAID6: then without two); read everything back,
# write more while degraded, stop and assemble degraded again, now without
# --run (the roles are recorded failed) and with --no-degraded. A member offered back after it
# was left out, `fail`ed, or whose superblock is behind (it missed writes)
# is reported stale and not used: its data area is overwritten with noise
# first, so reading from it would fail the verify. Too many missing members
# and --no-degraded are refused and leave every superblock as it was. A
# member only one event behind (a superblock pass cut short) is used.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need fio
lr_setup

# fill ARGS...: sequential odd-sized writes over the first 12 MiB
fill() {
	lr_fio /dev/lraid0 fill --rw=write --bs=3584 --size=12M --iodepth=4 "$@"
}

# more ARGS...: random writes of 512 B..48 KiB at 13..19 MiB
more() {
	lr_fio /dev/lraid0 more --rw=randwrite --bsrange=512-48k \
		--blockalign=512 --offset=13M --size=6M --iodepth=8 "$@"
}

# sha of the first 20 MiB, read around the page cache
sha() {
	dd if=/dev/lraid0 bs=1M count=20 iflag=direct status=none | sha256sum
}

# noise DEV: overwrite the data area a stale member must not be read from
noise() {
	dd if=/dev/urandom of="$1" bs=1M seek=1 count=12 oflag=direct \
		conv=fsync status=none || lr_fail "noise on $1"
}

stop() {
	"$LRAIDCTL" stop lraid0 || lr_fail "stop"
}

# assemble [OPTION...] MEMBER...: must start; its messages are left in
# $LR_TMP/asm
assemble() {
	"$LRAIDCTL" assemble lraid0 "$@" >/dev/null 2>"$LR_TMP/asm" ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble $*"; }
	lr_settle
	[ -b /dev/lraid0 ] || lr_fail "/dev/lraid0 missing after assemble"
	lr_check_roles lraid0
	sed 's/^/    /' "$LR_TMP/asm"
}

# said TEXT: the last assemble printed TEXT
said() {
	grep -q -- "$1" "$LR_TMP/asm" ||
		{ cat "$LR_TMP/asm"; lr_fail "assemble did not say '$1'"; }
}

# degraded ROLE...: detail shows the array degraded without exactly ROLEs
degraded() {
	local r got
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	grep -q "State : active, degraded" "$LR_TMP/detail" ||
		{ cat "$LR_TMP/detail"; lr_fail "detail does not show degraded"; }
	got=$(awk '$5 == "missing" { print $4 }' "$LR_TMP/detail" | xargs)
	[ "$got" = "$*" ] ||
		{ cat "$LR_TMP/detail"; lr_fail "missing roles '$got', wanted '$*'"; }
	for r in "$@"; do
		"$LRAIDCTL" detail --json lraid0 |
			grep -q "\"role\": $r, \"device\": \"-\", \"major\": 0, \"minor\": 0, \"state\": \"missing\"" ||
			lr_fail "detail --json does not show role $r missing"
	done
}

# refused WHAT TEXT ARGS...: lraidctl ARGS fails saying TEXT, no superblock
# of the members given (or of any member in $all) changes
refused() {
	local what=$1 text=$2 before after
	shift 2
	before=$(lr_sbsum "${all[@]}")
	if "$LRAIDCTL" "$@" >/dev/null 2>"$LR_TMP/err"; then
		lr_fail "$what: accepted: lraidctl $*"
	fi
	grep -q -- "$text" "$LR_TMP/err" ||
		{ cat "$LR_TMP/err"; lr_fail "$what: no '$text' in the error"; }
	sed "s/^/    $what: /" "$LR_TMP/err"
	[ ! -e /dev/lraid0 ] || lr_fail "$what: /dev/lraid0 exists"
	after=$(lr_sbsum "${all[@]}")
	[ "$before" = "$after" ] || lr_fail "$what: superblocks changed"
}

# stale [--run] DEV ROLE TEXT MISSING...: offered back after the array
# moved on, DEV is reported stale with TEXT and never read (noise in its
# data area) nor written; the array runs without MISSING roles and holds
# $want. --run: DEV is not recorded failed, so leaving it out takes --run
# (and without it the assemble is refused).
stale() {
	local opt=() dev role text old
	if [ "$1" = --run ]; then
		opt=(--run)
		shift
	fi
	dev=$1 role=$2 text=$3
	shift 3
	old=$(lr_sbsum "$dev")
	noise "$dev"
	if [ ${#opt[@]} -gt 0 ]; then
		refused "stale role $role, no --run" "with --run" \
			assemble lraid0 "${all[@]}"
		grep -q -- "$dev (role $role) is stale$text" "$LR_TMP/err" ||
			{ cat "$LR_TMP/err"; lr_fail "the refusal does not name stale $dev"; }
	fi
	assemble "${opt[@]}" "${all[@]}"
	said "$dev (role $role) is stale$text"
	said "not used"
	degraded "$@"
	fill --verify_only
	[ "$wrote_more" = 0 ] || more --verify_only
	[ "$(sha)" = "$want" ] || lr_fail "stale $dev was read"
	stop
	[ "$(lr_sbsum "$dev")" = "$old" ] ||
		lr_fail "the superblock of stale $dev was written"
}

# failed_mask DEV: the failed set DEV's superblock records
failed_mask() {
	lr_sb_num "$1" failed_mask
}

# events DEV: the event count DEV's superblock records
events() {
	lr_sb_num "$1" events
}

for cfg in "5 4 64K" "6 5 16K"; do
	read -r level n chunk <<<"$cfg"
	tol=$((level - 4))
	lr_log "RAID$level on $n null_blk members, chunk $chunk"
	lr_members nullb "$n" 48
	all=("${LR_M[@]}")
	lr_create lraid0 --level "$level" --chunk "$chunk" "${all[@]}"
	fill
	want=$(sha)
	wrote_more=0
	stop

	lr_log "RAID$level: role 1 missing"
	set1=("${all[0]}" "${all[@]:2}")
	refused "role 1 missing, no --run" "role 1, last recorded working" \
		assemble lraid0 "${set1[@]}"
	grep -q -- "with --run" "$LR_TMP/err" || lr_fail "the refusal does not name --run"
	assemble --run "${set1[@]}"
	said "started degraded"
	degraded 1
	fill --verify_only
	[ "$(sha)" = "$want" ] || lr_fail "degraded contents differ"
	gone="1"
	set2=("${set1[@]}")
	if [ "$level" = 6 ]; then
		stop
		lr_log "RAID6: roles 1 and 3 missing"
		set2=("${all[0]}" "${all[2]}" "${all[4]}")
		refused "role 3 missing, no --run" "role 3, last recorded working" \
			assemble lraid0 "${set2[@]}"
		assemble "${set2[@]}" --run
		degraded 1 3
		fill --verify_only
		[ "$(sha)" = "$want" ] || lr_fail "doubly degraded contents differ"
		gone="1 3"
	fi
	lr_log "RAID$level: write while degraded"
	more
	want=$(sha)
	wrote_more=1
	stop
	mask=0
	for r in $gone; do
		mask=$((mask | 1 << r))
	done
	for d in "${set2[@]}"; do
		[ "$(failed_mask "$d")" = "$mask" ] ||
			lr_fail "$d does not record failed roles $gone"
	done
	[ "$(failed_mask "${all[1]}")" = 0 ] ||
		lr_fail "the missing member's superblock was written"

	lr_log "RAID$level: assemble degraded again (no --run needed; --no-degraded passes)"
	assemble --no-degraded "${set2[@]}"
	# shellcheck disable=SC2086
	degraded $gone
	fill --verify_only
	more --verify_only
	[ "$(sha)" = "$want" ] || lr_fail "contents differ after reassembly"
	stop

	lr_log "RAID$level: the missing member offered back is stale, not used"
	# shellcheck disable=SC2086
	stale "${all[1]}" 1 ": the array recorded it failed" $gone

	lr_log "RAID$level: refusals"
	refused "too many missing" "survives at most $tol" \
		assemble lraid0 "${all[0]}" "${all[2]}"
	refused "one member only" "survives at most $tol" \
		assemble lraid0 "${all[0]}"
	refused "--no-degraded" "refused (--no-degraded)" \
		assemble --no-degraded --force lraid0 "${set2[@]:1}"

	if [ "$level" = 5 ]; then
		lr_log "RAID5: a failed member given back is stale, not used"
		lr_create lraid0 --level 5 --chunk "$chunk" "${all[@]}"
		fill
		"$LRAIDCTL" fail lraid0 "${all[2]}" || lr_fail "fail"
		more
		want=$(sha)
		stop
		stale "${all[2]}" 2 ": the array recorded it failed" 2
	else
		lr_log "RAID6: a member whose superblock is behind is stale, not used"
		lr_create lraid0 --level 6 --chunk "$chunk" "${all[@]}"
		fill
		want=$(sha)
		wrote_more=0
		stop
		dd if="${all[2]}" of="$LR_TMP/sb" bs=4096 count=1 iflag=direct \
			status=none
		assemble "${all[@]}"
		stop
		dd if="$LR_TMP/sb" of="${all[2]}" bs=4096 count=1 oflag=direct \
			conv=fsync status=none
		stale --run "${all[2]}" 2 ": events" 2
	fi

	# A crash in a superblock pass (stop, fail, assemble) leaves the
	# members it had not reached one event behind; they missed nothing
	# and must serve, as md and mdadm allow. Role 2's superblock from the
	# running array is put back after the stop wrote the next event.
	lr_log "RAID$level: a superblock pass cut short: one event behind is fresh"
	lr_create lraid0 --level "$level" --chunk "$chunk" "${all[@]}"
	fill
	want=$(sha)
	dd if="${all[2]}" of="$LR_TMP/sb" bs=4096 count=1 iflag=direct \
		status=none
	stop
	dd if="$LR_TMP/sb" of="${all[2]}" bs=4096 count=1 oflag=direct \
		conv=fsync status=none
	[ $(($(events "${all[2]}") + 1)) = "$(events "${all[0]}")" ] ||
		lr_fail "role 2 is not one event behind: $(events "${all[2]}") $(events "${all[0]}")"
	assemble "${all[@]}"
	grep -q "stale" "$LR_TMP/asm" && lr_fail "a member one event behind called stale"
	"$LRAIDCTL" detail lraid0 >"$LR_TMP/detail"
	grep -q "degraded" "$LR_TMP/detail" &&
		{ cat "$LR_TMP/detail"; lr_fail "one event behind: started degraded"; }
	fill --verify_only
	[ "$(sha)" = "$want" ] || lr_fail "contents differ after a pass cut short"
	stop
	for d in "${all[@]}"; do
		[ "$(events "$d")" = "$(events "${all[0]}")" ] ||
			lr_fail "$d not brought to the array's event count"
	done
done
echo "PASS: degraded assembly"
