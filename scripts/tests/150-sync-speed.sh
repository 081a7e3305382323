#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pacing of check, repair and resync passes, with md's files in
# /sys/block/lraid0/lraid/: sync_speed_min, sync_speed_max, sync_speed.
#   - formats as md's: sync_speed_min "1000 (system)" and sync_speed_max
#     "200000 (system)" (the module parameters speed_limit_min and
#     speed_limit_max, md's defaults), sync_speed "none" with no pass; a
#     number sets the array's own limit ("5000 (local)"), "system" takes
#     it back, 0, "-1" and "fast" are refused (EINVAL); the module
#     parameter changes what "system" reads.
#   - sync_speed_max caps a pass, as md's does. RAID5 x4 on 64 MiB
#     null_blk members with sync_speed_max 2000 (KiB/s per member): 2.5
#     seconds into a check, the pass still runs, sync_completed is at
#     most what the limit allows since its start (2000 KiB a second over
#     the seconds elapsed plus two, plus two chunks: the speed is
#     measured over whole seconds plus one, in windows of 3 to 6 s), and
#     sync_speed is between 1 and twice the limit plus two chunks (over
#     whole seconds, one chunk past the limit: 4064 after one second). idle ends the capped
#     pass; with "system" written back a check runs to its end.
#   - lraidctl set --speed-min/--speed-max writes the same files, says
#     what they read after, and names the rule for 0 (refused).
#   - speed_limit_max set to 2000 caps an array whose sync_speed_max is
#     "system" the same way.
# The yield to other I/O between the two limits is not timed here;
# kunit's lraid_stripe.sync_pace has the decision.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup

d=/sys/block/lraid0/lraid
p=/sys/module/lraid/parameters

# is FILE VALUE
is() {
	[ "$(cat "$d/$1")" = "$2" ] || lr_fail "$1 reads '$(cat "$d/$1")', not '$2'"
}

# refused FILE VALUE
refused() {
	local out
	if out=$({ echo "$2" >"$d/$1"; } 2>&1); then
		lr_fail "$1 took '$2'"
	fi
	grep -q "Invalid argument" <<<"$out" || lr_fail "$1 '$2': $out"
}

# capped ACTION: ACTION runs under the 2000 KiB/s limit in force
capped() {
	local t0 t1 pos total e bound speed
	t0=$EPOCHREALTIME
	echo "$1" >"$d/sync_action" || lr_fail "sync_action $1"
	sleep 2.5
	read -r pos _ total <"$d/sync_completed"
	read -r speed <"$d/sync_speed"
	t1=$EPOCHREALTIME
	[ "$pos" != none ] || lr_fail "the capped $1 ended within 2.5 s"
	# whole seconds elapsed, rounded up
	e=$(((${t1/./} - ${t0/./} + 999999) / 1000000))
	bound=$(((2000 * (e + 2) + 128) * 2))
	[ "$pos" -le "$bound" ] ||
		lr_fail "$1 capped at 2000 KiB/s: $pos sectors done after ${e} s, more than $bound"
	[ "$pos" -lt "$total" ] || lr_fail "$1 at the end: $pos / $total"
	if [ "$speed" -lt 1 ] || [ "$speed" -gt 4128 ]; then
		lr_fail "sync_speed $speed under a 2000 KiB/s limit"
	fi
	lr_log "$1 capped: $pos of $total sectors after ${e} s, sync_speed $speed"
}

lr_members nullb 4 64
lr_create lraid0 --assume-clean --level 5 --chunk 64K "${LR_M[@]}"

lr_log "formats"
is sync_speed_min "1000 (system)"
is sync_speed_max "200000 (system)"
is sync_speed none
echo 5000 >"$d/sync_speed_min" || lr_fail "sync_speed_min 5000"
is sync_speed_min "5000 (local)"
echo system >"$d/sync_speed_min" || lr_fail "sync_speed_min system"
is sync_speed_min "1000 (system)"
for v in 0 -1 fast; do
	refused sync_speed_min "$v"
	refused sync_speed_max "$v"
done
is sync_speed_min "1000 (system)"
is sync_speed_max "200000 (system)"
echo 300000 >"$p/speed_limit_max"
is sync_speed_max "300000 (system)"
echo 200000 >"$p/speed_limit_max"
# lraidctl set writes the same files and says what they read after
out=$("$LRAIDCTL" set lraid0 --speed-min 4000 --speed-max 90000) ||
	lr_fail "lraidctl set: $out"
[ "$out" = "lraid0: sync_speed_min 4000 (local), sync_speed_max 90000 (local) (KiB/s per member)" ] ||
	lr_fail "lraidctl set said: $out"
is sync_speed_min "4000 (local)"
is sync_speed_max "90000 (local)"
if out=$("$LRAIDCTL" set lraid0 --speed-max 0 2>&1); then
	lr_fail "lraidctl set --speed-max 0 accepted: $out"
fi
grep -q "set lraid0 --speed-max 0 failed: Invalid argument (KiB/s per member, 1 or more, or 'system')" <<<"$out" ||
	lr_fail "lraidctl set --speed-max 0: $out"
is sync_speed_max "90000 (local)"
"$LRAIDCTL" set lraid0 --speed-min system --speed-max system >/dev/null ||
	lr_fail "lraidctl set ... system"
is sync_speed_min "1000 (system)"
is sync_speed_max "200000 (system)"

lr_log "sync_speed_max caps a check"
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
is sync_speed_max "2000 (local)"
capped check
"$LRAIDCTL" action idle lraid0 || lr_fail "action idle"
is sync_action idle
is sync_speed none

lr_log "uncapped, the same check runs to its end"
echo system >"$d/sync_speed_max"
# (lraidctl check is action check)
"$LRAIDCTL" check --wait lraid0 >/dev/null || lr_fail "check"
is mismatch_cnt 0

lr_log "speed_limit_max caps an array left at system"
echo 2000 >"$p/speed_limit_max"
is sync_speed_max "2000 (system)"
capped repair
"$LRAIDCTL" action idle lraid0 || lr_fail "action idle"
echo 200000 >"$p/speed_limit_max"
echo "PASS: check and repair passes keep to sync_speed_max and speed_limit_max"
