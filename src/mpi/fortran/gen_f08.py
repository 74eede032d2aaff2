"""gen_f08.py — module mpi_f08 for gen_fortran.py.

Each MPI_X_f08 (generic name MPI_X) is a Fortran procedure that calls the
same C binding as mpif.h's MPI_X (fbind_gen.c, linkage name mpi_x_) through a
BIND(C) interface: the handle types are BIND(C) structs of one integer, so
they pass as the integer; MPI_Status is the 8-integer Fortran status;
TYPE(*), DIMENSION(..) buffers go through f08_section.c, which gives the
address and, for a non-contiguous array section passed with its own count and
datatype, a datatype describing the section.  ierror is optional.
"""
import re

HANDLE_TYPES = ["MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Op", "MPI_Info",
                "MPI_Errhandler", "MPI_Request", "MPI_Message", "MPI_Win", "MPI_Session"]
LOGICAL_SCALARS = {"flag", "commute", "weighted", "reorder", "high"}
LOGICAL_ARRAYS = {"periods", "remain_dims"}
KIND_OF = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Count": "MPI_COUNT_KIND",
           "MPI_Offset": "MPI_OFFSET_KIND"}


def number_decl(base, name, arr):
    """(Fortran type, dimension) of an int / MPI_Aint / MPI_Count argument."""
    b = base.rstrip(" *")
    if b == "int":
        logical = (name in LOGICAL_SCALARS and not arr) or name in LOGICAL_ARRAYS
        t = "logical" if logical else "integer"
    else:
        t = f"integer(kind={KIND_OF[b]})"
    dim = "(3, *)" if arr == "[][3]" else "(*)" if arr else ""
    if not dim and base.endswith("*") and "weights" in name:
        dim = "(*)"
    return t, dim


def wrap(line, indent):
    """Free-form lines of at most 132 columns, continued with &."""
    out = []
    while len(line) > 120:
        cut = line.rfind(", ", 0, 118) + 1
        out.append(line[:cut] + " &")
        line = indent + "    " + line[cut:].lstrip()
    out.append(line)
    return out


def f08_args(fn, raw_void):
    """(dummy declarations, interface declarations, call expressions, hidden
    lengths, prologue, epilogue) for fn's parameters."""
    dummies, iface, call, hidden, pre, post = [], [], [], [], [], []
    names = [n for _, n, _ in fn.params]
    bufs = [i for i, (c, n, a) in enumerate(fn.params)
            if c.replace("const ", "").strip() == "void *" and n not in raw_void]

    def triple(i):  # (buffer, count, datatype) of its own
        p = fn.params
        return (i + 2 < len(p) and p[i + 1][0] in ("int", "MPI_Count") and not p[i + 1][2] and
                p[i + 2][0] == "MPI_Datatype")
    own = len(bufs) > 0 and all(triple(i) for i in bufs)
    skip = set()
    for i, (ctype, name, arr) in enumerate(fn.params):
        base = ctype.replace("const ", "").strip()
        const = ctype.startswith("const")
        intent = "intent(in)" if const else ""
        if i in skip:
            continue
        if base == "void *" and name not in raw_void:
            dummies.append(f"type(*), dimension(..), {'intent(in), ' if const else ''}target :: {name}")
            iface.append(f"type(c_ptr), value :: {name}")
            if own:
                cnt, dt = fn.params[i + 1][1], fn.params[i + 2][1]
                ct, _ = number_decl(fn.params[i + 1][0], cnt, "")
                large = "_c" if fn.params[i + 1][0] == "MPI_Count" else ""
                dummies.append(f"{ct}, intent(in) :: {cnt}")
                dummies.append(f"type(MPI_Datatype), intent(in) :: {dt}")
                iface.append(f"{ct} :: {cnt}")
                iface.append(f"type(MPI_Datatype) :: {dt}")
                pre.append(f"n_{name} = {cnt}")
                pre.append(f"t_{name} = {dt}")
                pre.append(f"p_{name} = skiff_f08_section{large}({name}, n_{name}, t_{name}, "
                           f"made_{name}, e)")
                post.append(f"if (made_{name} /= 0) call skiff_f08_free(t_{name})")
                call += [f"p_{name}", f"n_{name}", f"t_{name}"]
                skip |= {i + 1, i + 2}
            else:
                pre.append(f"p_{name} = skiff_f08_addr({name}, e)")
                call.append(f"p_{name}")
            continue
        if base == "void *":  # addresses: baseptr, buffer_addr (C_PTR out), location
            if name == "location":
                dummies.append(f"type(*), dimension(..), target :: {name}")
                iface.append(f"type(c_ptr), value :: {name}")
                call.append(f"c_loc({name})")
            else:
                dummies.append(f"type(c_ptr) :: {name}")
                iface.append(f"type(c_ptr) :: {name}")
                call.append(name)
            continue
        if base in HANDLE_TYPES or base.rstrip(" *") in HANDLE_TYPES:
            t = base.rstrip(" *")
            dim = "(*)" if arr else ""
            it = "intent(in)" if (not base.endswith("*") and not arr) or const else "intent(inout)"
            dummies.append(f"type({t}), {it} :: {name}{dim}")
            iface.append(f"type({t}) :: {name}{dim}")
        elif base in ("MPI_Status *", "MPI_Status"):
            dim = "(*)" if arr else ""
            dummies.append(f"type(MPI_Status){', intent(in)' if const else ''} :: {name}{dim}")
            iface.append(f"type(MPI_Status) :: {name}{dim}")
        elif base in ("char *", "char"):
            dummies.append(f"character(len=*), {'intent(in)' if const else 'intent(out)'} :: {name}")
            iface.append(f"character(kind=c_char) :: {name}(*)")
            hidden.append(name)
        else:
            scalar = not arr and not base.endswith("*")
            t, dim = number_decl(base, name, arr)
            dummies.append(f"{t}{', intent(in)' if scalar or const else ''} :: {name}{dim}")
            iface.append(f"{t} :: {name}{dim}")
        call.append(name)
    return dummies, iface, call, hidden, pre, post, bufs


