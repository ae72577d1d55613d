"""The `use mpi_f08` modules' source, written by gen_bindings.py from the same table as `use mpi`.

Three modules in one file, all over the C wrappers `use mpi` already calls (no second layer):
  mpi_f08_types        the handle types (TYPE(MPI_Comm) ... with INTEGER :: MPI_VAL), TYPE(MPI_Status)
                       (BIND(C), the C struct's layout), named constants as those types, the
                       sentinels, ==/\\= on handles, the callback interfaces;
  ftmpi_f08_externals  an interface for each C wrapper (`mpi_send_`...) with the derived types in
                       place of INTEGERs: a handle is passed by reference, and TYPE(MPI_Comm) has the
                       layout of an INTEGER, so the C wrapper reads it as it reads `use mpi`'s;
  mpi_f08              generic names (MPI_Send, and PMPI_Send) with the specific names of MPI-3.1
                       17.1.5, MPI_Send_f08ts (choice buffers TYPE(*), DIMENSION(..)) or _f08:
                       INTEGER, OPTIONAL :: ierror. The specifics follow the modules as external
                       procedures (a tool's own MPI_Send_f08ts takes the library's place); each
                       calls its C wrapper (PMPI_Send_f08ts: pmpi_send_) and copies ierror out.

Choice buffers reach the C wrapper through an assumed-size dummy, so gfortran copies a
non-contiguous actual in and out around a blocking call (correct, as with `use mpi`). A nonblocking
or persistent call keeps the buffer after it returns, so there a strided section is passed as the
section itself (MPI_SUBARRAYS_SUPPORTED = .TRUE., MPI-3.1 17.1.12; _section_call): a datatype over
it for one-buffer calls and predefined reductions (src/fortran_f08_section*.c), else a temporary
that the completion calls copy back and free (src/fortran_f08_staged.c). A contiguous actual takes
the unchanged path. MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE. (gfortran does not promise it; use
MPI_F_sync_reg).
"""
import re

import gen_interfaces
import gen_sizeof

HANDLES = ["MPI_Comm", "MPI_Datatype", "MPI_Group", "MPI_Request", "MPI_Op", "MPI_Errhandler", "MPI_Info",
           "MPI_Message"]
# Callback dummies with an MPI-3 abstract interface in mpi_f08_types (the others stay EXTERNAL).
CALLBACK_INTERFACES = {"MPI_User_function": "MPI_User_function",
                       "MPI_Comm_errhandler_function": "MPI_Comm_errhandler_function",
                       "MPI_Handler_function": "MPI_Comm_errhandler_function"}
# Hand-written interfaces (gen_interfaces.MANUAL_INTERFACES) name their handles by argument name.
MANUAL_HANDLE_NAMES = {"comm": "MPI_Comm", "info": "MPI_Info", "datatype": "MPI_Datatype",
                       "oldtype": "MPI_Datatype", "newtype": "MPI_Datatype",
                       "array_of_types": "MPI_Datatype", "array_of_requests": "MPI_Request",
                      "request": "MPI_Request"}
# Calls whose f08 body is written by hand in src/mpi_f08_special.f90 (the generic name is generated).
SPECIAL = {"MPI_Get_address", "MPI_Address", "MPI_Buffer_detach", "MPI_Alloc_mem"}
# Procedures of mpi_f08 only (MPI-3.1 17.2.5), and the address functions (MPI_Aint_add/diff,
# plain Fortran there, C functions for `use mpi`), written in src/mpi_f08_special.f90.
F08_ONLY = ["MPI_Status_f2f08", "MPI_Status_f082f", "MPI_Aint_add", "MPI_Aint_diff"]
# A buffer the call keeps after it returns: ASYNCHRONOUS, and a strided section passed as it is.
KEEPS_BUFFER = re.compile(r"^MPI_(I(?!nfo|ntercomm|nit)[a-z]\w*|\w+_init|Buffer_attach)$")
# Nonblocking reductions whose strided sections fortran_f08_section_coll.c handles (its numbering).
SECTION_REDUCTIONS = {"MPI_Iallreduce": 1, "MPI_Ireduce": 2, "MPI_Iscan": 3, "MPI_Iexscan": 4}
INDENT = "    "
# Every generated call twice: MPI_Send_f08ts over mpi_send_, its profiling name PMPI_Send_f08ts
# over pmpi_send_ (MPI-3.1 14.2, 17.1.5).
LAYERS = ("", "P")


