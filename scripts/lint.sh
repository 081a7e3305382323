#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks: sparse (C=2) on the module for 6.12, checkpatch --strict on
# module/, kunit/ and tests/badblk/ (tools/ is userspace: -Wall -Wextra
# -Werror in its Makefile), shellcheck on every shell script,
# systemd-analyze verify on the systemd units.
# Prints PASS:/FAIL: lines; exits 1 on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
# shellcheck source=scripts/kernels.sh
. scripts/kernels.sh
fail=0
result() { # name status(0=pass) [details file]
	if [ "$2" = 0 ]; then
		echo "PASS: lint/$1"
	else
		echo "FAIL: lint/$1"
		[ -n "${3:-}" ] && head -40 "$3"
		fail=1
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sparse: a fresh copy so every file is checked.
kdir=$(lraid_kernel_kdir stock-6.12)
mkdir -p "$tmp/sparse"
cp -r Kbuild module kunit "$tmp/sparse/"
mkdir -p "$tmp/sparse/tests"
cp -r tests/badblk "$tmp/sparse/tests/"
make -C "$kdir" M="$tmp/sparse" C=2 CHECK=sparse W=1 modules >"$tmp/sparse.log" 2>&1
rc=$?
grep -E 'warning:|error:' "$tmp/sparse.log" | grep -v '^make' >"$tmp/sparse.out"
[ $rc = 0 ] && [ ! -s "$tmp/sparse.out" ]
result sparse $? "$tmp/sparse.out"

cp=/usr/src/linux-source-6.12/scripts/checkpatch.pl
if [ -x "$cp" ]; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- 'module/*.[ch]' \
		'module/uapi/*.h' 'kunit/*.c' 'tests/badblk/*.c' | sort -u)
	opts=(--no-tree --strict --quiet --terse --show-types --ignore FILE_PATH_CHANGES)
	"$cp" "${opts[@]}" -f "${files[@]}" >"$tmp/cp.out" 2>&1
	rc=$?
	grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' "$tmp/cp.out" >"$tmp/cp.bad"
	# exit 1 with findings listed; anything else (it died) fails as well
	[ ${#files[@]} -gt 0 ] && [ $rc = 0 ] && [ ! -s "$tmp/cp.bad" ]
	rc=$?
	[ -s "$tmp/cp.bad" ] || cp "$tmp/cp.out" "$tmp/cp.bad"
	result checkpatch $rc "$tmp/cp.bad"
else
	echo "FAIL: lint/checkpatch (no $cp: run scripts/setup.sh)"
	fail=1
fi

mapfile -t sh < <(
	{
		git ls-files -co --exclude-standard -- '*.sh'
		grep -lr '^#!.*\(bash\|sh\)$' scripts .ci 2>/dev/null
	} | sort -u
)
if [ ${#sh[@]} -gt 0 ]; then
	shellcheck -x "${sh[@]}" >"$tmp/sc.out" 2>&1
	result shellcheck $? "$tmp/sc.out"
else
	echo "no shell scripts found" >"$tmp/sc.out"
	result shellcheck 1 "$tmp/sc.out"
fi
# the systemd units (make install-systemd) as installed, lraidctl's path
# one that exists (a guest may be running this tree's): systemd-analyze
# verify parses them
if command -v systemd-analyze >/dev/null; then
	: >"$tmp/units.out"
	mkdir -p "$tmp/units"
	for u in tools/systemd/*.in; do
		sed "s|@LRAIDCTL@|$(command -v true)|" "$u" \
			>"$tmp/units/$(basename "$u" .in)"
	done
	cp tools/systemd/*.timer "$tmp/units/"
	systemd-analyze verify "$tmp"/units/* >>"$tmp/units.out" 2>&1
	rc=$?
	# an unrelated unit of this machine's may be reported: only ours count
	grep -q 'lraid-' "$tmp/units.out" && rc=1
	result systemd-units $rc "$tmp/units.out"
else
	echo "SKIP: lint/systemd-units (no systemd-analyze)"
fi
exit $fail
