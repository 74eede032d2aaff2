#!/usr/bin/env python3
"""test_harness.py — behaviour tests of skiff-bench (no timing assertions).

  test_harness.py SKIFF_BENCH fake BINDIR WORKDIR   one MPI (BINDIR: its mpicc + launcher) run
                                                    under two names: CSV schema, interleaving,
                                                    ratio table
  test_harness.py SKIFF_BENCH missing BINDIR WORKDIR  absent MPIs and a benchmark that fails to
                                                    build are reported and skipped, not fatal;
                                                    no usable MPI at all is a clean error
  test_harness.py SKIFF_BENCH plots-offline BINDIR WORKDIR  plots are the default: the first run
                                                    prepares matplotlib in a venv, and with the
                                                    package index unreachable it says why and
                                                    still writes the CSVs and tables
  test_harness.py SKIFF_BENCH plots BINDIR WORKDIR  with the build's plotting venv ready (77 =
                                                    skipped when it is not): PNGs are written
The other modes run with SKIFF_BENCH_PLOTS=off (set by CMake): no downloads in tests.
BINDIR "mpich" means Debian's mpicc.mpich/mpiexec.mpich (exit 77 = skipped when not installed).
"""
import csv
import os
import re
import shutil
import subprocess
import sys

FIELDS = ["mpi", "benchmark", "size", "ranks", "metric", "median", "min", "max", "runs"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def bindir_for(spec, work):
    """A bin dir holding mpicc and a launcher; "mpich" gets one made of symlinks."""
    if spec != "mpich":
        return spec
    cc, run = shutil.which("mpicc.mpich"), shutil.which("mpiexec.mpich")
    if not cc or not run:
        print("SKIP: MPICH (mpicc.mpich, mpiexec.mpich) not installed")
        sys.exit(77)
    d = os.path.join(work, "mpich-bin")
    os.makedirs(d, exist_ok=True)
    # Debian's "mpich" package brings the wrappers; mpi.h comes with libmpich-dev,
    # which --no-install-recommends leaves out.  Without it nothing can be built.
    probe = os.path.join(d, "probe.c")
    with open(probe, "w") as f:
        f.write("#include <mpi.h>\nint main(void) { return MPI_VERSION > 0 ? 0 : 1; }\n")
    built = subprocess.run([cc, "-o", os.path.join(d, "probe"), probe], capture_output=True, text=True)
    if built.returncode != 0:
        print("SKIP: mpicc.mpich cannot build an MPI program (libmpich-dev missing?):\n" + built.stderr)
        sys.exit(77)
    for name, target in (("mpicc", cc), ("mpiexec", run)):
        forward(os.path.join(d, name), target)
    return d


def forward(path, target):
    """A script that execs target: unlike a symlink, target still sees its own path
    (hydra looks for hydra_pmi_proxy next to itself, wrappers for their lib dir)."""
    with open(path, "w") as f:
        f.write('#!/bin/sh\nexec "%s" "$@"\n' % target)
    os.chmod(path, 0o755)


def twin_of(bindir, work, name):
    """The same MPI under another directory (and so another name in the results)."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    for tool in ("mpicc", "skiffrun", "mpiexec", "mpirun"):
        src = os.path.join(bindir, tool)
        if os.path.exists(src):
            forward(os.path.join(d, tool), os.path.abspath(src))
    return d


def bench(script, args):
    res = subprocess.run([sys.executable, script] + args, capture_output=True, text=True, timeout=400)
    print("$ skiff-bench " + " ".join(args))
    print(res.stdout + res.stderr)
    return res


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, list(reader)


def test_fake(script, bindir, work):
    twin = twin_of(bindir, work, "twin-bin")
    out = os.path.join(work, "fake-out")
    shutil.rmtree(out, ignore_errors=True)
    res = bench(script, ["compare", "--quick", "--runs", "2", "--only", "latency,msgrate,bibw",
                         "--sizes", "0,8,1K", "--with", "none", "--out", out,
                         "--mpi", "skiff=" + bindir, "--mpi", "twin=" + twin])
    check(res.returncode == 0, "compare exits 0 (got %d)" % res.returncode)
    header, rows = read_rows(os.path.join(out, "results.csv"))
    check(header == FIELDS, "results.csv header is %s (got %s)" % (FIELDS, header))
    seen = set()
    for r in rows:
        check(len(r) == len(FIELDS), "row has %d fields: %s" % (len(FIELDS), r))
        if len(r) != len(FIELDS):
            continue
        mpi, b, size, ranks, metric, med, lo, hi, runs = r
        check(mpi in ("skiff", "twin"), "mpi column is one of the two names: %s" % r)
        check(int(size) >= 0 and int(ranks) == 2, "size >= 0 and ranks == 2: %s" % r)
        check(metric == {"latency": "usec", "msgrate": "Mmsg/s", "bibw": "MB/s"}.get(b), "metric of %s: %s" % (b, r))
        zero_ok = metric == "MB/s" and size == "0"  # 0 bytes moved is 0 MB/s
        check((0 <= float(lo) if zero_ok else 0 < float(lo)) and float(lo) <= float(med) <= float(hi),
              "0 < min <= median <= max: %s" % r)
        check(int(runs) == 2, "runs == 2 (both rounds succeeded): %s" % r)
        seen.add((mpi, b, int(size)))
    want_points = [("latency", 0), ("latency", 8), ("latency", 1024), ("msgrate", 0), ("msgrate", 8),
                   ("msgrate", 1024), ("bibw", 0), ("bibw", 8), ("bibw", 1024)]
    for mpi in ("skiff", "twin"):
        for b, size in want_points:
            check((mpi, b, size) in seen, "results.csv has %s %s %d" % (mpi, b, size))
    _, raw = read_rows(os.path.join(out, "raw-results.csv"))
    check(len(raw) == 2 * len(rows), "raw-results.csv has one row per run and point (%d vs %d)" % (len(raw), len(rows)))
    # Interleaving: launches go round by round, and inside a round both MPIs run each benchmark.
    progress = [m.groups() for m in re.finditer(r"^\[.*?\] round (\d+) (\S+)\s+(\S+)", res.stdout, re.M)]
    rounds = [int(p[0]) for p in progress]
    check(len(progress) == 12, "one progress line per launch (3 benchmarks x 2 MPIs x 2 rounds)")
    check(rounds == sorted(rounds) and set(rounds) == {1, 2}, "launches are grouped by round: %s" % rounds)
    firsts = [p[2] for p in progress if p[1] == "latency@np2"]
    check(len(firsts) == 4 and firsts[0] != firsts[2], "the MPI that goes first rotates between rounds: %s" % firsts)
    check("| benchmark | size | ranks | metric | skiff | best other | skiff / best |" in res.stdout,
          "ratio table printed with skiff as reference")
    check(any(l.startswith("| latency | 8 | 2 | usec |") and "(twin)" in l for l in res.stdout.splitlines()),
          "ratio table has a latency 8 B line against twin")
    check("| skiff is | twin |" in res.stdout, "every peer has a column of its own in the ratio table")
    check(os.path.exists(os.path.join(out, "results.md")), "results.md written")
    check("plots:" in res.stdout, "says what happened to the plots")
    check("payload: fresh" in open(os.path.join(out, "meta.txt")).read(), "meta.txt names the payload variant")
    # OSU-style variant: same schema, and the report says which variant it is.
    # ... with every launch under --wrap (a script that notes each launch, then runs it).
    wrapper, calls = os.path.join(work, "wrap.sh"), os.path.join(work, "wrap-calls")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\necho "$1" >> "%s"\nexec "$@"\n' % calls)
    os.chmod(wrapper, 0o755)
    if os.path.exists(calls):
        os.remove(calls)
    res = bench(script, ["compare", "--quick", "--runs", "1", "--only", "latency", "--sizes", "64K", "--static",
                         "--with", "none", "--out", out, "--mpi", "skiff=" + bindir, "--mpi", "twin=" + twin,
                         "--wrap", wrapper])
    check(res.returncode == 0, "--static run exits 0")
    header, rows = read_rows(os.path.join(out, "results.csv"))
    check(header == FIELDS and len(rows) == 2, "--static: one row per MPI: %s" % rows)
    meta = open(os.path.join(out, "meta.txt")).read()
    check("payload: static" in meta, "meta.txt says static payload")
    launches = open(calls).read().split() if os.path.exists(calls) else []
    check(len(launches) == 2, "--wrap ran each of the 2 launches: %s" % launches)
    check("each run under: " + wrapper in meta, "meta.txt names the --wrap command")


def test_missing(script, bindir, work):
    out = os.path.join(work, "missing-out")
    shutil.rmtree(out, ignore_errors=True)
    # An MPI whose compiler refuses alltoall.c, as a library without MPI_Alltoall would.
    broken = os.path.join(work, "broken-bin")
    os.makedirs(broken, exist_ok=True)
    real_cc = os.path.abspath(os.path.join(bindir, "mpicc"))
    with open(os.path.join(broken, "mpicc"), "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *alltoall.c*) echo "alltoall.c: undefined reference to '
                "'MPI_Alltoall'\" >&2; exit 1;; esac\nexec %s \"$@\"\n" % real_cc)
    os.chmod(os.path.join(broken, "mpicc"), 0o755)
    for tool in ("skiffrun", "mpiexec"):
        src = os.path.join(bindir, tool)
        if os.path.exists(src):
            forward(os.path.join(broken, tool), os.path.abspath(src))
    os.environ["SKIFF_PEERS_DIR"] = os.path.join(work, "no-peers")  # no PyPI venvs there
    res = bench(script, ["compare", "--quick", "--runs", "1", "--only", "latency,alltoall", "--sizes", "8",
                         "--with", "nosuchmpi,impi", "--out", out, "--mpi", "skiff=/nonexistent/skiff/bin",
                         "--mpi", "ghost=" + os.path.join(work, "no-such-dir"), "--mpi", "broken=" + broken])
    check(res.returncode == 0, "missing MPIs are not fatal (exit %d)" % res.returncode)
    text = res.stdout
    check("skiff      skipped: /nonexistent/skiff/bin: no such directory" in text, "absent skiff reported")
    check("nosuchmpi  skipped: unknown MPI 'nosuchmpi'" in text, "unknown --with name reported")
    check("impi       skipped: not installed in " in text and "bench/setup-peers.sh" in text,
          "an absent PyPI peer is reported with the script that installs it")
    check("ghost      skipped:" in text and "no such directory" in text, "absent --mpi dir reported")
    check("alltoall@np2" in text and "broken     skipped: build failed:" in text and "MPI_Alltoall" in text,
          "a benchmark that fails to build is skipped with the compiler's reason")
    check("skipped: alltoall@np2 with broken: build failed" in text, "the skip is repeated in the summary")
    _, rows = read_rows(os.path.join(out, "results.csv"))
    check([r[:2] for r in rows] == [["broken", "latency"]], "only the usable benchmark of the usable MPI is in the "
          "CSV: %s" % rows)
    check("ratio table needs results from at least two MPIs" in text, "a single MPI gets no ratio table, and says so")
    meta = open(os.path.join(out, "meta.txt")).read()
    check("mpi ghost: skipped:" in meta, "meta.txt records the skipped MPI")
    # Nothing usable at all: a clean error, not a traceback.
    res = bench(script, ["compare", "--quick", "--with", "none", "--out", out,
                         "--mpi", "skiff=/nonexistent/skiff/bin"])
    check(res.returncode != 0 and "no usable MPI" in res.stderr and "Traceback" not in res.stderr,
          "no usable MPI -> one-line error, non-zero exit")
    res = bench(script, ["compare", "--mpi", "nonsense"])
    check(res.returncode != 0 and "--mpi wants NAME=PATH/bin" in res.stderr, "malformed --mpi is rejected")


def one_skiff_run(script, bindir, out, env=None):
    shutil.rmtree(out, ignore_errors=True)
    print("$ (env: %s)" % " ".join("%s=%s" % kv for kv in sorted((env or {}).items())
                                   if kv[0].startswith(("PIP_", "SKIFF_BENCH"))))
    res = subprocess.run([sys.executable, script, "compare", "--quick", "--runs", "1", "--only", "latency",
                          "--sizes", "8,1K", "--with", "none", "--out", out, "--mpi", "skiff=" + bindir],
                         capture_output=True, text=True, timeout=400, env=env)
    print(res.stdout + res.stderr)
    check(res.returncode == 0, "compare exits 0 (got %d)" % res.returncode)
    for name in ("results.csv", "raw-results.csv", "results.md"):
        check(os.path.exists(os.path.join(out, name)), "%s written" % name)
    return res


def test_plots_offline(script, bindir, work):
    """No network: pip pointed at a closed port, the machine's pip config ignored."""
    venv = os.path.join(work, "offline-venv")
    shutil.rmtree(venv, ignore_errors=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "SKIFF_BENCH_PLOTS"}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="http://127.0.0.1:9/simple", PIP_RETRIES="0",
               PIP_TIMEOUT="5", SKIFF_BENCH_VENV=venv)
    res = one_skiff_run(script, bindir, os.path.join(work, "offline-out"), env)
    out = res.stdout
    check(re.search(r"^plots: first use: preparing the plotting environment in %s \(a venv with matplotlib"
                    % re.escape(venv), out, re.M), "a progress line says the plotting venv is being prepared")
    # Without ensurepip (Debian's python3-venv missing) the venv itself is the reason.
    can_venv = subprocess.run([sys.executable, "-c", "import ensurepip, venv"]).returncode == 0
    why = (r"pip could not install matplotlib from the package index http://127\.0\.0\.1:9/simple: ERROR: .*"
           r"\(no network, or the index is unreachable\?\)" if can_venv else
           r"cannot make a Python venv \(.*apt-get install python3-venv\)")
    check(re.search(r"^plots: skipped: %s; CSV and tables are written" % why, out, re.M),
          "says clearly why there are no plots")
    check(not any(f.endswith(".png") for f in os.listdir(os.path.join(work, "offline-out"))), "no PNG")
    check("Traceback" not in res.stdout + res.stderr, "no traceback")
    # Asked for on purpose, the same answer and a non-zero exit.
    res = subprocess.run([sys.executable, script, "setup-plots"], capture_output=True, text=True, env=env)
    check(res.returncode != 0 and re.search("^skiff-bench setup-plots: " + why, res.stderr, re.M),
          "setup-plots fails with the reason (exit %d)" % res.returncode)
    # Turned off: no attempt at all.
    env["SKIFF_BENCH_PLOTS"] = "off"
    res = one_skiff_run(script, bindir, os.path.join(work, "offline-out"), env)
    check("plots: off (SKIFF_BENCH_PLOTS=off)" in res.stdout and "first use" not in res.stdout,
          "SKIFF_BENCH_PLOTS=off: plots off, said once, nothing prepared")