def f08_name(fn):
    """The specific procedure: MPI_Send_f08, and MPI_Send_f08c for MPI_Send_c."""
    return fn.name[:-2] + "_f08c" if is_large(fn) else fn.name + "_f08"


def is_large(fn):
    return fn.name.endswith("_c")


def generic_name(fn):
    return fn.name[:-2] if is_large(fn) else fn.name


def tkr(decl):
    """(type and kind, rank) of a dummy declaration, as generic resolution sees
    them: MPI_ADDRESS_KIND, MPI_COUNT_KIND and MPI_OFFSET_KIND are all 8."""
    t, _, rest = decl.partition(" :: ")
    t = t.split(", ")[0]
    if t.startswith("type(*)"):
        return "any", "any"
    t = re.sub(r"integer\(kind=MPI_(ADDRESS|COUNT|OFFSET)_KIND\)", "integer(8)", t)
    return t, rest.count(",") + 1 if "(" in rest else 0


def ambiguous(fn, large, raw_void):
    """True when large (MPI_X_c) cannot be a second specific of MPI_X's generic:
    its dummies have the same types, kinds and ranks, position by position
    (MPI_Type_get_extent_c: MPI_Count and MPI_Aint are both 8 bytes)."""
    sig = [tkr(d) for d in f08_args(fn, raw_void)[0]]
    return sig == [tkr(d) for d in f08_args(large, raw_void)[0]]


def emit_procedure(fn, raw_void):
    lower = fn.name.lower()
    proc = f08_name(fn)
    dummies, iface, call, hidden, pre, post, bufs = f08_args(fn, raw_void)
    argnames = [n for _, n, _ in fn.params]
    I = ["  interface"]
    cargs = argnames + ["ierror"] + [h + "_len" for h in hidden]  # the C binding's parameters
    I += wrap(f"    subroutine skiff_c_{lower[4:]}({', '.join(cargs)}) &", "    ")
    I.append(f"        bind(C, name=\"{lower}_\")")
    I.append("      import")
    I += ["      " + d for d in iface]
    I.append("      integer :: ierror")
    I += [f"      integer(c_size_t), value :: {h}_len" for h in hidden]
    I.append(f"    end subroutine skiff_c_{lower[4:]}")
    I.append("  end interface")
    P = wrap(f"  subroutine {proc}({', '.join(argnames + ['ierror'])})", "  ")
    P += ["    " + d for d in dummies]
    P.append("    integer, optional, intent(out) :: ierror")
    P.append("    integer :: e")
    for b in bufs:
        bn = fn.params[b][1]
        P.append(f"    type(c_ptr) :: p_{bn}")
        if any(l.startswith(f"n_{bn} =") for l in pre):
            ct = "integer(kind=MPI_COUNT_KIND)" if any(
                l.startswith(f"p_{bn} = skiff_f08_section_c(") for l in pre) else "integer"
            P.append(f"    {ct} :: n_{bn}")
            P.append(f"    integer :: made_{bn}")
            P.append(f"    type(MPI_Datatype) :: t_{bn}")
    P.append("    e = MPI_SUCCESS")
    P += ["    " + l for l in pre]
    args = ", ".join(call + ["e"] + [f"len({h}, c_size_t)" for h in hidden])
    P += wrap(f"    if (e == MPI_SUCCESS) call skiff_c_{lower[4:]}({args})", "    ")
    P += ["    " + l for l in post]
    P.append("    if (present(ierror)) ierror = e")
    P.append(f"  end subroutine {proc}")
    return I, P


