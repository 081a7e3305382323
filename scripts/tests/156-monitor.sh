#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lraidctl monitor, as mdadm --monitor: the events, their order, and the
# ways they are sent. RAID5 x4 with a spare on 32 MiB null_blk members,
# 64 KiB chunks, rebuilds held to 2000 KiB/s so that a pass lasts about
# 16 s; the first monitor looks every second (--delay 1) and reports progress
# in 25 % steps.
#   - --oneshot --test: one TestMessage per array and nothing else; an
#     array named that is not running gives nothing.
#   - Two monitors (--program; standard output with --delay 3600, so it
#     looks only when a uevent or sync_action wakes it): role 1 failed,
#     the spare takes it: Fail (the failed device), RebuildStarted,
#     Rebuild25, Rebuild50, Rebuild75, RebuildFinished, SpareActive (the
#     spare), in that order, and standard output has the same events
#     but the steps. A check started by check --scan (which says
#     nothing) and stopped (idle) brings RebuildStarted and
#     RebuildFinished to the second monitor at once; check --scan
#     beside it passes over the array ("a check pass is running").
#   - A spare added, role 2 failed, the spare failed by hand while it is
#     rebuilt: FailSpare (the spare); then a device added by hand is
#     rebuilt: SpareActive (that device).
#   - Stopped: DeviceDisappeared; assembled with 3 of 4 members (--run):
#     NewArray and DegradedArray; check --scan passes over it
#     ("degraded") and starts nothing.
#   - --oneshot on the degraded array: DegradedArray; --mail through a
#     sendmail found in PATH: mails for TestMessage and DegradedArray,
#     with the array's state; --syslog: the events at /dev/log with
#     facility daemon, critical for DegradedArray, info for TestMessage.
#   - The missing role added back (SpareActive), a spare added, the
#     array stopped and assembled without role 1, with the spare
#     (--run): NewArray, DegradedArray, RebuildStarted, RebuildFinished,
#     SpareActive (the spare), in that order; the data reads back.
#   - --daemonise --pid-file: the pid printed is the one in the file and
#     it runs; SIGTERM ends it and removes the file.
#   - No monitor holds /dev/lraid-control between looks (the module
#     could not be unloaded).
#   - Usage errors exit 2 with the reason (a --program that cannot run,
#     an option without its value, a spare group of one array, an array
#     in two groups among them).
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_setup
lr_need python3

MB=32
TIMEOUT=${LRAID_REBUILD_TIMEOUT:-240}
d=/sys/block/lraid0/lraid

# wait_count FILE TEXT N: N lines of FILE end in TEXT within 20 s
wait_count() {
	local end=$((SECONDS + 20))
	until [ "$(grep -c -- "$2\$" "$1")" -ge "$3" ]; do
		[ $SECONDS -lt $end ] ||
			lr_fail "not $3 times '$2' in $1 after 20 s: $(cat "$1")"
		sleep 0.2
	done
}

# in_order FILE LINE...: FILE has the LINEs in that order (others may
# come between)
in_order() {
	local f=$1 l n=0
	shift
	for l in "$@"; do
		n=$(awk -v from="$n" -v want="$l" \
			'NR > from && $0 == want { print NR; exit }' "$f")
		[ -n "$n" ] || lr_fail "$f: '$l' missing or out of order: $(cat "$f")"
	done
}

# only FILE LINE...: FILE is exactly the LINEs
only() {
	local f=$1
	shift
	[ "$(cat "$f")" = "$(printf '%s\n' "$@")" ] ||
		lr_fail "$f: '$(cat "$f")', expected '$*'"
}

# bad REASON ARG...: monitor ARG... exits 2 saying REASON
bad() {
	local why=$1 rc=0
	shift
	"$LRAIDCTL" monitor "$@" >"$LR_TMP/out" 2>&1 || rc=$?
	[ "$rc" = 2 ] || lr_fail "monitor $*: exit $rc, expected 2: $(cat "$LR_TMP/out")"
	grep -qF -- "$why" "$LR_TMP/out" ||
		lr_fail "monitor $*: '$(cat "$LR_TMP/out")', expected '$why'"
}

