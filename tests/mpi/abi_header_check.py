#!/usr/bin/env python3
"""abi_header_check.py — Skiff's mpi.h against the MPI 5.0 standard ABI header.

    abi_header_check.py CC SKIFF_INCLUDE_DIR ABI_INCLUDE_DIR

ABI_INCLUDE_DIR holds mpi_abi.h (MPICH 5's, from the PyPI wheel: abi_cases.sh
installs it).  Checked mechanically, with the C compiler doing the reading:
  1. every constant Skiff's mpi.h defines (object-like MPI_* macros and MPI_*
     enumerators) exists in mpi_abi.h with the same value (handles compared as
     integers, as the ABI fixes them);
  2. MPI_Status has the ABI's size and field offsets; MPI_Aint, MPI_Count,
     MPI_Offset and every handle type have the ABI's size and alignment;
  3. every function and typedef Skiff declares is compatible with the ABI's
     declaration of the same name (Skiff's declarations are compiled after
     mpi_abi.h; the compiler rejects any conflicting one).
Exceptions, by design: MPI_VERSION/MPI_SUBVERSION (Skiff says 4.1, docs/mpi.md),
and the constants listed in NOT_IN_ABI (none today).
Prints one line per difference and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys
import tempfile

NOT_COMPARED = {"MPI_VERSION", "MPI_SUBVERSION"}
# Constants Skiff may define although mpi_abi.h has none (name: why).  Empty:
# every MPI_ constant of Skiff's mpi.h is one the ABI fixes.
NOT_IN_ABI = {}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def preprocess(cc, incdir, header, extra=()):
    src = "#include <%s>\n" % header
    macros = run([cc, "-E", "-dM", "-I", incdir, *extra, "-x", "c", "-"], input=src)
    text = run([cc, "-E", "-P", "-I", incdir, *extra, "-x", "c", "-"], input=src)
    if macros.returncode or text.returncode:
        sys.exit("cannot preprocess %s in %s:\n%s%s" % (header, incdir, macros.stderr, text.stderr))
    return macros.stdout, text.stdout


def constants(macros, text):
    names = set(re.findall(r"^#define (MPI_[A-Z0-9_]+) ", macros, re.M))
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        names.update(re.findall(r"\b(MPI_[A-Z0-9_]+)\s*(?:=|,|$)", body))
    return names


def top_level_decls(text):
    """Split preprocessed C into top-level declarations (text up to ';' at depth 0)."""
    decls, depth, cur = [], 0, []
    for ch in text:
        cur.append(ch)
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == ";" and depth == 0:
            decls.append(" ".join("".join(cur).split()))
            cur = []
    return decls


def compile_and_run(cc, src, incdir, extra=()):
    with tempfile.TemporaryDirectory() as d:
        c, exe = os.path.join(d, "t.c"), os.path.join(d, "t")
        with open(c, "w") as f:
            f.write(src)
        r = run([cc, "-std=gnu11", "-Wall", "-Werror", "-I", incdir, *extra, c, "-o", exe])
        if r.returncode:
            return None, r.stderr
        r = run([exe])
        return r.stdout, r.stderr


def main():
    cc, skiff_inc, abi_inc = sys.argv[1:4]
    s_macros, s_text = preprocess(cc, skiff_inc, "mpi.h")
    a_macros, a_text = preprocess(cc, abi_inc, "mpi_abi.h")
    problems = []

    # 1. constants
    skiff = constants(s_macros, s_text) - NOT_COMPARED
    abi = constants(a_macros, a_text)
    for n in sorted(skiff - abi - set(NOT_IN_ABI)):
        problems.append("%s: defined by Skiff, absent from mpi_abi.h (if intended, list it in "
                        "NOT_IN_ABI of tests/mpi/abi_header_check.py with the reason)" % n)
    common = sorted(skiff & abi)
    prog = ["#include <stdint.h>", "#include <stdio.h>", "#include HEADER", "int main(void) {"]
    prog += ['    printf("%s %%lld\\n", (long long)(intptr_t)(%s));' % (n, n) for n in common]
    prog += ["    return 0;", "}"]
    values = {}
    for side, inc, header in (("skiff", skiff_inc, "mpi.h"), ("abi", abi_inc, "mpi_abi.h")):
        out, err = compile_and_run(cc, "\n".join(prog).replace("HEADER", "<%s>" % header), inc)
        if out is None:
            sys.exit("the constants program does not compile against %s:\n%s" % (header, err))
        values[side] = dict(line.split() for line in out.splitlines())
    for n in common:
        if values["skiff"][n] != values["abi"][n]:
            problems.append("%s: Skiff %s, mpi_abi.h %s" % (n, values["skiff"][n], values["abi"][n]))

    # 2. layouts
    handles = sorted(set(re.findall(r"typedef struct MPI_ABI_\w+ ?\* ?(MPI_\w+);", s_text)))
    probes = ["sizeof(MPI_Status)", "offsetof(MPI_Status, MPI_SOURCE)",
              "offsetof(MPI_Status, MPI_TAG)", "offsetof(MPI_Status, MPI_ERROR)",
              "sizeof(MPI_Aint)", "sizeof(MPI_Count)", "sizeof(MPI_Offset)",
              "_Alignof(MPI_Status)", "_Alignof(MPI_Count)"]
    probes += ["sizeof(%s)" % h for h in handles] + ["_Alignof(%s)" % h for h in handles]
    prog = ["#include <stddef.h>", "#include <stdio.h>", "#include HEADER", "int main(void) {"]
    prog += ['    printf("%%zu\\n", (size_t)%s);' % p for p in probes] + ["    return 0;", "}"]
    layout = {}
    for side, inc, header in (("skiff", skiff_inc, "mpi.h"), ("abi", abi_inc, "mpi_abi.h")):
        out, err = compile_and_run(cc, "\n".join(prog).replace("HEADER", "<%s>" % header), inc)
        if out is None:
            sys.exit("the layout program does not compile against %s:\n%s" % (header, err))
        layout[side] = out.split()
    for p, a, b in zip(probes, layout["skiff"], layout["abi"]):
        if a != b:
            problems.append("%s: Skiff %s, mpi_abi.h %s" % (p, a, b))

    # 3. declarations: Skiff's functions and typedefs compiled after mpi_abi.h
    decls = []
    nfun = 0
    for d in top_level_decls(s_text):
        if "{" in d or d.startswith("enum"):
            continue  # struct and enum bodies: compared above
        if d.startswith("typedef") or re.search(r"\bP?MPI_\w+\s*\(", d):
            decls.append(d)
            nfun += not d.startswith("typedef")
    src = "#include <mpi_abi.h>\n" + "\n".join(decls) + "\nint main(void) { return 0; }\n"
    out, err = compile_and_run(cc, src, abi_inc)
    if out is None:
        for line in err.splitlines():
            if "error:" in line:
                problems.append("declaration differs: " + line.split("error:", 1)[1].strip())

    for p in problems:
        print("ABI MISMATCH " + p)
    print("abi_header_check: %d constants, %d layout facts, %d declarations compared; %d differences"
          % (len(common), len(probes), len(decls), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