HAND_F08 = """
  subroutine MPI_Init_f08(ierror)
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_init(e)
    if (present(ierror)) ierror = e
  end subroutine MPI_Init_f08
  subroutine MPI_Init_thread_f08(required, provided, ierror)
    integer, intent(in) :: required
    integer, intent(out) :: provided
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_init_thread(required, provided, e)
    if (present(ierror)) ierror = e
  end subroutine MPI_Init_thread_f08
  function MPI_Wtime() result(t)
    double precision :: t
    t = skiff_c_wtime()
  end function MPI_Wtime
  function MPI_Wtick() result(t)
    double precision :: t
    t = skiff_c_wtick()
  end function MPI_Wtick
  function MPI_Aint_add(base, disp) result(r)
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: base, disp
    integer(kind=MPI_ADDRESS_KIND) :: r
    r = skiff_c_aint_add(base, disp)
  end function MPI_Aint_add
  function MPI_Aint_diff(addr1, addr2) result(r)
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr1, addr2
    integer(kind=MPI_ADDRESS_KIND) :: r
    r = skiff_c_aint_diff(addr1, addr2)
  end function MPI_Aint_diff
  subroutine MPI_F_sync_reg_f08(buf)
    type(*), dimension(..), asynchronous :: buf
    call skiff_c_f_sync_reg(buf)
  end subroutine MPI_F_sync_reg_f08
  subroutine MPI_Info_create_env_f08(info, ierror)
    type(MPI_Info), intent(out) :: info
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_info_create_env(info, e)
    if (present(ierror)) ierror = e
  end subroutine MPI_Info_create_env_f08
  subroutine MPI_Comm_spawn_f08(command, argv, maxprocs, info, root, comm, intercomm, &
      array_of_errcodes, ierror)
    character(len=*), intent(in) :: command, argv(*)
    integer, intent(in) :: maxprocs, root
    type(MPI_Info), intent(in) :: info
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Comm), intent(out) :: intercomm
    integer :: array_of_errcodes(*)
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, &
        array_of_errcodes, e, len(command, c_size_t), len(argv, c_size_t))
    if (present(ierror)) ierror = e
  end subroutine MPI_Comm_spawn_f08
  subroutine MPI_Comm_spawn_multiple_f08(count, array_of_commands, array_of_argv, &
      array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
    integer, intent(in) :: count, array_of_maxprocs(*), root
    character(len=*), intent(in) :: array_of_commands(*), array_of_argv(count, *)
    type(MPI_Info), intent(in) :: array_of_info(*)
    type(MPI_Comm), intent(in) :: comm
    type(MPI_Comm), intent(out) :: intercomm
    integer :: array_of_errcodes(*)
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_comm_spawn_multiple(count, array_of_commands, array_of_argv, &
        array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes, e, &
        len(array_of_commands, c_size_t), len(array_of_argv, c_size_t))
    if (present(ierror)) ierror = e
  end subroutine MPI_Comm_spawn_multiple_f08
  subroutine MPI_Grequest_start_f08(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
    procedure(MPI_Grequest_query_function) :: query_fn
    procedure(MPI_Grequest_free_function) :: free_fn
    procedure(MPI_Grequest_cancel_function) :: cancel_fn
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state
    type(MPI_Request), intent(out) :: request
    integer, optional, intent(out) :: ierror
    integer :: e
    call skiff_c_grequest_start(c_funloc(query_fn), c_funloc(free_fn), c_funloc(cancel_fn), &
        extra_state, request, e)
    if (present(ierror)) ierror = e
  end subroutine MPI_Grequest_start_f08
"""

