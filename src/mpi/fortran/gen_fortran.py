#!/usr/bin/env python3
"""gen_fortran.py — emit Skiff's Fortran bindings from include/mpi.h.

    python3 src/mpi/fortran/gen_fortran.py [repo root [output directory]]

writes src/mpi/fortran/fbind_gen.c (one C function with gfortran's linkage
name, mpi_send_, per C prototype in mpi.h, every argument by reference as
MPI_Fint / MPI_Aint, an ierror last, the hidden lengths of CHARACTER
arguments after it) and include/mpif.h (every integer constant of mpi.h as a
PARAMETER, the sentinel common blocks), src/mpi/fortran/mpi_mod.f90 (module
mpi) and src/mpi/fortran/mpi_f08.f90 (module mpi_f08, gen_f08.py).  The bindings only translate
arguments: handles through MPI_*_f2c/c2f, Fortran's MPI_BOTTOM, MPI_IN_PLACE,
MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY to C's, 1-based
indices, blank-padded strings.  Functions whose arguments need more (callbacks,
argc/argv, non-int results) are written by hand in fbind.c and listed in
HAND below.  Both outputs are committed; the test fortran_gen_current checks
that they match a fresh run (rerun this after changing mpi.h).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_f08  # noqa: E402  module mpi_f08

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../..")
OUTDIR = sys.argv[2] if len(sys.argv) > 2 else None  # all three files there (the check)


def output(path):
    return os.path.join(OUTDIR, os.path.basename(path)) if OUTDIR else os.path.join(ROOT, path)
HANDLES = {"MPI_Comm": "Comm", "MPI_Datatype": "Type", "MPI_Group": "Group", "MPI_Op": "Op",
           "MPI_Info": "Info", "MPI_Errhandler": "Errhandler", "MPI_Request": "Request",
           "MPI_Message": "Message", "MPI_Win": "Win", "MPI_Session": "Session"}
# written by hand (fbind.c), or C-only by the standard
HAND = {"MPI_Init", "MPI_Init_thread", "MPI_Wtime", "MPI_Wtick", "MPI_Op_create",
        "MPI_Comm_set_attr", "MPI_Comm_get_attr", "MPI_Type_set_attr", "MPI_Type_get_attr",
        "MPI_Win_set_attr", "MPI_Win_get_attr", "MPI_Aint_add", "MPI_Aint_diff",
        "MPI_Comm_create_errhandler", "MPI_Win_create_errhandler", "MPI_Attr_put", "MPI_Attr_get",
        "MPI_Comm_create_keyval", "MPI_Type_create_keyval", "MPI_Win_create_keyval",
        "MPI_Keyval_create", "MPI_Grequest_start", "MPI_Session_create_errhandler",
        "MPI_Info_create_env", "MPI_Comm_spawn", "MPI_Comm_spawn_multiple"}
C_ONLY = re.compile(r"MPI_(\w+_(c2f|f2c)|Status_(c2f|f2c|c2f08|f082c|f2f08|f082f)|Pcontrol|T_\w+|Abi_\w+)$")
# Fortran's form differs from C's and is not written yet (docs/fortran.md)
NOT_YET = set()
# The large-count (_c) C functions: in Fortran they are not separate names
# (not in mpif.h or module mpi) but mpi_f08's second specific procedure of
# the plain name's generic (MPI_Send_f08c, INTEGER(KIND=MPI_COUNT_KIND)
# counts), over a C binding mpi_send_c_ like the others.
LARGE = re.compile(r"MPI_\w+_c$")
# ... except these, written by hand (fbind.c, gen_f08.py): MPI_Op_create_c
# keeps its own name in mpi_f08 (dummy procedures cannot tell a generic's
# specifics apart), its user function taking an INTEGER(KIND=MPI_COUNT_KIND) len.
HAND_LARGE = {"MPI_Op_create_c"}
# ... and these, whose Fortran form is not written yet (docs/fortran.md)
NOT_YET_LARGE = set()
# void * arguments that are not communication buffers: passed as they are
RAW_VOID = {"baseptr", "buffer_addr", "location"}
# void * arguments whose Fortran meaning differs (an INTEGER(KIND=MPI_ADDRESS_KIND)
# value, not an address): only hand-written bindings take them
BY_HAND_VOID = {"attribute_val", "extra_state"}
# handle arrays: their length, a C expression over the (dereferenced) arguments
ARRAY_LEN = {
    "array_of_requests": "*{count}",
    "array_of_types": "*count",
    "array_of_datatypes": "*max_datatypes",
    "sendtypes": "fb_types_len(comm, 1, {neighbor})",
    "recvtypes": "fb_types_len(comm, 0, {neighbor})",
}
# 1-based in Fortran: the request indices that completion calls return
INDEX_OUT = {"index", "array_of_indices"}
INDEX_FNS = re.compile(r"MPI_(Wait|Test)(any|some)$")


def prototypes(text):
    for m in re.finditer(r"^(int|double|MPI_Aint|MPI_Fint|MPI_\w+) (MPI_\w+)\(([^;]*)\);", text,
                         re.M | re.S):
        yield m.group(1), m.group(2), " ".join(m.group(3).split())


def parse_param(p):
    p = p.strip()
    m = re.match(r"(.*?)(\w+)\s*((?:\[\w*\])*)$", p)
    ctype, name, arr = m.group(1).strip(), m.group(2), m.group(3)
    return ctype, name, arr


class Fn:
    def __init__(self, name, params):
        self.name, self.params = name, params
        self.fargs, self.pre, self.call, self.post, self.hidden = [], [], [], [], []

    def count_name(self):
        names = [n for _, n, _ in self.params]
        return "incount" if "incount" in names else "count"


def convert(fn):
    """Fill fn's Fortran signature and body; False if an argument is not mechanical."""
    for ctype, name, arr in fn.params:
        base = ctype.replace("const ", "").strip()
        const = ctype.startswith("const")
        if (base == "void" and name == "") or name in BY_HAND_VOID:
            return False
        if base in ("int", "MPI_Aint", "MPI_Count", "MPI_Offset") and not arr:
            ftype = "MPI_Fint" if base == "int" else base
            fn.fargs.append(f"{ftype} *{name}")
            fn.call.append(f"*{name}")
        elif base in HANDLES and not arr:
            k = HANDLES[base]
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.call.append(f"MPI_{k}_f2c(*{name})")
        elif base.rstrip(" *") in HANDLES and base.endswith("*") and not arr:
            k = HANDLES[base.rstrip(" *")]
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.pre.append(f"{base.rstrip(' *')} c_{name} = MPI_{k}_f2c(*{name});")
            fn.call.append(f"&c_{name}")
            fn.post.append(f"*{name} = MPI_{k}_c2f(c_{name});")
        elif base in HANDLES and arr == "[]":
            k = HANDLES[base]
            if name not in ARRAY_LEN:
                return False
            length = ARRAY_LEN[name].format(count=fn.count_name(),
                                            neighbor=int("Neighbor" in fn.name))
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.pre.append(f"int n_{name} = (int)({length});")
            fn.pre.append(f"{base} *c_{name} = fb_alloc(n_{name}, sizeof *c_{name});")
            fn.pre.append(f"for (int i = 0; i < n_{name}; i++)")
            fn.pre.append(f"    c_{name}[i] = MPI_{k}_f2c({name}[i]);")
            fn.call.append(f"c_{name}")
            if not const:
                fn.post.append(f"for (int i = 0; i < n_{name}; i++)")
                fn.post.append(f"    {name}[i] = MPI_{k}_c2f(c_{name}[i]);")
            fn.post.append(f"fb_free(c_{name});")
        elif base == "MPI_Status *" and not arr:
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.call.append(f"({ctype})fb_status({name})")
        elif base == "MPI_Status" and arr == "[]":
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.call.append(f"fb_statuses({name})")
        elif base == "char *" and not const:
            fn.fargs.append(f"char *{name}")
            fn.hidden.append(f"size_t {name}_len")
            fn.pre.append(f"char *c_{name} = fb_str_out({name}_len);")
            fn.call.append(f"c_{name}")
            fn.post.append(f"fb_str_back({name}, {name}_len, c_{name});")
        elif (base == "char *" and const) or (base == "char" and arr == "[]"):
            fn.fargs.append(f"const char *{name}")
            fn.hidden.append(f"size_t {name}_len")
            fn.pre.append(f"char *c_{name} = fb_str_in({name}, {name}_len);")
            fn.call.append(f"c_{name}")
            fn.post.append(f"free(c_{name});")
        elif base == "void *" and name not in RAW_VOID:
            fn.fargs.append(f"{'const ' if const else ''}void *{name}")
            fn.call.append(f"fb_buf({name})")
        elif base == "void *":
            fn.fargs.append(f"void *{name}")
            fn.call.append(name)
        elif base == "int *" and "weights" in name:
            fn.fargs.append(f"MPI_Fint *{name}")
            fn.call.append(f"fb_weights({name})")
        elif base in ("int *", "MPI_Aint *", "MPI_Count *", "MPI_Offset *") or (
                base in ("int", "MPI_Aint", "MPI_Count") and arr in ("[]", "[][3]")):
            t = "MPI_Fint" if base.startswith("int") else base.rstrip(" *")
            fn.fargs.append(f"{'const ' if const else ''}{t} *{name}")
            fn.call.append(f"({ctype} (*)[3]){name}" if arr == "[][3]" else name)
            if name in INDEX_OUT and INDEX_FNS.match(fn.name):
                fn.post.append(f"fb_one_based({name}, {'*outcount' if arr else '1'});")
            if name == "flag" and not const:
                fn.post.append("*flag = *flag != 0; /* .TRUE. is 1 */")
        else:
            return False
    return True