# no_control PID: PID holds no open /dev/lraid-control
no_control() {
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f")" != /dev/lraid-control ] ||
			lr_fail "monitor $1 holds /dev/lraid-control open"
	done
}

# ---------------------------------------------------------------------
lr_log "usage errors"
bad "name the arrays to watch, or give --scan"
bad "--delay 0: seconds, 1 to 86400" --scan --delay 0
bad "--increment 100: percent, 1 to 99" --scan --increment 100
bad "--daemonise needs --program, --syslog or --mail" --scan --daemonise
bad "is not an array name" md0
bad "unknown option" --scan --bogus
bad "--delay needs a value" --scan --delay
bad "--spare-group lraid0: name two arrays or more" --spare-group lraid0
bad "--spare-group: lraid1 is in another group already" \
	--spare-group lraid0,lraid1 --spare-group lraid1,lraid2
bad "--program $LR_TMP/prog: not found or not executable" --scan --program "$LR_TMP/prog"

# ---------------------------------------------------------------------
lr_log "RAID5 x4 with a spare; --oneshot --test"
lr_members nullb 5 "$MB"
m=("${LR_M[@]:0:4}")
s1=${LR_M[4]}
lr_create lraid0 --level 5 --chunk 64K --spare-devices 1 "${LR_M[@]}"
lr_fio /dev/lraid0 fill --rw=write --bs=256k --iodepth=4 --do_verify=0
lr_snap data
cat >"$LR_TMP/prog" <<EOF
#!/bin/sh
echo "\$*" >>"$LR_TMP/events"
EOF
chmod +x "$LR_TMP/prog"
"$LRAIDCTL" monitor --scan --oneshot --test --program "$LR_TMP/prog" ||
	lr_fail "monitor --oneshot --test"
only "$LR_TMP/events" "TestMessage /dev/lraid0"
rm -f "$LR_TMP/events"
"$LRAIDCTL" monitor lraid0 --oneshot --program "$LR_TMP/prog" ||
	lr_fail "monitor --oneshot"
"$LRAIDCTL" monitor lraid7 --oneshot --test --program "$LR_TMP/prog" ||
	lr_fail "monitor --oneshot of an array not running"
[ ! -e "$LR_TMP/events" ] || lr_fail "events with nothing to say: $(cat "$LR_TMP/events")"

# ---------------------------------------------------------------------
lr_log "role 1 failed, the spare takes it: the events in order"
"$LRAIDCTL" monitor --scan --test --delay 1 --increment 25 \
	--program "$LR_TMP/prog" &
LR_PIDS+=($!)
mon=$!
"$LRAIDCTL" monitor --scan --test --delay 3600 >"$LR_TMP/stdout" 2>&1 &
LR_PIDS+=($!)
lr_wait_line "$LR_TMP/events" "TestMessage /dev/lraid0"
end=$((SECONDS + 20))
until grep -q "TestMessage on /dev/lraid0\$" "$LR_TMP/stdout"; do
	[ $SECONDS -lt $end ] || lr_fail "stdout monitor: $(cat "$LR_TMP/stdout")"
	sleep 0.2
done
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
"$LRAIDCTL" fail lraid0 "${m[1]}" || lr_fail "fail ${m[1]}"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $s1"
lr_wait_idle "rebuild onto $s1" "$TIMEOUT"
in_order "$LR_TMP/events" "TestMessage /dev/lraid0" \
	"Fail /dev/lraid0 ${m[1]}" "RebuildStarted /dev/lraid0" \
	"Rebuild25 /dev/lraid0" "Rebuild50 /dev/lraid0" "Rebuild75 /dev/lraid0" \
	"RebuildFinished /dev/lraid0" "SpareActive /dev/lraid0 $s1"
[ "$(grep -c . "$LR_TMP/events")" = 8 ] ||
	lr_fail "more events than the rebuild's: $(cat "$LR_TMP/events")"