def test_plots(script, bindir, work):
    """The build's own plotting venv, when someone prepared it (no download here)."""
    env = {k: v for k, v in os.environ.items() if k != "SKIFF_BENCH_PLOTS"}
    probe = subprocess.run([sys.executable, "-c", "import importlib.util, sys; "
                            "sys.exit(0 if importlib.util.find_spec('matplotlib') else 1)"])
    venv = os.environ.get("SKIFF_BENCH_VENV") or os.path.join(os.path.dirname(bindir), "bench-venv")
    ready = subprocess.run([os.path.join(venv, "bin", "python3"), "-c", "import matplotlib"],
                           capture_output=True).returncode == 0 if os.path.exists(venv) else False
    if probe.returncode != 0 and not ready:
        print("SKIP: no matplotlib here and no prepared venv at %s (bench/setup-plots.sh makes it)" % venv)
        sys.exit(77)
    out = os.path.join(work, "plots-out")
    res = one_skiff_run(script, bindir, out, env)
    check("first use" not in res.stdout, "a prepared venv is used as it is")
    check(os.path.exists(os.path.join(out, "latency-np2.png")), "latency-np2.png written")
    check(re.search(r"^plots: 1 PNG files in ", res.stdout, re.M), "says how many PNGs")


def main():
    modes = {"fake": test_fake, "missing": test_missing, "plots-offline": test_plots_offline,
             "plots": test_plots}
    if len(sys.argv) != 5 or sys.argv[2] not in modes:
        sys.exit(__doc__)
    script, mode, spec, work = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    bindir = bindir_for(spec, work)
    if not os.path.exists(os.path.join(bindir, "mpicc")):
        print("FAIL: %s/mpicc does not exist" % bindir)
        sys.exit(1)
    modes[mode](script, bindir, work)
    print("%d check(s) failed" % len(failures) if failures else "all checks passed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
