#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: set up, build, boot QEMU on Debian's 6.12 kernel and show
# lraid serving an array (scripts/guest/demo.sh does the showing).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/setup.sh
echo "demo: building lraid.ko for Debian 6.12 and lraidctl"
scripts/build-for stock-6.12 >/dev/null
make -s -C tools
exec scripts/vm-run --kernel stock-6.12 --cpus 2 --mem 3G -- scripts/guest/demo.sh