# the same, read from standard output ("MON DD HH:MM:SS: EVENT on ARRAY [DEV]")
sed -E 's/^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8}: //' "$LR_TMP/stdout" >"$LR_TMP/plain"
in_order "$LR_TMP/plain" "TestMessage on /dev/lraid0" \
	"Fail on /dev/lraid0 ${m[1]}" "RebuildStarted on /dev/lraid0" \
	"RebuildFinished on /dev/lraid0" "SpareActive on /dev/lraid0 $s1"
m[1]=$s1
no_control "$mon"
lr_snap_cmp data "rebuilt onto the spare"
# a check, seen by the monitor that looks only when woken: sync_action
# is notified as the pass starts and ends (no uevent for a check)
"$LRAIDCTL" check --scan >"$LR_TMP/out" 2>&1 ||
	lr_fail "check --scan: $(cat "$LR_TMP/out")"
[ ! -s "$LR_TMP/out" ] || lr_fail "check --scan said '$(cat "$LR_TMP/out")'"
wait_count "$LR_TMP/stdout" "RebuildStarted on /dev/lraid0" 2
# check --scan passes over an array that runs a pass
"$LRAIDCTL" check --scan >"$LR_TMP/out" 2>&1 ||
	lr_fail "check --scan beside a check: $(cat "$LR_TMP/out")"
only "$LR_TMP/out" "lraid0: a check pass is running: passed over" \
	"no array to check"
"$LRAIDCTL" action idle lraid0 >/dev/null || lr_fail "action idle"
wait_count "$LR_TMP/stdout" "RebuildFinished on /dev/lraid0" 2
echo system >"$d/sync_speed_max"
while read -r l; do lr_log "standard output: $l"; done <"$LR_TMP/stdout"

# ---------------------------------------------------------------------
lr_log "a spare fails while it is rebuilt: FailSpare; an add: SpareActive"
echo 2000 >"$d/sync_speed_max" || lr_fail "sync_speed_max 2000"
lr_nullb nullb5 "$MB"
s2=$LR_DEV
"$LRAIDCTL" add lraid0 "$s2" >/dev/null || lr_fail "add $s2"
: >"$LR_TMP/events"
lr_klog_mark
"$LRAIDCTL" fail lraid0 "${m[2]}" || lr_fail "fail ${m[2]}"
lr_klog_wait "lraid0: spare $(lr_name "$s2") takes role 2, rebuilding it" 100
lr_wait_line "$LR_TMP/events" "RebuildStarted /dev/lraid0"
"$LRAIDCTL" fail lraid0 "$s2" || lr_fail "fail the rebuilding $s2"
lr_wait_line "$LR_TMP/events" "FailSpare /dev/lraid0 $s2"
lr_wait_idle "the stopped rebuild" "$TIMEOUT"
lr_wait_line "$LR_TMP/events" "RebuildFinished /dev/lraid0"
in_order "$LR_TMP/events" "Fail /dev/lraid0 ${m[2]}" \
	"RebuildStarted /dev/lraid0" "FailSpare /dev/lraid0 $s2" \
	"RebuildFinished /dev/lraid0"
grep -q "^SpareActive" "$LR_TMP/events" &&
	lr_fail "SpareActive for a failed rebuild: $(cat "$LR_TMP/events")"
"$LRAIDCTL" remove lraid0 "$s2" >/dev/null 2>&1 || lr_fail "remove $s2"
lr_nullb nullb6 "$MB"
s3=$LR_DEV
echo system >"$d/sync_speed_max"
"$LRAIDCTL" add lraid0 "$s3" >/dev/null || lr_fail "add $s3"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $s3"
lr_wait_idle "rebuild onto $s3" "$TIMEOUT"
m[2]=$s3
lr_snap_cmp data "rebuilt onto an added device"

