#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writer and checker for scripts/tests/131-power-cut.sh.

  powercut.py write DEV STATE STRIPE_BYTES
      Write until every writer thread has had a write fail (the members
      were cut off under it), then save in STATE, per slot, the last write
      that succeeded and the one that failed (held at the cut, or sent
      after it).
  powercut.py check DEV STATE STRIPE_BYTES OUT [REF]
      Read every slot back and require the last acknowledged write (zeroes
      if none since create) or, page by page, that or the write in flight
      at the cut (which may have reached some members and not others).
      Save what each slot held in OUT. With REF (OUT of an
      earlier check, on the same array then whole): every slot outside a
      stripe that had a write in flight at the cut must read exactly as it
      did then; the others (the write hole: parity of such a stripe may
      disagree with its data) are not read.

The array is cut into slots, each written only by the thread that owns
it, synchronously and with O_DIRECT, so at most one write per slot is in
flight at any time:
  - 4 KiB slots (small writes into shared stripes: read-modify-write or
    reconstruct-write, four threads);
  - 12 KiB slots packed back to back, so some cross a chunk boundary (two
    threads);
  - full-stripe slots aligned to the stripe (one thread; one in four of
    its writes is a discard, BLKDISCARD, after which the slot reads
    zeroes: the array must discard with write-zeroes or on members that
    read zeroes after a discard).
Every 4 KiB page of a write starts with (magic, slot, sequence, page) and
is random after that; a write is known by the CRC32 of each page.
"""

import fcntl
import json
import mmap
import os
import random
import struct
import sys
import threading
import zlib

PAGE = 4096
BLKDISCARD = 0x1277
MAGIC = b"LRCUT\0\0\0"
MIB = 1 << 20


def regions(stripe):
    """(first byte, slot bytes, slots, threads) for each kind of slot."""
    full_at = (16 * MIB + stripe - 1) // stripe * stripe
    return [(0, PAGE, 2048, 4),
            (8 * MIB, 3 * PAGE, 512, 2),
            (full_at, stripe, max(8, 4 * MIB // stripe), 1)]


def stripes_of(off, size, stripe):
    """The stripes that bytes [off, off + size) of the array lie in."""
    return range(off // stripe, (off + size - 1) // stripe + 1)


def slots(stripe):
    """Every slot as (id, first byte, bytes), in id order."""
    out = []
    for first, size, n, _ in regions(stripe):
        out += [(len(out) + i, first + i * size, size) for i in range(n)]
    return out


class Writer(threading.Thread):
    def __init__(self, fd, mine, rng, discard):
        super().__init__(daemon=True)
        self.fd, self.mine, self.rng = fd, mine, rng
        self.discard = discard   # share of writes that are discards
        self.acked = {}          # slot id -> (seq, page CRCs), last good write
        self.inflight = None     # (slot id, seq, page CRCs), the failed one
        self.writes = 0
        self.discards = 0
        self.error = None        # an outcome that is not a plain EIO
        self.size = max(s[2] for s in mine)
        self.buf = mmap.mmap(-1, self.size)

    def run(self):
        seq = {}
        while True:
            sid, off, size = self.rng.choice(self.mine)
            n = seq.get(sid, 0) + 1
            seq[sid] = n
            trim = self.rng.random() < self.discard
            if trim:
                data = bytes(size)
            else:
                data = bytearray()
                for p in range(size // PAGE):
                    data += struct.pack("<8sQQQ", MAGIC, sid, n, p)
                    data += os.urandom(PAGE - 32)
                self.buf[:size] = data
            crc = pages(data)
            try:
                if trim:
                    fcntl.ioctl(self.fd, BLKDISCARD,
                                struct.pack("QQ", off, size))
                    done = size
                else:
                    done = os.pwritev(self.fd,
                                      [memoryview(self.buf)[:size]], off)
            except OSError as e:
                self.inflight = (sid, n, crc)
                if e.errno != 5:
                    self.error = "slot %d: %s" % (sid, e)
                return
            if done != size:
                self.inflight = (sid, n, crc)
                self.error = "slot %d: short write %d of %d" % (sid, done, size)
                return
            self.acked[sid] = (n, crc)
            self.writes += 1
            self.discards += trim


def write(dev, state, stripe):
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    rng = random.Random(1310)
    threads, all_slots = [], slots(stripe)
    at = 0
    for _, size, n, nthr in regions(stripe):
        mine = all_slots[at:at + n]
        for t in range(nthr):
            threads.append(Writer(fd, mine[t::nthr],
                                  random.Random(rng.random()),
                                  0.25 if size == stripe else 0))
        at += n
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out = {"acked": {}, "inflight": {}, "writes": 0, "discards": 0,
           "errors": []}
    for t in threads:
        for sid, v in t.acked.items():
            out["acked"][str(sid)] = v
        if t.inflight:
            out["inflight"][str(t.inflight[0])] = t.inflight[1:]
        out["writes"] += t.writes
        out["discards"] += t.discards
        if t.error:
            out["errors"].append(t.error)
    with open(state, "w") as f:
        json.dump(out, f)
    print("powercut: %d writes acknowledged (%d of them discards), %d "
          "failed (one per thread: held at the cut or sent after it)"
          % (out["writes"], out["discards"], len(out["inflight"])))
    if out["errors"]:
        print("powercut: writes did not fail with EIO: %s"
              % "; ".join(out["errors"]), file=sys.stderr)
        return 1
    return 0


def pages(data):
    """CRC32 of each 4 KiB page of @data."""
    return [zlib.crc32(data[p:p + PAGE]) for p in range(0, len(data), PAGE)]


def describe(data):
    """What the pages of a slot's bytes say they are, for a report."""
    heads = set()
    for p in range(0, len(data), PAGE):
        m, sid, seq, page = struct.unpack_from("<8sQQQ", data, p)
        heads.add("slot %d seq %d page %d" % (sid, seq, page)
                  if m == MAGIC else "no header")
    return ", ".join(sorted(heads))