HAND_F08_IFACE = """
  interface
    subroutine skiff_c_init(ierror) bind(C, name="mpi_init_")
      integer :: ierror
    end subroutine skiff_c_init
    subroutine skiff_c_init_thread(required, provided, ierror) bind(C, name="mpi_init_thread_")
      integer :: required, provided, ierror
    end subroutine skiff_c_init_thread
    function skiff_c_wtime() bind(C, name="mpi_wtime_")
      import
      real(c_double) :: skiff_c_wtime
    end function skiff_c_wtime
    function skiff_c_wtick() bind(C, name="mpi_wtick_")
      import
      real(c_double) :: skiff_c_wtick
    end function skiff_c_wtick
    function skiff_c_aint_add(a, b) bind(C, name="mpi_aint_add_")
      import
      integer(c_intptr_t) :: a, b, skiff_c_aint_add
    end function skiff_c_aint_add
    function skiff_c_aint_diff(a, b) bind(C, name="mpi_aint_diff_")
      import
      integer(c_intptr_t) :: a, b, skiff_c_aint_diff
    end function skiff_c_aint_diff
    subroutine skiff_c_f_sync_reg(buf) bind(C, name="mpi_f_sync_reg_")
      type(*), dimension(..), asynchronous :: buf
    end subroutine skiff_c_f_sync_reg
    subroutine skiff_c_info_create_env(info, ierror) bind(C, name="mpi_info_create_env_")
      import
      type(MPI_Info) :: info
      integer :: ierror
    end subroutine skiff_c_info_create_env
    subroutine skiff_c_comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, &
        errcodes, ierror, command_len, argv_len) bind(C, name="mpi_comm_spawn_")
      import
      character(kind=c_char) :: command(*), argv(*)
      integer :: maxprocs, root, errcodes(*), ierror
      type(MPI_Info) :: info
      type(MPI_Comm) :: comm, intercomm
      integer(c_size_t), value :: command_len, argv_len
    end subroutine skiff_c_comm_spawn
    subroutine skiff_c_comm_spawn_multiple(count, commands, argvs, maxprocs, infos, root, &
        comm, intercomm, errcodes, ierror, commands_len, argv_len) &
        bind(C, name="mpi_comm_spawn_multiple_")
      import
      character(kind=c_char) :: commands(*), argvs(*)
      integer :: count, maxprocs(*), root, errcodes(*), ierror
      type(MPI_Info) :: infos(*)
      type(MPI_Comm) :: comm, intercomm
      integer(c_size_t), value :: commands_len, argv_len
    end subroutine skiff_c_comm_spawn_multiple
    subroutine skiff_c_grequest_start(query, free, cancel, extra_state, request, ierror) &
        bind(C, name="mpi_grequest_start_")
      import
      type(c_funptr), value :: query, free, cancel
      integer(kind=c_intptr_t) :: extra_state
      type(MPI_Request) :: request
      integer :: ierror
    end subroutine skiff_c_grequest_start
    function skiff_f08_section(buf, count, datatype, made, ierror) bind(C, name="skiff_f08_section")
      import
      type(*), dimension(..) :: buf
      integer :: count, made, ierror
      type(MPI_Datatype) :: datatype
      type(c_ptr) :: skiff_f08_section
    end function skiff_f08_section
    function skiff_f08_section_c(buf, count, datatype, made, ierror) bind(C, name="skiff_f08_section_c")
      import
      type(*), dimension(..) :: buf
      integer(kind=MPI_COUNT_KIND) :: count
      integer :: made, ierror
      type(MPI_Datatype) :: datatype
      type(c_ptr) :: skiff_f08_section_c
    end function skiff_f08_section_c
    function skiff_f08_addr(buf, ierror) bind(C, name="skiff_f08_addr")
      import
      type(*), dimension(..) :: buf
      integer :: ierror
      type(c_ptr) :: skiff_f08_addr
    end function skiff_f08_addr
    subroutine skiff_f08_free(datatype) bind(C, name="skiff_f08_free")
      import
      type(MPI_Datatype) :: datatype
    end subroutine skiff_f08_free
  end interface
  abstract interface
    subroutine MPI_User_function(invec, inoutvec, len, datatype)
      import
      type(c_ptr), value :: invec, inoutvec
      integer :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function
    subroutine MPI_User_function_c(invec, inoutvec, len, datatype)
      import
      type(c_ptr), value :: invec, inoutvec
      integer(kind=MPI_COUNT_KIND) :: len
      type(MPI_Datatype) :: datatype
    end subroutine MPI_User_function_c
    subroutine MPI_Grequest_query_function(extra_state, status, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      type(MPI_Status) :: status
      integer :: ierror
    end subroutine MPI_Grequest_query_function
    subroutine MPI_Grequest_free_function(extra_state, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      integer :: ierror
    end subroutine MPI_Grequest_free_function
    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)
      import
      integer(kind=MPI_ADDRESS_KIND) :: extra_state
      logical :: complete
      integer :: ierror
    end subroutine MPI_Grequest_cancel_function
  end interface
"""