# ---------------------------------------------------------------------
lr_log "stop: DeviceDisappeared; a degraded assembly: NewArray, DegradedArray"
: >"$LR_TMP/events"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
lr_wait_line "$LR_TMP/events" "DeviceDisappeared /dev/lraid0"
"$LRAIDCTL" assemble --run lraid0 "${m[0]}" "${m[1]}" "${m[2]}" \
	>"$LR_TMP/out" 2>&1 || lr_fail "assemble degraded: $(cat "$LR_TMP/out")"
lr_wait_line "$LR_TMP/events" "DegradedArray /dev/lraid0"
only "$LR_TMP/events" "DeviceDisappeared /dev/lraid0" "NewArray /dev/lraid0" \
	"DegradedArray /dev/lraid0"
"$LRAIDCTL" check --scan >"$LR_TMP/out" 2>&1 ||
	lr_fail "check --scan of a degraded array: $(cat "$LR_TMP/out")"
only "$LR_TMP/out" "lraid0: degraded: passed over (a pass needs every member)" \
	"no array to check"
[ "$(cat "$d/sync_action")" = idle ] || lr_fail "check --scan started a pass on a degraded array"
no_control "$mon"
lr_snap_cmp data "assembled degraded"

# ---------------------------------------------------------------------
lr_log "--oneshot on a degraded array; --mail; --syslog"
"$LRAIDCTL" monitor lraid0 --oneshot >"$LR_TMP/out" 2>&1 ||
	lr_fail "monitor --oneshot: $(cat "$LR_TMP/out")"
if ! grep -Eq "^[A-Z][a-z]{2} +[0-9]+ [0-9:]{8}: DegradedArray on /dev/lraid0\$" \
	"$LR_TMP/out" || [ "$(grep -c . "$LR_TMP/out")" != 1 ]; then
	lr_fail "monitor --oneshot said '$(cat "$LR_TMP/out")'"
fi
mkdir "$LR_TMP/bin"
cat >"$LR_TMP/bin/sendmail" <<EOF
#!/bin/sh
[ "\$1" = -t ] || exit 1
cat >>"$LR_TMP/mail"
echo "--end--" >>"$LR_TMP/mail"
EOF
chmod +x "$LR_TMP/bin/sendmail"
PATH="$LR_TMP/bin:$PATH" "$LRAIDCTL" monitor --scan --oneshot --test \
	--mail ops@example.org || lr_fail "monitor --mail"
[ "$(grep -c '^--end--$' "$LR_TMP/mail")" = 2 ] || lr_fail "not two mails: $(cat "$LR_TMP/mail")"
for e in TestMessage DegradedArray; do
	grep -q "^Subject: $e event on /dev/lraid0:" "$LR_TMP/mail" ||
		lr_fail "no $e mail: $(cat "$LR_TMP/mail")"
done
grep -q "^To: ops@example.org\$" "$LR_TMP/mail" || lr_fail "mail To: $(cat "$LR_TMP/mail")"
grep -Eq "\\[4/3\\] \\[UU_U\\]|\\[4/3\\] \\[UUU_\\]" "$LR_TMP/mail" ||
	lr_fail "the mail lacks the array's state: $(cat "$LR_TMP/mail")"
if [ -e /dev/log ]; then
	lr_log "/dev/log exists (a syslog daemon runs): --syslog not checked"
else
	python3 - "$LR_TMP/syslog" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
s.settimeout(30)
with open(sys.argv[1], "w") as f:
    for _ in range(2):
        f.write(s.recv(4096).decode() + "\n")
        f.flush()
s.close()
EOF
	py=$!
	for _ in $(seq 50); do [ -S /dev/log ] && break; sleep 0.1; done
	"$LRAIDCTL" monitor lraid0 --oneshot --test --syslog ||
		lr_fail "monitor --syslog"
	wait "$py" || lr_fail "no two syslog messages: $(cat "$LR_TMP/syslog" 2>/dev/null)"
	rm -f /dev/log
	# facility daemon (3): info 30, critical 26
	grep -Eq "^<30>.*lraidctl\\[[0-9]+\\]: TestMessage event on /dev/lraid0\$" \
		"$LR_TMP/syslog" || lr_fail "syslog: $(cat "$LR_TMP/syslog")"
	grep -Eq "^<26>.*lraidctl\\[[0-9]+\\]: DegradedArray event on /dev/lraid0\$" \
		"$LR_TMP/syslog" || lr_fail "syslog: $(cat "$LR_TMP/syslog")"