def _wrap(line, width=120):
    """Free-form lines split with & before gfortran's 132-column limit."""
    out = []
    while len(line) > width:
        cut = line.rfind(", ", 0, width) + 1
        if cut <= 0:
            break
        out.append(line[:cut] + " &")
        line = "      " + line[cut:].lstrip()
    return out + [line]


def constant_types(text):
    """{name: handle type} for every #define whose value is a cast to a handle (following aliases)."""
    raw = {m.group(1): m.group(2).strip() for m in
           re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.+?)[ \t]*$", text, flags=re.M)}
    types = {}
    for name in raw:
        v, depth = raw[name], 0
        while v in raw and depth < 8:
            v, depth = raw[v], depth + 1
        m = re.match(r"\(*\s*(MPI_\w+)\s*\)", v)
        if m and m.group(1) in HANDLES:
            types[name] = m.group(1)
    return types


def _f08_declaration(call, p, raw):
    """Declaration of one C parameter in the f08 procedure (raw=False) or in its external (raw=True)."""
    intent = "" if raw or not p.const else ", intent(in)"
    array = ", dimension(*)" if p.dims or (call, p.name) in gen_interfaces.ARRAY_POINTERS else ""
    if p.kind == "buffer":
        if raw:
            return gen_interfaces._BUF
        keep = ", asynchronous" if KEEPS_BUFFER.match(call) else ""
        return "type(*), dimension(..)" + intent + keep
    if p.kind in ("handle", "pointer") and p.base in HANDLES:
        return f"type({p.base})" + array + ("" if raw else ", intent(in)" if p.kind == "handle" else intent)
    if p.kind in ("status", "status_in"):
        return "type(MPI_Status)" + ("" if raw or p.kind == "status" else ", intent(in)")
    if p.kind == "statuses":
        return "type(MPI_Status), dimension(*)"
    if p.kind == "callback" and not raw:
        return f"procedure({CALLBACK_INTERFACES[p.base]})"
    decl = gen_interfaces._declaration(call, p)
    return decl + ("" if raw or p.kind == "string_out" else ", intent(in)" if p.kind == "value" else intent)


def _manual_declaration(name, decl, raw):
    """The f08 form of a hand-written `use mpi` interface's declaration."""
    if decl == gen_interfaces._BUF:
        return decl if raw else "type(*), dimension(..)"
    if "MPI_STATUS_SIZE, *" in decl:
        return "type(MPI_Status), dimension(*)"
    if "MPI_STATUS_SIZE" in decl:
        return "type(MPI_Status)"
    if name in MANUAL_HANDLE_NAMES:
        return decl.replace("integer", f"type({MANUAL_HANDLE_NAMES[name]})", 1)
    return decl


def _declare(args):
    lines = []
    for a, decl in args:
        if decl == gen_interfaces._BUF:
            lines += [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a}", f"type(*), dimension(*) :: {a}"]
        else:
            lines.append(f"{decl} :: {a}")
    return lines


def _external(name, args):
    """Interface body of the C wrapper `name.lower()_` with the derived types (module externals)."""
    lines = [f"subroutine {name}({', '.join(a for a, _ in args)})",
             "  import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND, "
             + ", ".join(HANDLES + ["MPI_Status"]), "  implicit none"]
    lines += ["  " + l for l in _declare(args)]
    lines.append(f"end subroutine {name}")
    return lines