SIZEOF_KINDS = [("integer", k) for k in (1, 2, 4, 8, 16)] + \
    [("real", k) for k in (4, 8, 16)] + [("complex", k) for k in (4, 8, 16)] + \
    [("logical", k) for k in (1, 2, 4, 8)] + [("character", 1)]


def sizeof_routines(optional_ierror):
    """Generic MPI_SIZEOF (any rank, TS 29113): its interface and procedures."""
    names = [f"skiff_sizeof_{t[:2]}{k}" for t, k in SIZEOF_KINDS]
    iface = ["  interface MPI_SIZEOF"] + [f"    module procedure {n}" for n in names]
    iface.append("  end interface")
    procs = []
    for (t, k), n in zip(SIZEOF_KINDS, names):
        decl = "character(len=*)" if t == "character" else f"{t}(kind={k})"
        procs += [f"  subroutine {n}(x, size, ierror)",
                  f"    {decl}, dimension(..), intent(in) :: x",
                  "    integer, intent(out) :: size",
                  f"    integer{', optional' if optional_ierror else ''}, intent(out) :: ierror",
                  "    size = storage_size(x) / 8" + (" / max(len(x), 1)" if t == "character" else ""),
                  ("    if (present(ierror)) " if optional_ierror else "    ") + "ierror = MPI_SUCCESS",
                  f"  end subroutine {n}"]
    return iface, procs


def op_create_routines():
    """MPI_Op_create and mpi_f08's MPI_Op_create_c (a name of its own: the
    specifics of a generic cannot differ only in a dummy procedure's
    interface), user functions written in Fortran, through fbind.c."""
    I, P = ["  interface"], []
    for sfx, fn in (("", "MPI_User_function"), ("_c", "MPI_User_function_c")):
        I += [f"    subroutine skiff_c_op_create{sfx}(fn, commute, op, ierror) "
              f"bind(C, name=\"mpi_op_create{sfx}_\")",
              "      import", "      type(c_funptr), value :: fn", "      logical :: commute",
              "      type(MPI_Op) :: op", "      integer :: ierror",
              f"    end subroutine skiff_c_op_create{sfx}"]
        P += [f"  subroutine MPI_Op_create{sfx}_f08(user_fn, commute, op, ierror)",
              f"    procedure({fn}) :: user_fn", "    logical, intent(in) :: commute",
              "    type(MPI_Op), intent(out) :: op", "    integer, optional, intent(out) :: ierror",
              "    integer :: e", f"    call skiff_c_op_create{sfx}(c_funloc(user_fn), commute, op, e)",
              "    if (present(ierror)) ierror = e", f"  end subroutine MPI_Op_create{sfx}_f08"]
    I.append("  end interface")
    return I, P, ["MPI_Op_create", "MPI_Op_create_c"]


ATTR_KINDS = (("Comm", "MPI_Comm"), ("Type", "MPI_Datatype"), ("Win", "MPI_Win"))
EH_KINDS = (("Comm", "MPI_Comm"), ("Win", "MPI_Win"), ("Session", "MPI_Session"))


def errhandler_routines():
    """MPI_{Comm,Win,Session}_create_errhandler with handlers written in
    Fortran: the abstract interfaces of the handlers, and procedures that pass
    the handler's address to the C bindings of fbind.c."""
    I, P = ["  abstract interface"], []
    for kind, t in EH_KINDS:
        k = kind.lower()
        I += [f"    subroutine MPI_{kind}_errhandler_function({k}, error_code)", "      import",
              f"      type({t}) :: {k}", "      integer :: error_code",
              f"    end subroutine MPI_{kind}_errhandler_function"]
    I += ["  end interface", "  interface"]
    for kind, t in EH_KINDS:
        k = kind.lower()
        I += [f"    subroutine skiff_c_{k}_create_errhandler(fn, errhandler, ierror) &",
              f"        bind(C, name=\"mpi_{k}_create_errhandler_\")", "      import",
              "      type(c_funptr), value :: fn", "      type(MPI_Errhandler) :: errhandler",
              "      integer :: ierror", f"    end subroutine skiff_c_{k}_create_errhandler"]
        P += [f"  subroutine MPI_{kind}_create_errhandler_f08({k}_errhandler_fn, errhandler, ierror)",
              f"    procedure(MPI_{kind}_errhandler_function) :: {k}_errhandler_fn",
              "    type(MPI_Errhandler), intent(out) :: errhandler",
              "    integer, optional, intent(out) :: ierror", "    integer :: e",
              f"    call skiff_c_{k}_create_errhandler(c_funloc({k}_errhandler_fn), errhandler, e)",
              "    if (present(ierror)) ierror = e",
              f"  end subroutine MPI_{kind}_create_errhandler_f08"]
    I.append("  end interface")
    return I, P, [f"MPI_{k}_create_errhandler" for k, _ in EH_KINDS]