def check(dev, state, stripe, out, ref=None):
    with open(state) as f:
        st = json.load(f)
    old = None
    if ref:
        with open(ref) as f:
            old = json.load(f)
    suspect = set()
    all_slots = slots(stripe)
    for sid in st["inflight"]:
        _, off, size = all_slots[int(sid)]
        suspect.update(stripes_of(off, size, stripe))
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, max(s[2] for s in all_slots))
    held, bad, seen = {}, [], {"acked": 0, "inflight": 0, "zeroes": 0}
    skipped = 0
    for sid, off, size in all_slots:
        key = str(sid)
        if old is not None and any(s in suspect
                                   for s in stripes_of(off, size, stripe)):
            skipped += 1
            continue
        try:
            got = os.preadv(fd, [memoryview(buf)[:size]], off)
        except OSError as e:
            bad.append("slot %d (byte %d, %d bytes): read failed: %s"
                       % (sid, off, size, e))
            continue
        if got != size:
            bad.append("slot %d: short read %d" % (sid, got))
            continue
        data = bytes(buf[:size])
        crc = pages(data)
        held[key] = crc
        if old is not None:
            if old.get(key) != crc:
                bad.append("slot %d (byte %d, %d bytes): reads %s, not what "
                           "it read with every member (%s)"
                           % (sid, off, size, describe(data),
                              "acknowledged seq %d" % st["acked"][key][0]
                              if key in st["acked"] else "zeroes"))
            continue
        # what each page may hold: the last acknowledged write's (zeroes
        # if none), or the one in flight at the cut, page by page (it may
        # have reached some members and not others)
        before = (st["acked"][key][1] if key in st["acked"]
                  else pages(bytes(size)))
        cut = st["inflight"][key][1] if key in st["inflight"] else before
        if crc == before:
            seen["acked" if key in st["acked"] else "zeroes"] += 1
        elif all(c in (b, f) for c, b, f in zip(crc, before, cut)):
            seen["inflight"] += 1
        else:
            bad.append("slot %d (byte %d, %d bytes): reads %s; acknowledged "
                       "%s, in flight %s"
                       % (sid, off, size, describe(data),
                          "seq %d" % st["acked"][key][0]
                          if key in st["acked"] else "nothing",
                          "seq %d" % st["inflight"][key][0]
                          if key in st["inflight"] else "nothing"))
    with open(out, "w") as f:
        json.dump(held, f)
    if old is None:
        print("powercut: %d slots as last acknowledged, %d with (some of) "
              "the write in flight, %d never written" % (seen["acked"],
                                               seen["inflight"],
                                               seen["zeroes"]))
    else:
        print("powercut: %d slots read as before, %d in %d stripes with a "
              "write in flight not read" % (len(held), skipped,
                                            len(suspect)))
    for b in bad[:20]:
        print("powercut: " + b, file=sys.stderr)
    if bad:
        print("powercut: %d slots wrong" % len(bad), file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "write":
        return write(argv[2], argv[3], int(argv[4]))
    if len(argv) in (6, 7) and argv[1] == "check":
        return check(argv[2], argv[3], int(argv[4]), argv[5],
                     argv[6] if len(argv) == 7 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