def _section_call(name, names, buffers, comm, call, layer):
    """(lines run when a kept buffer is not contiguous, local declarations they need)."""
    if name in SECTION_REDUCTIONS:
        # -1: not a case for a section datatype (a user-defined operation, an intercommunicator).
        root = "root" if "root" in names else "0"
        staged, extra = _staged_call(name, names, buffers, comm, call, layer)
        return ([f"    call ftmpi_f08_reduction_section({SECTION_REDUCTIONS[name]}, sendbuf, recvbuf, count, "
                 f"datatype, op, {root}, {comm}, request, ierror_c)",
                 "    if (ierror_c == -1) then"] + ["  " + l for l in staged] + ["    end if"], extra)
    # MPI_Imrecv names no communicator (its message does): a section it cannot take is
    # reported to MPI_COMM_WORLD's handler, as any error without a communicator.
    if len(buffers) == 1 and {"count", "datatype"} <= set(names) and (
            comm != "MPI_COMM_WORLD" or name == "MPI_Imrecv"):
        # The section's first element and a datatype over it (fortran_f08_section.c), count 1.
        new = {buffers[0][0]: "section_bytes", "count": "section_count", "datatype": "section_type"}
        sargs = ", ".join([new.get(a, a) for a in names] + ["ierror_c"])
        return ([f"    call ftmpi_f08_section_args({buffers[0][0]}, count, datatype, {comm}, section_base, "
                 "section_count, section_type, ierror_c)",
                 "    if (ierror_c == MPI_SUCCESS) then",
                 "      call c_f_pointer(section_base, section_bytes, [1])",
                 f"      call {layer}{name}({sargs})",
                 f"      if (section_type /= datatype) call {layer}MPI_Type_free(section_type, ierror_free)",
                 "    end if"],
                ["  type(c_ptr) :: section_base", "  integer(c_int8_t), pointer, contiguous :: section_bytes(:)",
                 "  integer :: section_count, ierror_free", "  type(MPI_Datatype) :: section_type"])
    if "request" in names and comm != "MPI_COMM_WORLD":
        return _staged_call(name, names, buffers, comm, call, layer)
    if name == "MPI_Buffer_attach":  # MPI's own memory until detached: a block stands in (C)
        return (["    call ftmpi_f08_buffer_attach_section(buffer, size, ierror_c)"], [])
    raise SystemExit(f"gen_f08: {name} keeps a buffer; say how a strided section is passed to it")


def _staged_call(name, names, buffers, comm, call, layer):
    """The call on temporaries holding the sections (fortran_f08_staged.c), bound to the request."""
    lines, cond = [], ""
    for i, (b, out) in enumerate(buffers, 1):
        lines.append(f"    {cond}call ftmpi_f08_stage({b}, {out}, stage_addr({i}), ierror_c)")
        cond = "if (ierror_c == MPI_SUCCESS) "
    lines.append("    if (ierror_c == MPI_SUCCESS) then")
    new = {}
    for i, (b, _) in enumerate(buffers, 1):
        lines.append(f"      call c_f_pointer(stage_addr({i}), stage_{i}, [1])")
        new[b] = f"stage_{i}"
    lines += [f"      call {layer}{name}({', '.join([new.get(a, a) for a in names] + ['ierror_c'])})",
              "    else",
              f"      call {layer}MPI_Comm_call_errhandler({comm}, ierror_c, ierror_stage)",
              "    end if",
              "    call ftmpi_f08_stage_commit(request, ierror_c)"]
    extra = [f"  type(c_ptr) :: stage_addr({len(buffers)})",
             "  integer(c_int8_t), pointer, contiguous :: " + ", ".join(f"stage_{i}(:)" for i in range(1, len(buffers) + 1)),
             "  integer :: ierror_stage"]
    return lines, extra


def _specific(name, args):
    """The specific name MPI-3.1 17.1.5 gives a call: NAME_f08ts with a choice buffer (assumed
    type and rank, TS 29113), NAME_f08 without."""
    return name + ("_f08ts" if any(d.startswith("type(*), dimension(..)") for _, d in args) else "_f08")


def _dummies(args, has_ierror):
    return [a for a, _ in args] + (["ierror"] if has_ierror else [])


def _interface(name, args, has_ierror, layer):
    """Interface body of the external specific LAYER+NAME_f08(ts), for the generic in mpi_f08."""
    specific = layer + _specific(name, args)
    return ([f"subroutine {specific}({', '.join(_dummies(args, has_ierror))})", "  import", "  implicit none"]
            + ["  " + l for l in _declare(args)]
            + (["  integer, optional, intent(out) :: ierror"] if has_ierror else [])
            + [f"end subroutine {specific}"])


