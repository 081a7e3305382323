#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what lraid's build, tests, demo and benchmarks need on Debian 12.
# Idempotent: prints what it installs, does nothing when everything is there.
set -euo pipefail

pkgs=(
	build-essential bc flex bison libelf-dev libssl-dev cpio kmod xz-utils
	rsync python3-pip python3-venv
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	qemu-system-x86 fio mdadm liburing-dev libisal-dev busybox-static
	sparse shellcheck e2fsprogs util-linux fdisk dmsetup
	xfsprogs lvm2 cryptsetup-bin
)
[ "${LRAID_BENCH:-0}" = 1 ] && pkgs+=(linux-perf bpftrace)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing Debian packages: ${missing[*]}"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >/dev/null
fi

# linux-source ships a tarball: unpack it once next to itself.
src_tar=$(find /usr/src -maxdepth 1 -name 'linux-source-6.12.tar.*' | head -1)
if [ -n "$src_tar" ] && [ ! -d /usr/src/linux-source-6.12 ]; then
	echo "setup: unpacking $src_tar"
	$SUDO tar -C /usr/src -xf "$src_tar"
fi

# virtme-ng from PyPI. Debian's own python3 refuses installs outside a
# virtual environment (PEP 668's EXTERNALLY-MANAGED): then it goes into
# one of its own, which scripts/vm-run finds.
venv=${XDG_CACHE_HOME:-$HOME/.cache}/lraid/virtme-ng
if ! command -v vng >/dev/null 2>&1 && [ ! -x "$venv/bin/vng" ]; then
	echo "setup: installing virtme-ng from PyPI"
	if ! python3 -m pip install -q virtme-ng 2>/dev/null; then
		echo "setup: python3 takes no packages outside a venv: installing into $venv"
		rm -rf "$venv"
		python3 -m venv "$venv"
		"$venv/bin/pip" install -q virtme-ng
	fi
fi
exit 0