def attr_routines():
    """MPI_{Comm,Type,Win}_{set,get}_attr: interfaces and procedures (the C
    bindings of fbind.c take and give the INTEGER(KIND=MPI_ADDRESS_KIND) value)."""
    I, P = ["  interface"], []
    for kind, t in ATTR_KINDS:
        k = kind.lower()
        I += [f"    subroutine skiff_c_{k}_set_attr(obj, keyval, val, ierror) bind(C, name=\"mpi_{k}_set_attr_\")",
              "      import", f"      type({t}) :: obj", "      integer :: keyval, ierror",
              "      integer(kind=c_intptr_t) :: val", f"    end subroutine skiff_c_{k}_set_attr",
              f"    subroutine skiff_c_{k}_get_attr(obj, keyval, val, flag, ierror) &",
              f"        bind(C, name=\"mpi_{k}_get_attr_\")",
              "      import", f"      type({t}) :: obj", "      integer :: keyval, ierror",
              "      integer(kind=c_intptr_t) :: val", "      logical :: flag",
              f"    end subroutine skiff_c_{k}_get_attr"]
        P += [f"  subroutine MPI_{kind}_set_attr_f08(obj, keyval, attribute_val, ierror)",
              f"    type({t}), intent(in) :: obj", "    integer, intent(in) :: keyval",
              "    integer(kind=MPI_ADDRESS_KIND), intent(in) :: attribute_val",
              "    integer, optional, intent(out) :: ierror", "    integer :: e",
              f"    call skiff_c_{k}_set_attr(obj, keyval, attribute_val, e)",
              "    if (present(ierror)) ierror = e", f"  end subroutine MPI_{kind}_set_attr_f08",
              f"  subroutine MPI_{kind}_get_attr_f08(obj, keyval, attribute_val, flag, ierror)",
              f"    type({t}), intent(in) :: obj", "    integer, intent(in) :: keyval",
              "    integer(kind=MPI_ADDRESS_KIND), intent(out) :: attribute_val",
              "    logical, intent(out) :: flag",
              "    integer, optional, intent(out) :: ierror", "    integer :: e",
              f"    call skiff_c_{k}_get_attr(obj, keyval, attribute_val, flag, e)",
              "    if (present(ierror)) ierror = e", f"  end subroutine MPI_{kind}_get_attr_f08"]
    I.append("  end interface")
    names = [f"MPI_{k}_{op}_attr" for k, _ in ATTR_KINDS for op in ("set", "get")]
    ki, kp, knames = keyval_routines()
    ei, ep, enames = errhandler_routines()
    oi, op, onames = op_create_routines()
    return I + ki + ei + oi, P + kp + ep + op, names + knames + enames + onames