def _procedure(name, args, has_ierror, keeps_buffer, layer):
    """The external specific LAYER+NAME_f08(ts): calls the C wrapper of its layer (mpi_send_ or
    pmpi_send_: a tool that replaces MPI_Send_f08ts calls PMPI_Send, which reaches C's PMPI_Send),
    ierror optional. External, not a module procedure, so that a tool's own definition of
    MPI_Send_f08ts takes its place at link time (MPI-3.1 17.1.5)."""
    specific = layer + _specific(name, args)
    dummies = _dummies(args, has_ierror)
    lines = [f"subroutine {specific}({', '.join(dummies)})",
             "  use, intrinsic :: iso_c_binding, only: c_ptr, c_int8_t, c_f_pointer",
             "  use mpi_f08_types", "  use ftmpi_f08_externals", "  implicit none"]
    lines += ["  " + l for l in _declare(args)]
    call = f"call {layer}{name}({', '.join(dummies[:len(args)] + (['ierror_c'] if has_ierror else []))})"
    if not has_ierror:
        return lines + ["  " + call, f"end subroutine {specific}"]
    lines += ["  integer, optional, intent(out) :: ierror", "  integer :: ierror_c"]
    buffers = [(a, 0 if "intent(in)" in d else 1) for a, d in args if d.startswith("type(*)")]
    names = [a for a, _ in args]
    if keeps_buffer and buffers:
        comm = next((a for a, d in args if d.startswith("type(MPI_Comm)")), "MPI_COMM_WORLD")
        test = " .or. ".join(f".not. is_contiguous({b})" for b, _ in buffers)
        section, extra = _section_call(name, names, buffers, comm, call, layer)
        lines += extra + [f"  if ({test}) then"] + section + ["  else", "    " + call, "  end if"]
    else:
        lines.append("  " + call)
    return lines + ["  if (present(ierror)) ierror = ierror_c", f"end subroutine {specific}"]


def _types_module(constant_lines, consts, ctypes, renamed):
    out = ["module mpi_f08_types", "  use, intrinsic :: iso_c_binding, only: c_int, c_ptr", "  implicit none",
           "  private :: c_int, c_ptr"]
    for h in HANDLES:
        out += [f"  type, bind(C) :: {h}", "    integer(c_int) :: MPI_VAL", f"  end type {h}"]
    out += ["  ! The C struct MPI_Status (mpi.h): no copy between Fortran and C.",
            "  type, bind(C) :: MPI_Status",
            "    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "    integer(c_int) :: ftmpi_count_lo, ftmpi_count_hi_cancelled",
            "  end type MPI_Status"]
    for name in sorted(consts):
        fname = renamed.get(name, name)
        if name in ctypes:
            out.append(f"  type({ctypes[name]}), parameter :: {fname} = {ctypes[name]}({consts[name]})")
    # The integer PARAMETERs of mpif.h, minus the handles above. The status indices MPI_SOURCE,
    # MPI_TAG, MPI_ERROR stay (MPI-3.1 A.1.1, for INTEGER status arrays converted with
    # MPI_Status_f2f08/f082f): a named constant and a component of the same name do not clash.
    typed = {renamed.get(n, n).upper() for n in ctypes}
    skip = typed
    for i, line in enumerate(constant_lines):
        m = re.fullmatch(r"\s*INTEGER (\w+)", line)
        if m and i + 1 < len(constant_lines) and m.group(1).upper() not in skip:
            value = re.fullmatch(r"\s*PARAMETER \(\w+=(.*)\)", constant_lines[i + 1]).group(1)
            out.append(f"  integer, parameter :: {m.group(1)} = {value}")
    out += ["  logical, parameter :: MPI_SUBARRAYS_SUPPORTED = .true.",
            "  logical, parameter :: MPI_ASYNC_PROTECTS_NONBLOCKING = .false.",
            "  ! Sentinels: the library (fortran_support.h) recognises these variables by address.",
            '  integer(c_int), bind(C, name="ftmpi_f08_bottom") :: MPI_BOTTOM',
            '  integer(c_int), bind(C, name="ftmpi_f08_in_place") :: MPI_IN_PLACE',
            '  type(MPI_Status), bind(C, name="ftmpi_f08_status_ignore") :: MPI_STATUS_IGNORE',
            '  type(MPI_Status), bind(C, name="ftmpi_f08_statuses_ignore") :: MPI_STATUSES_IGNORE(1)',
            '  integer(c_int), bind(C, name="ftmpi_f08_unweighted") :: MPI_UNWEIGHTED(1)',
            '  integer(c_int), bind(C, name="ftmpi_f08_weights_empty") :: MPI_WEIGHTS_EMPTY(1)',
            "  ! Predefined attribute callbacks (fortran_attributes.c).",
            "  external :: MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN",
            "  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN",
            "  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN",
            "  abstract interface",
            "    subroutine MPI_User_function(invec, inoutvec, len, datatype)",
            "      import :: c_ptr, MPI_Datatype",
            "      type(c_ptr), value :: invec, inoutvec",
            "      integer :: len",
            "      type(MPI_Datatype) :: datatype",
            "    end subroutine MPI_User_function",
            "    subroutine MPI_Comm_errhandler_function(comm, error_code)",
            "      import :: MPI_Comm",
            "      type(MPI_Comm) :: comm",
            "      integer :: error_code",
            "    end subroutine MPI_Comm_errhandler_function",
            "  end interface"]
    out += ["  interface operator(==)"] + [f"    module procedure ftmpi_{h[4:].lower()}_eq" for h in HANDLES]
    out += ["  end interface", "  interface operator(/=)"]
    out += [f"    module procedure ftmpi_{h[4:].lower()}_ne" for h in HANDLES]
    out += ["  end interface", "  private :: " + ", ".join(
        f"ftmpi_{h[4:].lower()}_{op}" for h in HANDLES for op in ("eq", "ne")), "contains"]
    for h in HANDLES:
        for op, sym in (("eq", "=="), ("ne", "/=")):
            out += [f"  elemental logical function ftmpi_{h[4:].lower()}_{op}(a, b)",
                    f"    type({h}), intent(in) :: a, b",
                    f"    ftmpi_{h[4:].lower()}_{op} = a%MPI_VAL {sym} b%MPI_VAL",
                    f"  end function ftmpi_{h[4:].lower()}_{op}"]
    return out + ["end module mpi_f08_types"]


