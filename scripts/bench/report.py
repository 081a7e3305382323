#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one bench-quick result directory into a table, CSV and JSON.

usage: report.py OUTDIR           print the table, write OUTDIR/results.{csv,json}
       report.py --one FIO.json   one line summary of a single fio run

Ceilings (see Documentation/benchmarks.rst):
  4k randread   raw randread IOPS of the members (one member read per I/O)
  4k randwrite  raw 50/50 randrw IOPS of the members / (2 * (parity + 1)):
                RAID5 small write = 2 reads + 2 writes, RAID6 = 3 + 3
  1M seqwrite   raw sequential-write MB/s of the data members
"""
import csv
import glob
import json
import os
import sys

JOBS = [("randread", "4k randread", "IOPS"),
        ("randwrite", "4k randwrite", "IOPS"),
        ("seqwrite", "1M seqwrite", "MB/s")]


def load(path):
    try:
        with open(path) as f:
            text = f.read()
        return json.loads(text[text.index("{"):])["jobs"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None


def iops(job, rw):
    return job[rw]["iops"] if job else None


def mbs(job, rw):
    return job[rw]["bw_bytes"] / 1e6 if job else None


def ok_steps(d):
    """The fio runs guest.sh logged OK (None: no steps.log to go by)."""
    try:
        with open(os.path.join(d, "steps.log")) as f:
            return {ln.split()[1] for ln in f
                    if ln.startswith("OK ") and len(ln.split()) > 1}
    except OSError:
        return None


def value(d, name, job, ok):
    """Best of the rounds of run NAME, and every round's value: only runs
    that fio finished without error (a killed or failing run can leave
    JSON with plausible figures)."""
    vals = []
    for path in sorted(glob.glob(os.path.join(d, "fio", name + "-*.json"))):
        if ok is not None and \
                os.path.basename(path)[:-len(".json")] not in ok:
            continue
        j = load(path)
        if j is None or j.get("error", 0):
            continue
        v = value1(j, job)
        if v is not None:
            vals.append(round(v, 1))
    return (max(vals) if vals else None), vals


def value1(j, job):
    if j is None:
        return None
    if job == "randread":
        return iops(j, "read")
    if job == "randwrite":
        return iops(j, "write")
    if job == "randrw":
        return iops(j, "read") + iops(j, "write")
    return mbs(j, "write")


def one(path):
    j = load(path)
    if j is None:
        return "no result"
    parts = []
    for rw in ("read", "write"):
        if j[rw]["io_bytes"]:
            parts.append("%s %.0f IOPS %.1f MB/s clat %.0f us" % (
                rw, j[rw]["iops"], j[rw]["bw_bytes"] / 1e6,
                j[rw]["clat_ns"]["mean"] / 1000))
    return ", ".join(parts)


def kv(path):
    env = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    key, _, val = line.rstrip("\n").partition("=")
                    env[key] = val
    except OSError:
        pass
    return env


def parity_limit(d):
    """lraid's own gen_pq self-test in this guest, in MB/s of data."""
    try:
        with open(os.path.join(d, "parity.txt")) as f:
            lines = f.read().splitlines()
    except OSError:
        return None, []
    mb = None
    for line in lines:
        if "lraid: parity:" in line and "GB/s" in line:
            try:
                mb = float(line.split("gen_pq")[1].split()[0]) * 1000
            except (IndexError, ValueError):
                pass
    return mb, lines


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(v, r=False):
    if v is None:
        return "n/a"
    return "%.2f" % v if r else "%.0f" % v


