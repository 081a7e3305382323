#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writer and checker for scripts/tests/131-power-cut.sh.

  powercut.py write DEV STATE STRIPE_BYTES [volatile]
      Write until every writer thread has had a write (or a flush) fail
      (the members were cut off under it), then save in STATE, per slot,
      the last write known to be on the members and the later ones that
      may or may not be: the one that failed (held at the cut, or sent
      after it) and, with volatile, those acknowledged but not yet flushed.
  powercut.py check DEV STATE STRIPE_BYTES OUT [REF]
      Read every slot back and require, 4 KiB page by page, the last write
      known to be on the members (zeroes if none since create) or one of
      the later writes that may be (a multi-chunk write can reach some
      members and not others). Save what each slot held in OUT. With REF
      (OUT of an earlier check, on the same array then whole): every slot
      outside a stripe with such a later write must read exactly as it
      did then; the others (the write hole: parity of such a stripe may
      disagree with its data) are not read.

The array is cut into slots, each written only by the thread that owns
it, synchronously and with O_DIRECT, so at most one write per slot is in
flight at any time:
  - 4 KiB slots (small writes into shared stripes: read-modify-write or
    reconstruct-write);
  - 12 KiB slots packed back to back, so some cross a chunk boundary;
  - full-stripe slots aligned to the stripe (one write in four is a
    discard, BLKDISCARD, but not from the FUA threads below; after it
    the slot reads zeroes: the array must discard with write-zeroes or
    on members that read zeroes after a discard).
