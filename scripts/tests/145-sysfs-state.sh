#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# /sys/block/lraidN/lraid/ says what lraidctl detail says, in md's names and
# formats where md has the value (level, layout, chunk_size, raid_disks,
# component_size, degraded, uuid), plus name and failed (the roles failed
# or missing, "1,3"). Checked for RAID5 x4 at 64 KiB and RAID6 x5 at 16 KiB
# on null_blk:
#   - after create, every file against detail --json and examine --json;
#   - lraidctl fail of role 2 (RAID6: then role 1, "1,2" and not a range):
#     degraded and failed follow; a reader blocked in poll(2) on degraded
#     wakes, and the disk sends a "change" uevent for lraidN with
#     LRAID_DEGRADED=<count>, caught on the kernel's uevent socket;
#   - stop while readers loop over the files (the kernel log is checked
#     for splats by the harness): the directory goes with the disk;
#   - a degraded assembly of a new array on the same members (the last
#     one left out, --run): degraded 1 and failed naming its role.
# quick-kernels: stock-6.12 debug
set -euo pipefail
# shellcheck source=scripts/tests/1-helpers.bash
. "$(dirname "$0")/1-helpers.bash"
lr_need python3
lr_setup

d=/sys/block/lraid0/lraid

# is FILE VALUE: $d/FILE reads VALUE
is() {
	local got
	got=$(cat "$d/$1") || lr_fail "read $d/$1"
	[ "$got" = "$2" ] || lr_fail "$d/$1 reads '$got', expected '$2'"
}

# watch OUT: in the background, wait (up to 60 s) for a change of
# $d/degraded by poll(2) and for a "change" uevent of lraid0, and write
# "poll <value read then>" and "uevent" lines to OUT as they come; OUT.ready
# appears once both watches are set up
watch() {
	python3 - "$d/degraded" "$1" <<'PY' &
import os, select, socket, sys, time
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # KOBJECT_UEVENT
s.bind((0, 1))
f = open(path)
f.read()
p = select.poll()
p.register(f, select.POLLPRI | select.POLLERR)
p.register(s, select.POLLIN)
res = open(out, "w", buffering=1)
open(out + ".ready", "w").close()
end = time.time() + 60
woke = seen = False
while not (woke and seen) and time.time() < end:
    for fd, ev in p.poll(1000):
        if fd == s.fileno():
            msg = s.recv(65536).split(b"\0")
            if msg[0].startswith(b"change@") and b"DEVNAME=lraid0" in msg:
                deg = [m for m in msg if m.startswith(b"LRAID_DEGRADED=")]
                res.write("uevent " + b",".join(deg).decode() + "\n")
                seen = True
        elif not woke:
            f.seek(0)
            res.write("poll " + f.read())
            woke = True
            p.unregister(f)
PY
	WATCH=$!
	for _ in $(seq 100); do
		[ -e "$1.ready" ] && return
		sleep 0.1
	done
	lr_fail "the watcher did not start"
}

# watched OUT DEGRADED: the watcher saw degraded become DEGRADED, and the
# uevent with LRAID_DEGRADED=DEGRADED
watched() {
	wait "$WATCH" || lr_fail "watcher failed"
	grep -qx "poll $2" "$1" ||
		lr_fail "poll on $d/degraded: $(tr '\n' ' ' <"$1") (expected poll $2)"
	grep -qx "uevent LRAID_DEGRADED=$2" "$1" ||
		lr_fail "no change uevent for lraid0 with LRAID_DEGRADED=$2: $(tr '\n' ' ' <"$1")"
	rm -f "$1" "$1.ready"
}

for cfg in "5 4 64K 65536" "6 5 16K 16384"; do
	read -r level n chunk bytes <<<"$cfg"
	lr_log "RAID$level, $n members, chunk $chunk"
	lr_members nullb "$n" 128
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	[ -d "$d" ] || lr_fail "no $d"
	json=$("$LRAIDCTL" detail --json lraid0) || lr_fail detail
	ex=$("$LRAIDCTL" examine --json "${LR_M[0]}") || lr_fail examine
	read -r uuid kib name jlevel jchunk jn < <(python3 -c '
import json, sys
d, e = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert d["uuid"] == e["uuid"]
print(d["uuid"], d["member_data_sectors"] // 2, e["name"], d["level"],
      d["chunk_bytes"], d["members"])' "$json" "$ex") ||
		lr_fail "detail/examine JSON"
	[ "$jlevel $jchunk $jn" = "$level $bytes $n" ] ||
		lr_fail "detail --json: level $jlevel, chunk $jchunk, $jn members"
	is level "raid$jlevel"
	is layout 2
	is chunk_size "$jchunk"
	is raid_disks "$jn"
	is component_size "$kib"
	is degraded 0
	is failed ""
	is uuid "$uuid"
	is name "$name"
	# read-only: a write is refused
	if echo 1 2>/dev/null >"$d/degraded"; then
		lr_fail "$d/degraded took a write"
	fi

	watch "$LR_TMP/w1"
	"$LRAIDCTL" fail lraid0 "${LR_M[2]}" || lr_fail "fail role 2"
	watched "$LR_TMP/w1" 1
	is degraded 1
	is failed 2
	if [ "$level" = 6 ]; then
		# a neighbour: each role named, not a range ("1-2")
		watch "$LR_TMP/w2"
		"$LRAIDCTL" fail lraid0 "${LR_M[1]}" || lr_fail "fail role 1"
		watched "$LR_TMP/w2" 2
		is degraded 2
		is failed "1,2"
	fi
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
bad = sorted(m["role"] for m in d["devices"] if m["state"] != "active")
print(",".join(map(str, bad)))' "$("$LRAIDCTL" detail --json lraid0)" \
		>"$LR_TMP/bad" || lr_fail "detail JSON after fail"
	is failed "$(cat "$LR_TMP/bad")"

	# readers over every file while the array stops
	(while :; do cat "$d"/* >/dev/null 2>&1 || :; done) &
	readers=$!
	sleep 0.5
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	kill "$readers"
	wait "$readers" 2>/dev/null || :
	[ ! -e "$d" ] || lr_fail "$d still there after stop"

	# degraded assembly: a new array on the members, stopped, then
	# started without its last member
	lr_create lraid0 --level "$level" --chunk "$chunk" "${LR_M[@]}"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
	"$LRAIDCTL" assemble --run lraid0 "${LR_M[@]:0:n-1}" >/dev/null 2>&1 ||
		lr_fail "degraded assemble"
	is raid_disks "$n"
	is degraded 1
	is failed "$((n - 1))"
	"$LRAIDCTL" stop lraid0 || lr_fail stop
done
echo "PASS: sysfs state"
