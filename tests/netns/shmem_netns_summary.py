#!/usr/bin/env python3
"""shmem_netns_summary.py [--list] RAW... -- medians of bench_shmem_netns.sh runs.

RAW files hold lines "impl,mode,size,value,unit[,np=N][,rx=B][,rep=R]" (the
script's $OUT/raw; several files are pooled).  Default output: one row per
(mode, size, PEs) with every implementation's median [min-max] over its
launches, the best peer (not skiff or base; lowest for usec, highest for the
rates), the ratio skiff / best peer of the medians, and the median of the
per-repetition ratios (skiff against the best peer's launch of the same
repetition of the same file: those ran back to back).  --list: one line per
(impl, mode, size, PEs) as "impl,mode,size,median [min-max],unit".
"""
import collections
import statistics
import sys


def parse(paths):
    rows = []
    for fi, path in enumerate(paths):
        for line in open(path):
            f = line.strip().split(",")
            if len(f) < 5:
                continue
            extra = dict(x.split("=", 1) for x in f[5:] if "=" in x)
            rows.append({"impl": f[0], "mode": f[1], "size": int(f[2]), "value": float(f[3]),
                         "unit": f[4], "np": int(extra.get("np", 2)),
                         "rep": (fi, extra.get("rep", ""))})
    return rows


def fmt(v):
    return f"{v:.3g}" if abs(v) < 1000 else f"{v:.0f}"


def size_name(n):
    for div, suf in ((1 << 20, "M"), (1 << 10, "K")):
        if n >= div and n % div == 0:
            return f"{n // div}{suf}"
    return str(n)


def lower_is_better(unit):
    return unit in ("usec", "us", "s")


def main(argv):
    listing = "--list" in argv
    paths = [a for a in argv if a != "--list"]
    if not paths:
        sys.exit(__doc__)
    rows = parse(paths)
    vals = collections.defaultdict(list)      # (mode, size, np, impl) -> values
    by_rep = collections.defaultdict(dict)    # (mode, size, np, rep) -> {impl: value}
    unit = {}
    for r in rows:
        k = (r["mode"], r["size"], r["np"])
        vals[k + (r["impl"],)].append(r["value"])
        by_rep[k + (r["rep"],)][r["impl"]] = r["value"]
        unit[k] = r["unit"]
    if listing:
        for k in sorted(vals, key=lambda k: (k[3], k[0], k[1], k[2])):
            v = sorted(vals[k])
            np_note = f" (np={k[2]})" if k[2] != 2 else ""
            print(f"{k[3]},{k[0]},{k[1]},{statistics.median(v):g} [{v[0]:g}-{v[-1]:g}],"
                  f"{unit[k[:3]]}{np_note}")
        return
    impls = sorted({k[3] for k in vals}, key=lambda i: (i != "skiff", i != "base", i))
    peers = [i for i in impls if i not in ("skiff", "base")]
    print("| mode | size | PEs | unit | " + " | ".join(impls) +
          " | skiff / best peer | per repetition [min-max] (n) |")
    print("|---" * (len(impls) + 6) + "|")
    for k in sorted(unit):
        low = lower_is_better(unit[k])
        cells, med = [], {}
        for i in impls:
            v = sorted(vals.get(k + (i,), []))
            if v:
                med[i] = statistics.median(v)
                cells.append(f"{fmt(med[i])} [{fmt(v[0])}-{fmt(v[-1])}] (n={len(v)})")
            else:
                cells.append("-")
        have = [p for p in peers if p in med]
        ratio = per = "-"
        if "skiff" in med and have:
            best = (min if low else max)(have, key=lambda p: med[p])
            ratio = f"{med['skiff'] / med[best]:.2f} ({best})"
            rs = []
            for rk, got in by_rep.items():
                if rk[:3] == k and "skiff" in got and any(p in got for p in peers):
                    b = (min if low else max)((got[p] for p in peers if p in got))
                    rs.append(got["skiff"] / b)
            if rs:
                rs.sort()
                per = f"{statistics.median(rs):.2f} [{rs[0]:.2f}-{rs[-1]:.2f}] ({len(rs)})"
        print(f"| {k[0]} | {size_name(k[1])} | {k[2]} | {unit[k]} | " + " | ".join(cells) +
              f" | {ratio} | {per} |")


if __name__ == "__main__":
    main(sys.argv[1:])