def main(d):
    env = kv(os.path.join(d, "env.txt"))
    cpus = int(env.get("cpus", "2"))
    pmb, plines = parity_limit(d)
    fails = []
    try:
        with open(os.path.join(d, "steps.log")) as f:
            fails = [ln.rstrip() for ln in f if not ln.startswith("OK ")]
    except OSError:
        pass
    # The targets: >= 0.97 of the ceiling at 2 vCPUs, >= 0.9
    # over-committed; 1M seqwrite >= min(2 x md, 0.9 x parity limit).
    rtarget = 0.97 if cpus <= 2 else 0.9
    ok = ok_steps(d)
    rows = []
    for level in ("5", "6"):
        if not os.path.exists(os.path.join(d, "fio",
                                           "r%s-raw-randread-1.json" % level)):
            continue
        k = 1 if level == "5" else 2
        for job, label, unit in JOBS:
            rawjob = "randrw" if job == "randwrite" else job
            raw, raws = value(d, "r%s-raw-%s" % (level, rawjob), rawjob, ok)
            ceil = raw / (2 * (k + 1)) if raw is not None and \
                job == "randwrite" else raw
            md, mds = value(d, "r%s-md-%s" % (level, job), job, ok)
            lr, lrs = value(d, "r%s-lraid-%s" % (level, job), job, ok)
            if job == "seqwrite":
                cands = [x for x in (2 * md if md else None,
                                     0.9 * pmb if pmb else None) if x]
                tgt = min(cands) if cands else None
                met = None if lr is None or tgt is None else lr >= tgt
                tdesc = "%s MB/s" % fmt(tgt)
            else:
                tgt = rtarget
                r = ratio(lr, ceil)
                met = None if r is None else r >= tgt
                # md above it too: the ceiling is low, not lraid fast
                if met and job == "randwrite" and (ratio(md, ceil) or 0) > 1:
                    met = "md"
                tdesc = "%.2f ceil" % tgt
            rows.append(dict(level="RAID%s x%s" % (
                                 level, env.get("r%s_members" % level, "?")),
                             job=label, unit=unit, raw=raw, ceiling=ceil,
                             md=md, lraid=lr, lraid_md=ratio(lr, md),
                             lraid_ceiling=ratio(lr, ceil),
                             md_ceiling=ratio(md, ceil), target=tdesc,
                             raw_rounds=" ".join("%g" % v for v in raws),
                             md_rounds=" ".join("%g" % v for v in mds),
                             lraid_rounds=" ".join("%g" % v for v in lrs),
                             met={None: "n/a", True: "yes",
                                  False: "no", "md": "yes*"}[met]))

    hdr = ["level", "job", "unit", "raw", "ceiling", "md", "lraid",
           "lraid/md", "lraid/ceil", "md/ceil", "target", "met"]
    table = [hdr]
    for r in rows:
        table.append([r["level"], r["job"], r["unit"], fmt(r["raw"]),
                      fmt(r["ceiling"]), fmt(r["md"]), fmt(r["lraid"]),
                      fmt(r["lraid_md"], True), fmt(r["lraid_ceiling"], True),
                      fmt(r["md_ceiling"], True), r["target"], r["met"]])
    w = [max(len(row[i]) for row in table) for i in range(len(hdr))]
    out = []
    out.append("bench-quick: %s, %s vCPUs, %s; null_blk %s MiB x members, "
               "bs %s, chunk %sK; fio %s iodepth 32 numjobs 2, %ss + %ss ramp"
               % (env.get("kernel", "?"), env.get("cpus", "?"),
                  env.get("cpu", "?"), env.get("members_mb", "?"),
                  env.get("blocksize", "?"), env.get("chunk_k", "?"),
                  env.get("engine", "?"), env.get("runtime", "?"),
                  env.get("ramp", "?")))
    for row in table:
        out.append("  ".join(c.ljust(w[i]) if i < 3 else c.rjust(w[i])
                             for i, c in enumerate(row)).rstrip())
    out.append("best of %s rounds per cell; every round is in results.csv"
               % env.get("rounds", "?"))
    out.append("raw = fio on the members (randwrite: 50/50 randrw, read+write "
               "IOPS); ceiling = raw, randwrite raw/4 (RAID5) or raw/6 (RAID6)")
    if any(r["met"] == "yes*" for r in rows):
        out.append("yes*: md is above the randwrite ceiling too: the raw "
                   "randrw run pays fio's per-I/O cost once per member I/O, "
                   "an array write once per %s; read lraid/md there "
                   "(benchmarks.rst)" % "4 (RAID5) or 6 (RAID6)")
    if any(((r["lraid_ceiling"] or 0) > 1 or (r["md_ceiling"] or 0) > 1)
           and r["job"] != "4k randwrite" for r in rows):
        out.append("note: a ratio above 1.00 of the ceiling means the raw run "
                   "was slowed by other load (compare the rounds)")
    if pmb:
        out.append("parity limit (lraid gen_pq self-test, one CPU): %.0f MB/s"
                   % pmb)
    for line in plines:
        if "raid6: using algorithm" in line or "xor()" in line or \
                "xor: " in line:
            out.append("  md: " + line.split("] ", 1)[-1])
    if fails:
        out.append("steps that failed (their cells read n/a):")
        out.extend("  " + f for f in fails)
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    with open(os.path.join(d, "table.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(d, "results.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows
                            else ["level"])
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(dict(env=env, host=kv(os.path.join(d, "host.txt")),
                       parity_limit_mbs=pmb, parity=plines,
                       failed_steps=fails, rows=rows), f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--one":
        print(one(sys.argv[2]))
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