def emit_c(fns):
    out = ["/* fbind_gen.c — generated by gen_fortran.py from include/mpi.h: do not edit. */",
           '#include "fortran/fbind.h"', ""]
    for fn in fns:
        args = fn.fargs + ["MPI_Fint *ierror"] + fn.hidden
        out.append(f"void p{fn.name.lower()}_({', '.join(args)})")
        out.append("{")
        for line in fn.pre:
            out.append("    " + line)
        out.append(f"    int rc = {fn.name}({', '.join(fn.call)});")
        for line in fn.post:
            out.append("    " + line)
        out.append("    *ierror = rc;")
        out.append("}")
        out.append(f"FORTRAN_PMPI({fn.name.lower()}_)")
        out.append("")
    return "\n".join(out)


def constants(text, types=None):
    """Integer constants of mpi.h in order: (name, value); handle constants'
    C types into types[name] when given."""
    vals = {}
    types = {} if types is None else types
    for m in re.finditer(r"^#define (MPI_\w+) \(\((MPI_\w+)\)(0x[0-9a-fA-F]+)\)", text, re.M):
        vals[m.group(1)] = int(m.group(3), 16)
        types[m.group(1)] = m.group(2)
    for m in re.finditer(r"^#define (MPI_\w+) (-?\d+)\b", text, re.M):
        vals[m.group(1)] = int(m.group(2))
    for m in re.finditer(r"^#define (MPI_\w+) (MPI_\w+)\s*$", text, re.M):
        if m.group(2) in vals:
            vals[m.group(1)] = vals[m.group(2)]
            if m.group(2) in types:
                types[m.group(1)] = types[m.group(2)]
    for m in re.finditer(r"^\s+(MPI_\w+) = (-?(?:0x[0-9a-fA-F]+|\d+)),?\s*$", text, re.M):
        vals[m.group(1)] = int(m.group(2), 0)
    return [(k, v) for k, v in vals.items() if not re.match(r"MPI_F(08)?_", k)]