fi

# ---------------------------------------------------------------------
lr_log "a degraded assembly with a spare: the spare takes the missing role"
lr_nullb nullb7 "$MB"
s4=$LR_DEV
"$LRAIDCTL" add lraid0 "$s4" >"$LR_TMP/out" 2>&1 || lr_fail "add $s4: $(cat "$LR_TMP/out")"
grep -q "rebuilding role 3\|role 3" "$LR_TMP/out" ||
	lr_fail "add $s4 to the degraded array: $(cat "$LR_TMP/out")"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $s4"
lr_wait_idle "rebuild onto $s4" "$TIMEOUT"
m[3]=$s4
lr_nullb nullb8 "$MB"
s5=$LR_DEV
"$LRAIDCTL" add lraid0 "$s5" >"$LR_TMP/out" 2>&1 || lr_fail "add $s5: $(cat "$LR_TMP/out")"
grep -q "as a spare" "$LR_TMP/out" || lr_fail "add $s5: $(cat "$LR_TMP/out")"
"$LRAIDCTL" stop lraid0 >/dev/null || lr_fail "stop lraid0"
wait_count "$LR_TMP/events" "DeviceDisappeared /dev/lraid0" 2
: >"$LR_TMP/events"
# slow enough to be seen running (a pass that starts and ends between two
# looks is not reported): the module's limit, as the array is new
echo 2000 >/sys/module/lraid/parameters/speed_limit_max
"$LRAIDCTL" assemble --run lraid0 "${m[0]}" "${m[2]}" "${m[3]}" "$s5" \
	>"$LR_TMP/out" 2>&1 || lr_fail "assemble degraded: $(cat "$LR_TMP/out")"
lr_wait_line "$LR_TMP/events" "SpareActive /dev/lraid0 $s5"
lr_wait_idle "rebuild onto $s5" "$TIMEOUT"
echo 200000 >/sys/module/lraid/parameters/speed_limit_max
in_order "$LR_TMP/events" "NewArray /dev/lraid0" "DegradedArray /dev/lraid0" \
	"RebuildStarted /dev/lraid0" "RebuildFinished /dev/lraid0" \
	"SpareActive /dev/lraid0 $s5"
m[1]=$s5
lr_snap_cmp data "rebuilt onto a spare after a degraded assembly"

# ---------------------------------------------------------------------
lr_log "--daemonise --pid-file; SIGTERM"
pid=$("$LRAIDCTL" monitor --scan --daemonise --pid-file "$LR_TMP/pid" \
	--program "$LR_TMP/prog" --delay 1) || lr_fail "monitor --daemonise"
for _ in $(seq 50); do [ -s "$LR_TMP/pid" ] && break; sleep 0.1; done
[ "$(cat "$LR_TMP/pid" 2>/dev/null)" = "$pid" ] ||
	lr_fail "printed pid $pid, pid file '$(cat "$LR_TMP/pid" 2>/dev/null)'"
kill -0 "$pid" || lr_fail "the daemon $pid is not running"
[ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] ||
	lr_fail "the daemon $pid does not lead its own session"
kill -TERM "$pid"
# ended: gone, or a zombie (its parent, init, may not reap it at once)
running() {
	local st
	st=$(ps -o stat= -p "$1" || true)
	[ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
for _ in $(seq 200); do
	running "$pid" || break
	sleep 0.1
done
if running "$pid"; then
	lr_fail "the daemon $pid outlived SIGTERM by 20 s: $(grep State "/proc/$pid/status"), in $(cat "/proc/$pid/wchan" 2>/dev/null)"
fi
[ ! -e "$LR_TMP/pid" ] || lr_fail "the pid file stayed"
lr_log "monitor: all events as expected"