def keyval_routines():
    """MPI_{Comm,Type,Win}_create_keyval with callbacks written in Fortran:
    the abstract interfaces of the callbacks, the predefined ones (C
    functions of fbind.c, linkage names mpi_comm_dup_fn_ ...), and procedures
    that pass the callbacks' addresses to the C bindings of fbind.c."""
    I, P = ["  abstract interface"], []
    for kind, t in ATTR_KINDS:
        k = kind.lower()
        old = {"Comm": "oldcomm", "Type": "oldtype", "Win": "oldwin"}[kind]
        obj = {"Comm": "comm", "Type": "datatype", "Win": "win"}[kind]
        I += [f"    subroutine MPI_{kind}_copy_attr_function({old}, {k}_keyval, extra_state, &",
              "        attribute_val_in, attribute_val_out, flag, ierror)",
              "      import", f"      type({t}) :: {old}", f"      integer :: {k}_keyval, ierror",
              "      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out",
              "      logical :: flag", f"    end subroutine MPI_{kind}_copy_attr_function",
              f"    subroutine MPI_{kind}_delete_attr_function({obj}, {k}_keyval, attribute_val, &",
              "        extra_state, ierror)",
              "      import", f"      type({t}) :: {obj}", f"      integer :: {k}_keyval, ierror",
              "      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state",
              f"    end subroutine MPI_{kind}_delete_attr_function"]
    I.append("  end interface")
    for kind, t in ATTR_KINDS:
        k, K = kind.lower(), kind.upper()
        I += [f"  procedure(MPI_{kind}_copy_attr_function) :: MPI_{K}_NULL_COPY_FN, MPI_{K}_DUP_FN",
              f"  procedure(MPI_{kind}_delete_attr_function) :: MPI_{K}_NULL_DELETE_FN"]
    I.append("  interface")
    for kind, t in ATTR_KINDS:
        k = kind.lower()
        I += [f"    subroutine skiff_c_{k}_create_keyval(copy, del, keyval, extra_state, ierror) &",
              f"        bind(C, name=\"mpi_{k}_create_keyval_\")",
              "      import", "      type(c_funptr), value :: copy, del",
              "      integer :: keyval, ierror", "      integer(kind=c_intptr_t) :: extra_state",
              f"    end subroutine skiff_c_{k}_create_keyval"]
        P += [f"  subroutine MPI_{kind}_create_keyval_f08({k}_copy_attr_fn, {k}_delete_attr_fn, &",
              f"      {k}_keyval, extra_state, ierror)",
              f"    procedure(MPI_{kind}_copy_attr_function) :: {k}_copy_attr_fn",
              f"    procedure(MPI_{kind}_delete_attr_function) :: {k}_delete_attr_fn",
              f"    integer, intent(out) :: {k}_keyval",
              "    integer(kind=MPI_ADDRESS_KIND), intent(in) :: extra_state",
              "    integer, optional, intent(out) :: ierror", "    integer :: e",
              f"    call skiff_c_{k}_create_keyval(c_funloc({k}_copy_attr_fn), c_funloc({k}_delete_attr_fn), &",
              f"        {k}_keyval, extra_state, e)",
              "    if (present(ierror)) ierror = e", f"  end subroutine MPI_{kind}_create_keyval_f08"]
    I.append("  end interface")
    return I, P, [f"MPI_{k}_create_keyval" for k, _ in ATTR_KINDS]