def emit_mpif(consts, nfuncs):
    L = ["! mpif.h — Skiff's MPI for Fortran (fixed and free form).",
         "! Generated by src/mpi/fortran/gen_fortran.py from mpi.h: do not edit.",
         f"! {nfuncs} MPI routines have Fortran bindings (docs/fortran.md).",
         "      INTEGER MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND",
         "      PARAMETER (MPI_ADDRESS_KIND=8)",
         "      PARAMETER (MPI_OFFSET_KIND=8)",
         "      PARAMETER (MPI_COUNT_KIND=8)",
         "      INTEGER MPI_INTEGER_KIND",
         "      PARAMETER (MPI_INTEGER_KIND=4)",
         "      INTEGER MPI_STATUS_SIZE, MPI_SOURCE, MPI_TAG, MPI_ERROR",
         "      PARAMETER (MPI_STATUS_SIZE=8)",
         "      PARAMETER (MPI_SOURCE=1, MPI_TAG=2, MPI_ERROR=3)"]
    for name, v in consts:
        L.append(f"      INTEGER {name}")
        L.append(f"      PARAMETER ({name}={v})")
    L += ["! Sentinels: C recognises them by address (gfortran names /X/ x_).",
          "      INTEGER MPI_BOTTOM, MPI_IN_PLACE",
          "      COMMON /SKIFF_FC_BOTTOM/ MPI_BOTTOM",
          "      COMMON /SKIFF_FC_IN_PLACE/ MPI_IN_PLACE",
          "      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)",
          "      COMMON /SKIFF_FC_STATUS_IGNORE/ MPI_STATUS_IGNORE",
          "      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
          "      COMMON /SKIFF_FC_STATUSES_IGNORE/ MPI_STATUSES_IGNORE",
          "      INTEGER MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)",
          "      COMMON /SKIFF_FC_UNWEIGHTED/ MPI_UNWEIGHTED",
          "      COMMON /SKIFF_FC_WEIGHTS_EMPTY/ MPI_WEIGHTS_EMPTY",
          "      INTEGER MPI_BUFFER_AUTOMATIC",
          "      COMMON /SKIFF_FC_BUFFER_AUTOMATIC/ MPI_BUFFER_AUTOMATIC",
          "      SAVE /SKIFF_FC_BUFFER_AUTOMATIC/",
          "      SAVE /SKIFF_FC_BOTTOM/, /SKIFF_FC_IN_PLACE/",
          "      SAVE /SKIFF_FC_STATUS_IGNORE/, /SKIFF_FC_STATUSES_IGNORE/",
          "      SAVE /SKIFF_FC_UNWEIGHTED/, /SKIFF_FC_WEIGHTS_EMPTY/",
          "      CHARACTER*1 MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1,1)",
          "      COMMON /SKIFF_FC_ARGV_NULL/ MPI_ARGV_NULL",
          "      COMMON /SKIFF_FC_ARGVS_NULL/ MPI_ARGVS_NULL",
          "      INTEGER MPI_ERRCODES_IGNORE(1)",
          "      COMMON /SKIFF_FC_ERRCODES_IGNORE/ MPI_ERRCODES_IGNORE",
          "      SAVE /SKIFF_FC_ARGV_NULL/, /SKIFF_FC_ARGVS_NULL/",
          "      SAVE /SKIFF_FC_ERRCODES_IGNORE/",
          "! Functions that do not return INTEGER",
          "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK",
          "      EXTERNAL MPI_WTIME, MPI_WTICK",
          "      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF",
          "      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF",
          "      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK",
          "      EXTERNAL PMPI_WTIME, PMPI_WTICK",
          "      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF",
          "      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF",
          "! The predefined attribute callbacks"]
    for k in ("COMM_", "TYPE_", "WIN_", ""):
        L.append(f"      EXTERNAL MPI_{k}NULL_COPY_FN, MPI_{k}DUP_FN")
        L.append(f"      EXTERNAL MPI_{k}NULL_DELETE_FN")
    L += [
          ""]
    for line in L:
        assert len(line) <= 72, line
    return "\n".join(L)