def module_source(constant_lines, consts, ctypes, renamed, bound):
    """Returns (source of the three modules, sorted names of the f08 procedures)."""
    procs = []  # (name, f08 args, raw args, has_ierror)
    for call, params in bound:
        f08 = [(gen_interfaces._dummy(p.name), _f08_declaration(call, p, False)) for p in params]
        raw = [(gen_interfaces._dummy(p.name), _f08_declaration(call, p, True)) for p in params]
        procs.append((call, f08, raw, True))
    for call, args in gen_interfaces.MANUAL_INTERFACES:
        has_ierror = args[-1][0] == "ierror"
        args = args[:-1] if has_ierror else args
        f08 = [(a, _manual_declaration(a, d, False)) for a, d in args]
        raw = [(a, _manual_declaration(a, d, True)) for a, d in args]
        procs.append((call, f08, raw, has_ierror))
    procs.append(("MPI_F_sync_reg", [("buf", "type(*), dimension(..)")], [("buf", gen_interfaces._BUF)], False))

    out = ["! The `use mpi_f08` modules, generated by fortran/gen_bindings.py (see gen_f08.py)."]
    out += _types_module(constant_lines, consts, ctypes, renamed)
    out += ["module ftmpi_f08_externals", "  use, intrinsic :: iso_c_binding, only: c_int, c_intptr_t, c_ptr",
            "  use mpi_f08_types", "  implicit none", "  interface"]
    for call, _, raw, has_ierror in procs:
        for layer in LAYERS:
            out += [INDENT + l for l in _external(layer + call, raw + ([("ierror", "integer")] if has_ierror else []))]
    out += ["  end interface",
            "  ! fortran_f08_support.c: what needs the array descriptor or a C pointer.",
            "  interface",
            '    subroutine ftmpi_f08_get_address(location, address, ierror) bind(C, name="ftmpi_f08_get_address")',
            "      import :: c_intptr_t, c_int",
            "      type(*), dimension(..) :: location",
            "      integer(c_intptr_t) :: address",
            "      integer(c_int) :: ierror",
            "    end subroutine ftmpi_f08_get_address",
            '    subroutine ftmpi_f08_buffer_detach(buffer_addr, size, ierror) bind(C, name="ftmpi_f08_buffer_detach")',
            "      import :: c_ptr, c_int",
            "      type(c_ptr) :: buffer_addr",
            "      integer(c_int) :: size, ierror",
            "    end subroutine ftmpi_f08_buffer_detach",
            "    ! fortran_f08_section.c, fortran_f08_section_coll.c: strided sections in calls that keep them.",
            '    subroutine ftmpi_f08_section_args(buf, count, datatype, comm, base, new_count, new_type, ierror) &',
            '        bind(C, name="ftmpi_f08_section_args")',
            "      import :: c_ptr, c_int, MPI_Datatype, MPI_Comm",
            "      type(*), dimension(..) :: buf",
            "      integer(c_int) :: count, new_count, ierror",
            "      type(MPI_Datatype) :: datatype, new_type",
            "      type(MPI_Comm) :: comm",
            "      type(c_ptr) :: base",
            "    end subroutine ftmpi_f08_section_args",
            '    subroutine ftmpi_f08_reduction_section(which, sendbuf, recvbuf, count, datatype, op, root, comm, &',
            '        request, ierror) bind(C, name="ftmpi_f08_reduction_section")',
            "      import :: c_int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request",
            "      type(*), dimension(..) :: sendbuf, recvbuf",
            "      integer(c_int) :: which, count, root, ierror",
            "      type(MPI_Datatype) :: datatype",
            "      type(MPI_Op) :: op",
            "      type(MPI_Comm) :: comm",
            "      type(MPI_Request) :: request",
            "    end subroutine ftmpi_f08_reduction_section",
            '    subroutine ftmpi_f08_buffer_attach_section(buffer, size, ierror) &',
            '        bind(C, name="ftmpi_f08_buffer_attach_section")',
            "      import :: c_int",
            "      type(*), dimension(..) :: buffer",
            "      integer(c_int) :: size, ierror",
            "    end subroutine ftmpi_f08_buffer_attach_section",
            '    subroutine ftmpi_f08_stage(buf, out, addr, ierror) bind(C, name="ftmpi_f08_stage")',
            "      import :: c_ptr, c_int",
            "      type(*), dimension(..) :: buf",
            "      integer(c_int) :: out, ierror",
            "      type(c_ptr) :: addr",
            "    end subroutine ftmpi_f08_stage",
            '    subroutine ftmpi_f08_stage_commit(request, ierror) bind(C, name="ftmpi_f08_stage_commit")',
            "      import :: c_int, MPI_Request",
            "      type(MPI_Request) :: request",
            "      integer(c_int) :: ierror",
            "    end subroutine ftmpi_f08_stage_commit",
            "  end interface",
            "end module ftmpi_f08_externals"]

    generated = [p for p in procs if p[0] not in SPECIAL]
    out += ["module mpi_f08",
            "  use, intrinsic :: iso_c_binding, only: c_ptr, c_double, c_int, c_int8_t, c_f_pointer",
            "  use mpi_f08_types"]
    for call in sorted(SPECIAL):
        out.append(f"  use ftmpi_f08_externals, only: f77_{call} => {call}")
    out.append("  use ftmpi_f08_externals, only: ftmpi_f08_get_address, ftmpi_f08_buffer_detach")
    out.append("  implicit none")
    out.append("  private :: " + ", ".join(f"f77_{c}" for c in sorted(SPECIAL)))
    out.append("  private :: ftmpi_f08_get_address, ftmpi_f08_buffer_detach, c_ptr, c_double, c_int, c_int8_t, "
               "c_f_pointer")
    for call, f08, _, has_ierror in generated:
        for layer in LAYERS:
            out += [f"  interface {layer}{call}"] + [INDENT + l for l in _interface(call, f08, has_ierror, layer)]
            out.append(f"  end interface {layer}{call}")
    for call in sorted(SPECIAL) + F08_ONLY:
        out += [f"  interface {call}", f"    module procedure {call}_f08", f"  end interface {call}"]
    out += gen_sizeof.declarations("ftmpi_f08")
    out.append("  interface")
    for layer in LAYERS:
        for f in ("Wtime", "Wtick"):
            out += [f'    real(c_double) function {layer}MPI_{f}() bind(C, name="{layer}MPI_{f}")',
                    "      import :: c_double", f"    end function {layer}MPI_{f}"]
    out += ["  end interface", "contains"]
    out += gen_sizeof.procedures("ftmpi_f08", 0)
    out += ['  include "mpi_f08_special.f90"', "end module mpi_f08"]
    out.append("! The specific procedures of the generics above, outside the module (see _procedure).")
    for call, f08, _, has_ierror in generated:
        for layer in LAYERS:
            out += _procedure(call, f08, has_ierror, KEEPS_BUFFER.match(call), layer)
    lines = [w for line in out for w in _wrap(line)]
    return "\n".join(lines) + "\n", sorted([c for c, *_ in procs] + ["MPI_Wtick", "MPI_Wtime"] + F08_ONLY)