def emit_f08(fns, large, explicit, typed_consts, int_consts, raw_void):
    """fns: the bindings, each the generic's specific MPI_X_f08; large: the
    MPI_X_c bindings, each its generic's second specific MPI_X_f08c with
    INTEGER(KIND=MPI_COUNT_KIND) counts; explicit: MPI_X_c bindings whose
    arguments resolve as MPI_X's do (ambiguous), each the only specific of a
    generic of its own name, as the standard names them."""
    L = ["! mpi_f08.f90 — module mpi_f08.  Generated by gen_fortran.py: do not edit.",
         "! Procedures call the C bindings of mpif.h through BIND(C) interfaces (docs/fortran.md).",
         "module mpi_f08",
         "  use, intrinsic :: iso_c_binding",
         "  implicit none",
         "  integer, parameter :: MPI_ADDRESS_KIND = c_intptr_t, MPI_OFFSET_KIND = 8, MPI_COUNT_KIND = 8",
         "  integer, parameter :: MPI_INTEGER_KIND = 4, MPI_STATUS_SIZE = 8",
         "  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .true.",
         "  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false."]
    for t in HANDLE_TYPES:
        L += [f"  type, bind(C) :: {t}", "    integer(c_int) :: MPI_VAL", f"  end type {t}"]
    L += ["  type, bind(C) :: MPI_Status",
          "    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
          "    integer(c_int) :: internal(5)",
          "  end type MPI_Status"]
    for name, t, v in typed_consts:
        L.append(f"  type({t}), parameter :: {name} = {t}({v})")
    for name, v in int_consts:
        L.append(f"  integer, parameter :: {name} = {v}")
    L += ["  ! sentinels: the same common blocks as mpif.h's",
          "  integer :: MPI_BOTTOM, MPI_IN_PLACE",
          "  common /skiff_fc_bottom/ MPI_BOTTOM",
          "  common /skiff_fc_in_place/ MPI_IN_PLACE",
          "  type(MPI_Status) :: MPI_STATUS_IGNORE",
          "  common /skiff_fc_status_ignore/ MPI_STATUS_IGNORE",
          "  type(MPI_Status) :: MPI_STATUSES_IGNORE(1)",
          "  common /skiff_fc_statuses_ignore/ MPI_STATUSES_IGNORE",
          "  integer :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)",
          "  common /skiff_fc_unweighted/ MPI_UNWEIGHTED",
          "  common /skiff_fc_weights_empty/ MPI_WEIGHTS_EMPTY",
          "  integer :: MPI_BUFFER_AUTOMATIC",
          "  common /skiff_fc_buffer_automatic/ MPI_BUFFER_AUTOMATIC",
          "  save /skiff_fc_buffer_automatic/",
          "  save /skiff_fc_bottom/, /skiff_fc_in_place/, /skiff_fc_status_ignore/",
          "  save /skiff_fc_statuses_ignore/, /skiff_fc_unweighted/, /skiff_fc_weights_empty/",
          "  character(len=1) :: MPI_ARGV_NULL(1), MPI_ARGVS_NULL(1, 1)",
          "  common /skiff_fc_argv_null/ MPI_ARGV_NULL",
          "  common /skiff_fc_argvs_null/ MPI_ARGVS_NULL",
          "  integer :: MPI_ERRCODES_IGNORE(1)",
          "  common /skiff_fc_errcodes_ignore/ MPI_ERRCODES_IGNORE",
          "  save /skiff_fc_argv_null/, /skiff_fc_argvs_null/, /skiff_fc_errcodes_ignore/"]
    L.append(HAND_F08_IFACE.rstrip("\n"))
    ifaces, procs, attr_names = attr_routines()
    specifics = {}
    for fn in fns + large + explicit:
        i, p = emit_procedure(fn, raw_void)
        ifaces += i
        procs += p
        specifics.setdefault(fn.name if fn in explicit else generic_name(fn),
                             []).append(f08_name(fn))
    for g in ["MPI_Init", "MPI_Init_thread", "MPI_Grequest_start",
              "MPI_Info_create_env", "MPI_F_sync_reg", "MPI_Comm_spawn",
              "MPI_Comm_spawn_multiple"] + attr_names:
        specifics[g] = [g + "_f08"]
    L += ifaces
    for g, procs_of_g in specifics.items():
        L += [f"  interface {g}", f"    module procedure {', '.join(procs_of_g)}", f"  end interface {g}"]
    for op, fname in (("==", "eq"), ("/=", "ne")):
        L.append(f"  interface operator({op})")
        L += [f"    module procedure skiff_{fname}_{t[4:].lower()}" for t in HANDLE_TYPES]
        L.append("  end interface")
    sizeof_iface, sizeof_procs = sizeof_routines(optional_ierror=True)
    L += sizeof_iface
    L.append("contains")
    L.append(HAND_F08.strip("\n"))
    L += sizeof_procs
    L += procs
    for t in HANDLE_TYPES:
        s = t[4:].lower()
        for fname, op in (("eq", "=="), ("ne", "/=")):
            L += [f"  elemental logical function skiff_{fname}_{s}(a, b)",
                  f"    type({t}), intent(in) :: a, b",
                  f"    skiff_{fname}_{s} = a%MPI_VAL {op} b%MPI_VAL",
                  f"  end function skiff_{fname}_{s}"]
    L += ["end module mpi_f08", ""]
    return "\n".join(L)


def mpi_interfaces(fns, raw_void):
    """Explicit interfaces of module mpi (handles are INTEGERs, buffers are
    TYPE(*) without argument checking, as gfortran allows).  Routines with
    address arguments (baseptr, buffer_addr) keep implicit interfaces, so
    both INTEGER(KIND=MPI_ADDRESS_KIND) and TYPE(C_PTR) callers build."""
    L = []
    for fn in fns:
        if any(n in raw_void and n != "location" for _, n, _ in fn.params):
            continue
        args = [n for _, n, _ in fn.params] + ["ierror"]
        L += wrap(f"    subroutine {fn.name}({', '.join(args)})", "    ")
        L.append("      import")
        decls = []
        for ctype, name, arr in fn.params:
            base = ctype.replace("const ", "").strip()
            if base == "void *":
                L.append(f"      !GCC$ ATTRIBUTES NO_ARG_CHECK :: {name}")
                decls.append(f"type(*), dimension(*) :: {name}")
            elif base.rstrip(" *") in HANDLE_TYPES:
                decls.append(f"integer :: {name}{'(*)' if arr else ''}")
            elif base == "MPI_Status *":
                decls.append(f"integer :: {name}(MPI_STATUS_SIZE)")
            elif base == "MPI_Status":
                decls.append(f"integer :: {name}(MPI_STATUS_SIZE, *)")
            elif base in ("char *", "char"):
                decls.append(f"character(len=*) :: {name}")
            else:
                t, dim = number_decl(base, name, arr)
                decls.append(f"{t} :: {name}{dim}")
        L += ["      " + d for d in decls]
        L.append("      integer :: ierror")
        L.append(f"    end subroutine {fn.name}")
    return L
