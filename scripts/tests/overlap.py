#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Racing writes to the same blocks, for scripts/tests/102-shared-stripes.sh.

  overlap.py write DEV STATE OFFSET_KIB SIZE_KIB THREADS WRITES SIZES SEED
      THREADS threads each make WRITES synchronous O_DIRECT writes into
      the SIZE_KIB KiB of DEV from OFFSET_KIB on, of sizes picked from
      SIZES (KiB, comma separated), at random 4 KiB-aligned offsets: the
      threads' writes overlap each other's, in flight at the same time,
      partly or whole. Every 4 KiB block of a write carries the write's
      number and the block's own address, and bytes derived from both.
      STATE (JSON) records, per block, the last write of each thread that
      covered it, and when each write was sent and when it completed.
  overlap.py check DEV STATE
      Every block written must read back as one whole block of one of the
      threads' last writes that covered it, and one that no other of them
      followed (sent after it completed): which one is not defined when
      two were in flight at once (the block layer orders nothing between
      them), but a block mixing two writes, an older content (a lost
      write, or parity rebuilding what a later write replaced), or bytes
      of neither (parity computed from a mix, read back by
      reconstruction) fails.

Exit status 0 when every block is as it may be, 1 otherwise (the first
blocks that are not are printed).
"""
import hashlib
import json
import mmap
import os
import random
import struct
import sys
import threading
import time

BLK = 4096


def content(wid, blk):
    """The 4 KiB that write @wid puts at block @blk (absolute)."""
    head = struct.pack("<QQ", wid, blk)
    fill = hashlib.blake2b(head, digest_size=64).digest() * (BLK // 64)
    return head + fill[:BLK - len(head)]


def write(dev, state, off_kib, size_kib, threads, writes, sizes, seed):
    base = off_kib * 1024 // BLK
    nblk = size_kib * 1024 // BLK
    lens = [int(s) * 1024 // BLK for s in sizes.split(",")]
    if min(lens) < 1 or max(lens) > nblk:
        sys.exit(f"overlap.py: sizes {sizes} do not fit {size_kib} KiB")
    cover = {}
    times = {}
    lock = threading.Lock()
    errors = []

    # every thread builds its writes first, then all start at once: the
    # race is between writes in flight, not between Python loops
    go = threading.Barrier(threads)

    def run(t):
        rnd = random.Random(seed * 1000 + t)
        todo = []
        last = {}
        for i in range(writes):
            wid = (seed * 1000 + t) * 1000000 + i + 1
            n = rnd.choice(lens)
            first = base + rnd.randrange(nblk - n + 1)
            buf = mmap.mmap(-1, n * BLK)
            for k in range(n):
                buf[k * BLK:(k + 1) * BLK] = content(wid, first + k)
            todo.append((first, buf))
            for k in range(n):
                last[first + k] = wid
        # a thread's writes are synchronous, one after the other: of its
        # writes to a block only the last may be there
        with lock:
            for b, wid in last.items():
                cover.setdefault(b, []).append(wid)
        fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
        go.wait()
        sent = {}
        try:
            for first, buf in todo:
                wid = struct.unpack("<Q", buf[:8])[0]
                t0 = time.monotonic_ns()
                if os.pwritev(fd, [buf], first * BLK) != len(buf):
                    raise OSError("short write")
                sent[wid] = (t0, time.monotonic_ns())
        except OSError as e:
            errors.append(f"thread {t}: {e}")
        finally:
            os.close(fd)
        with lock:
            times.update(sent)

    ts = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        sys.exit("overlap.py: " + "; ".join(errors))
    old = {"cover": {}, "times": {}}
    if os.path.exists(state):
        with open(state) as f:
            old = json.load(f)
    # a block written again: only the new writes may be there
    old["cover"].update({str(b): w for b, w in cover.items()})
    old["times"].update({str(w): t for w, t in times.items()})
    with open(state, "w") as f:
        json.dump(old, f)
    print(f"overlap.py: {threads} threads, {threads * writes} writes, "
          f"{len(cover)} blocks, {sum(len(w) > 1 for w in cover.values())} "
          f"written by more than one thread")


def check(dev, state):
    with open(state) as f:
        st = json.load(f)
    times = {int(w): t for w, t in st["times"].items()}
    cover = {}
    for b, ws in st["cover"].items():
        # a write that another covering write followed cannot be there
        cover[int(b)] = {w for w in ws
                         if not any(times[v][0] > times[w][1] for v in ws)}
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, BLK)
    bad = 0
    for blk in sorted(cover):
        if os.preadv(fd, [buf], blk * BLK) != BLK:
            sys.exit(f"overlap.py: short read at block {blk}")
        wid, at = struct.unpack("<QQ", buf[:16])
        if at == blk and wid in cover[blk] and buf[:] == content(wid, blk):
            continue
        bad += 1
        if bad <= 8:
            if buf[:] == bytes(BLK):
                what = "zeroes"
            elif at == blk and buf[:] == content(wid, at):
                what = (f"write {wid}, which a later write to the block "
                        "followed, or which did not cover it")
            else:
                what = "bytes of no write (torn, or rebuilt wrong)"
            print(f"block {blk}: {what}; covered by {sorted(cover[blk])}")
    os.close(fd)
    print(f"overlap.py: {len(cover)} blocks checked, {bad} wrong")
    return 1 if bad else 0


def main():
    a = sys.argv[1:]
    if len(a) == 9 and a[0] == "write":
        write(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]), a[7],
              int(a[8]))
        return 0
    if len(a) == 3 and a[0] == "check":
        return check(a[1], a[2])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