def emit_module(fns):
    """module mpi: mpif.h's declarations, explicit interfaces (gen_f08.py) and
    MPI_SIZEOF (any rank, TS 29113)."""
    sizeof_iface, sizeof_procs = gen_f08.sizeof_routines(optional_ierror=False)
    L = ["! mpi_mod.f90 — module mpi.  Generated by gen_fortran.py: do not edit.",
         "! Explicit interfaces for the generated bindings (docs/fortran.md).",
         "module mpi",
         "  implicit none",
         "  include 'mpif.h'",
         "  interface"]
    L += gen_f08.mpi_interfaces(fns, RAW_VOID)
    L += ["  end interface"] + sizeof_iface + ["contains"] + sizeof_procs
    L += ["end module mpi", ""]
    return "\n".join(L)


def main():
    text = open(os.path.join(ROOT, "include/mpi.h")).read()
    fns, large, skipped, same = [], [], [], []
    for ret, name, params in prototypes(text):
        if name in HAND or name in HAND_LARGE or C_ONLY.match(name):
            continue
        if name in NOT_YET or name in NOT_YET_LARGE:
            skipped.append(name)
            continue
        plist = [] if params == "void" else [parse_param(p) for p in params.split(",")]
        fn = Fn(name, plist)
        if ret == "int" and "..." not in params and convert(fn):
            (large if LARGE.match(name) else fns).append(fn)
        else:
            skipped.append(name)
    # a large-count form needs its plain form's generic, and must differ
    # from it in the types, kinds or ranks of its arguments
    plain = {fn.name: fn for fn in fns}
    for fn in list(large):
        base = plain.get(fn.name[:-2])
        if base is None:
            large.remove(fn)
            skipped.append(fn.name + " (no plain form)")
        elif gen_f08.ambiguous(base, fn, RAW_VOID):
            large.remove(fn)
            same.append(fn)  # mpi_f08 gives it only its explicit MPI_X_c name
    with open(output("src/mpi/fortran/fbind_gen.c"), "w") as f:
        f.write(emit_c(fns + large + same))
    with open(output("include/mpif.h"), "w") as f:
        f.write(emit_mpif(constants(text), len(fns) + len(HAND)))
    with open(output("src/mpi/fortran/mpi_mod.f90"), "w") as f:
        f.write(emit_module(fns))
    types = {}
    consts = constants(text, types)
    # handle constants of a kind mpi_f08 has no derived type for are left out
    typed = [(n, types[n], v) for n, v in consts if n in types and types[n] in HANDLES]
    ints = [(n, v) for n, v in consts if n not in types]
    with open(output("src/mpi/fortran/mpi_f08.f90"), "w") as f:
        f.write(gen_f08.emit_f08(fns, large, same, typed, ints, RAW_VOID))
    print(f"{len(fns)} generated + {len(HAND)} by hand; no binding: {' '.join(skipped)}")
    print(f"{len(large)} large-count forms in mpi_f08's generics; by their _c name only (the same "
          f"arguments as the plain form's): {' '.join(fn.name for fn in same)}")


main()