Without volatile the members have no write cache, so a write is on them
once acknowledged. With volatile (members whose write cache the cut
throws away) a write is on the members once acknowledged if it was FUA,
and otherwise once a flush (fdatasync) sent after it returned. Half of
each kind of slot (those starting in an even stripe) are written FUA, the
others plainly with an fdatasync after one write in four. A FUA write is
an asynchronous one with RWF_DSYNC (Linux AIO): a synchronous O_DSYNC
write to a block device is followed by a flush of the whole device,
which would flush the other threads' writes too.
STATE.ready appears once the writers run and SIGUSR1 is handled; the
caller makes STATE.cut just before it cuts the members off, and a write
or flush that fails before then fails the run (lraid failed it while the
members worked).
SIGUSR1 stops the flushes: from then on the plain writes stay in the
members' caches (the check then requires that the cut lost some of them,
or the cut did not test what it should).
Every 4 KiB page of a write starts with (magic, slot, sequence, page) and
is random after that; a write is known by the CRC32 of each page.
"""

import ctypes
import fcntl
import json
import mmap
import os
import random
import signal
import struct
import sys
import threading
import zlib

PAGE = 4096
BLKDISCARD = 0x1277
MAGIC = b"LRCUT\0\0\0"
MIB = 1 << 20
NR_IO_SETUP, NR_IO_GETEVENTS, NR_IO_SUBMIT = 206, 208, 209   # x86_64
IOCB_CMD_PWRITE, RWF_DSYNC = 1, 2


class Iocb(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32),
                ("rw_flags", ctypes.c_int32), ("opcode", ctypes.c_uint16),
                ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64),
                ("offset", ctypes.c_int64), ("reserved2", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]


class IoEvent(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64),
                ("res", ctypes.c_int64), ("res2", ctypes.c_int64)]


class FuaWriter:
    """One asynchronous RWF_DSYNC write at a time (REQ_FUA, no flush)."""

    def __init__(self, fd, buf):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = fd
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
        self.ctx = ctypes.c_ulong(0)
        if self.libc.syscall(NR_IO_SETUP, 1, ctypes.byref(self.ctx)):
            raise OSError(ctypes.get_errno(), "io_setup")

    def pwrite(self, size, off):
        cb = Iocb(opcode=IOCB_CMD_PWRITE, rw_flags=RWF_DSYNC,
                  fildes=self.fd, buf=self.addr, nbytes=size, offset=off)
        cbs = (ctypes.POINTER(Iocb) * 1)(ctypes.pointer(cb))
        if self.libc.syscall(NR_IO_SUBMIT, self.ctx, 1, cbs) != 1:
            raise OSError(ctypes.get_errno(), "io_submit")
        ev = IoEvent()
        while self.libc.syscall(NR_IO_GETEVENTS, self.ctx, 1, 1,
                                ctypes.byref(ev), None) != 1:
            if ctypes.get_errno() != 4:      # EINTR: SIGUSR1
                raise OSError(ctypes.get_errno(), "io_getevents")
        if ev.res < 0:
            raise OSError(-ev.res, os.strerror(-ev.res))
        return ev.res


def regions(stripe):
    """(first byte, slot bytes, slots, threads) for each kind of slot."""
    full_at = (16 * MIB + stripe - 1) // stripe * stripe
    return [(0, PAGE, 2048, 4),
            (8 * MIB, 3 * PAGE, 512, 2),
            (full_at, stripe, max(8, 4 * MIB // stripe), 2)]


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
    def __init__(self, fd, mine, rng, discard, flush, quiet, cut, fua=False):
        super().__init__(daemon=True)
        self.cut = cut           # exists once the members are cut off
        self.fd, self.mine, self.rng = fd, mine, rng
        self.discard = discard   # share of writes that are discards
        self.flush = flush       # fdatasync after a write, one in four
        self.quiet = quiet       # Event: no more flushes
        self.durable = {}        # slot id -> (seq, page CRCs): on the members
        self.maybe = {}          # slot id -> [(seq, page CRCs)] not known to be
        self.writes = 0
        self.discards = 0
        self.error = None        # not an EIO after the cut
        self.size = max(s[2] for s in mine)
        self.buf = mmap.mmap(-1, self.size)
        self.fua = FuaWriter(fd, self.buf) if fua else None

    def fail(self, what, e):
        if e.errno != 5:
            self.error = "%s: %s" % (what, e)
        elif not os.path.exists(self.cut):
            self.error = "%s: %s, before the cut" % (what, e)

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
            w = [n, pages(data), False]     # acknowledged: not yet
            # until it is known to be on the members, it may or may not be
            self.maybe.setdefault(sid, []).append(w)
            try:
                if trim:
                    fcntl.ioctl(self.fd, BLKDISCARD,
                                struct.pack("QQ", off, size))
                    done = size
                elif self.fua:
                    done = self.fua.pwrite(size, off)
                else:
                    done = os.pwritev(self.fd,
                                      [memoryview(self.buf)[:size]], off)
            except OSError as e:
                return self.fail("slot %d" % sid, e)
            if done != size:
                self.error = "slot %d: short write %d of %d" % (sid, done, size)
                return
            w[2] = True
            self.writes += 1
            self.discards += trim
            if not self.flush:
                self.settle()
            elif not self.quiet.is_set() and self.rng.random() < 0.25:
                try:
                    os.fdatasync(self.fd)
                except OSError as e:
                    return self.fail("fdatasync", e)
                self.settle()

    def settle(self):
        """Every write acknowledged so far is on the members."""
        for sid, ws in self.maybe.items():
            self.durable[sid] = ws[-1][:2]
        self.maybe = {}


def write(dev, state, stripe, volatile):
    fd = os.open(dev, os.O_RDWR | os.O_DIRECT)
    quiet = threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: quiet.set())
    rng = random.Random(1310)
    threads, all_slots = [], slots(stripe)
    at = 0
    for _, size, n, nthr in regions(stripe):
        mine = all_slots[at:at + n]
        at += n
        if volatile:
            # FUA in even stripes, flushed in odd ones, so that stripes of
            # FUA writes only have the write hole of the writes in flight
            classes = [[s for s in mine if s[1] // stripe % 2 == k]
                       for k in (0, 1)]
        else:
            classes = [mine]
        for c, part in enumerate(classes):
            flush = c == 1
            per = nthr // len(classes)
            for t in range(per):
                trim = 0.25 if size == stripe and (flush or not volatile) \
                    else 0
                threads.append(Writer(fd, part[t::per],
                                      random.Random(rng.random()),
                                      trim, flush, quiet, state + ".cut",
                                      volatile and not flush))
    for t in threads:
        t.start()
    open(state + ".ready", "w").close()     # SIGUSR1 is handled now
    for t in threads:
        while t.is_alive():
            t.join(0.1)          # a timeout: SIGUSR1's handler runs meanwhile
    out = {"durable": {}, "maybe": {}, "writes": 0, "discards": 0,
           "errors": [], "volatile": volatile}
    for t in threads:
        for sid, v in t.durable.items():
            out["durable"][str(sid)] = v
        for sid, v in t.maybe.items():
            out["maybe"][str(sid)] = v
        out["writes"] += t.writes
        out["discards"] += t.discards
        if t.error:
            out["errors"].append(t.error)
    with open(state, "w") as f:
        json.dump(out, f)
    unsure = sum(len(v) for v in out["maybe"].values())
    print("powercut: %d writes acknowledged (%d of them discards); %d "
          "failed or not flushed (held at the cut or sent after it%s)"
          % (out["writes"], out["discards"], unsure,
             ", or acknowledged after the last flush" if volatile else ""))
    if out["errors"]:
        print("powercut: writes failed other than with EIO at the cut: %s"
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
    for sid in st["maybe"]:
        _, off, size = all_slots[int(sid)]
        suspect.update(stripes_of(off, size, stripe))
    fd = os.open(dev, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, max(s[2] for s in all_slots))
    held, bad = {}, []
    seen = {"durable": 0, "later": 0, "zeroes": 0, "lost": 0}
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
        durable = st["durable"].get(key)
        if old is not None:
            if old.get(key) != crc:
                bad.append("slot %d (byte %d, %d bytes): reads %s, not what "
                           "it read with every member (%s)"
                           % (sid, off, size, describe(data),
                              "seq %d on the members" % durable[0]
                              if durable else "zeroes"))
            continue
        # each page: the last write known to be on the members (zeroes if
        # none), or one that may be, page by page (it may have reached
        # some members and not others, or some pages left a cache)
        before = durable[1] if durable else pages(bytes(size))
        later = st["maybe"].get(key, [])
        if crc == before:
            seen["durable" if durable else "zeroes"] += 1
        elif all(c == b or any(c == w[1][i] for w in later)
                 for i, (c, b) in enumerate(zip(crc, before))):
            seen["later"] += 1
        else:
            bad.append("slot %d (byte %d, %d bytes): reads %s; on the "
                       "members %s, maybe %s"
                       % (sid, off, size, describe(data),
                          "seq %d" % durable[0] if durable else "nothing",
                          ", ".join("seq %d" % w[0] for w in later)
                          or "nothing"))
        # some page holds neither the last acknowledged (not flushed)
        # write nor the failed one after it: lost from a write cache
        acked = [w for w in later if w[2]]
        if acked and any(c != acked[-1][1][i] and
                         not any(c == w[1][i] for w in later if not w[2])
                         for i, c in enumerate(crc)):
            seen["lost"] += 1
    with open(out, "w") as f:
        json.dump(held, f)
    if old is None:
        print("powercut: %d slots as last known on the members, %d with "
              "(some of) a later write, %d never written; %d lost an "
              "acknowledged write not yet flushed"
              % (seen["durable"], seen["later"], seen["zeroes"],
                 seen["lost"]))
        if not st["durable"]:
            bad.append("no write was known to be on the members at the "
                       "cut (none completed its flush or FUA): nothing "
                       "tested")
        if st["volatile"] and not seen["lost"]:
            bad.append("no write cache lost anything at the cut: the cut "
                       "did not test flush and FUA")
    else:
        print("powercut: %d slots read as before, %d in %d stripes with a "
              "write not known to be on the members not read"
              % (len(held), skipped, len(suspect)))
    if old is not None and not held:
        bad.append("every slot was in a stripe with a write not known to "
                   "be on the members: nothing compared")
    for b in bad[:20]:
        print("powercut: " + b, file=sys.stderr)
    if bad:
        print("powercut: %d slots wrong" % len(bad), file=sys.stderr)
        return 1
    return 0


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "write" and \
            argv[5:] in ([], ["volatile"]):
        return write(argv[2], argv[3], int(argv[4]), len(argv) == 6)
    if len(argv) in (6, 7) and argv[1] == "check":
        return check(argv[2], argv[3], int(argv[4]), argv[5],
                     argv[6] if len(argv) == 7 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
