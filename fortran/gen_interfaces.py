"""The `use mpi` module's source, written by gen_bindings.py: mpif.h's constants and sentinels
plus an explicit interface for every binding. Explicit interfaces are what let one program unit
pass INTEGER, REAL and CHARACTER buffers to the same MPI_Send: gfortran >= 10 rejects that
through implicit interfaces (mpif.h) unless -fallow-argument-mismatch is given. Choice buffers
are `TYPE(*), DIMENSION(*)` with gfortran's NO_ARG_CHECK attribute (any type, kind and rank, as
MPICH and Open MPI declare them); every other argument is checked.
"""

import gen_sizeof

# C parameters that are Fortran LOGICALs (by name); MPIX_Comm_(i)agree's flag is an INTEGER mask.
LOGICAL_NAMES = {"flag", "periods", "reorder", "remain_dims", "commute", "high", "weighted"}
INTEGER_FLAG_CALLS = {"MPIX_Comm_agree", "MPIX_Comm_iagree"}
# `int *` parameters that are arrays although C declares them as pointers.
ARRAY_POINTERS = {("FTMPI_Comm_failed_ranks", "ranks")}
KINDS = {"MPI_Aint": "integer(kind=MPI_ADDRESS_KIND)", "MPI_Count": "integer(kind=MPI_COUNT_KIND)",
         "MPI_Offset": "integer(kind=MPI_OFFSET_KIND)"}
IMPORTS = "import :: MPI_STATUS_SIZE, MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND"

# Interfaces of the hand-written wrappers (fortran/src/): (name, [(argument, declaration)]).
_I = "integer"
_A = "integer(kind=MPI_ADDRESS_KIND)"
_L = "logical"
_S = "character(len=*)"
_BUF = "buffer"
MANUAL_INTERFACES = [
    ("MPI_Init", [("ierror", _I)]),
    ("MPI_Init_thread", [("required", _I), ("provided", _I), ("ierror", _I)]),
    ("MPI_Pcontrol", [("level", _I)]),
    ("MPI_Info_get", [("info", _I), ("key", _S), ("valuelen", _I), ("value", _S), ("flag", _L),
                      ("ierror", _I)]),
    ("MPI_Info_get_nthkey", [("info", _I), ("n", _I), ("key", _S), ("ierror", _I)]),
    ("MPI_Keyval_create", [("copy_fn", "external"), ("delete_fn", "external"), ("keyval", _I),
                           ("extra_state", _I), ("ierror", _I)]),
    ("MPI_Comm_create_keyval", [("comm_copy_attr_fn", "external"), ("comm_delete_attr_fn", "external"),
                                ("comm_keyval", _I), ("extra_state", _A), ("ierror", _I)]),
    ("MPI_Attr_put", [("comm", _I), ("keyval", _I), ("attribute_val", _I), ("ierror", _I)]),
    ("MPI_Attr_get", [("comm", _I), ("keyval", _I), ("attribute_val", _I), ("flag", _L), ("ierror", _I)]),
    ("MPI_Comm_set_attr", [("comm", _I), ("comm_keyval", _I), ("attribute_val", _A), ("ierror", _I)]),
    ("MPI_Comm_get_attr", [("comm", _I), ("comm_keyval", _I), ("attribute_val", _A), ("flag", _L),
                           ("ierror", _I)]),
    ("MPI_Address", [("location", _BUF), ("address", _I), ("ierror", _I)]),
    ("MPI_Type_hvector", [("count", _I), ("blocklength", _I), ("stride", _I), ("oldtype", _I),
                          ("newtype", _I), ("ierror", _I)]),
    ("MPI_Type_hindexed", [("count", _I), ("array_of_blocklengths", "integer, dimension(*)"),
                           ("array_of_displacements", "integer, dimension(*)"), ("oldtype", _I),
                           ("newtype", _I), ("ierror", _I)]),
    ("MPI_Type_struct", [("count", _I), ("array_of_blocklengths", "integer, dimension(*)"),
                         ("array_of_displacements", "integer, dimension(*)"),
                         ("array_of_types", "integer, dimension(*)"), ("newtype", _I), ("ierror", _I)]),
    ("MPI_Type_extent", [("datatype", _I), ("extent", _I), ("ierror", _I)]),
    ("MPI_Type_lb", [("datatype", _I), ("displacement", _I), ("ierror", _I)]),
    ("MPI_Type_ub", [("datatype", _I), ("displacement", _I), ("ierror", _I)]),
    ("MPI_Buffer_detach", [("buffer_addr", _BUF), ("size", _I), ("ierror", _I)]),
    ("MPI_Waitany", [("count", _I), ("array_of_requests", "integer, dimension(*)"), ("index", _I),
                     ("status", "integer, dimension(MPI_STATUS_SIZE)"), ("ierror", _I)]),
    ("MPI_Testany", [("count", _I), ("array_of_requests", "integer, dimension(*)"), ("index", _I),
                     ("flag", _L), ("status", "integer, dimension(MPI_STATUS_SIZE)"), ("ierror", _I)]),
    ("MPI_Waitsome", [("incount", _I), ("array_of_requests", "integer, dimension(*)"), ("outcount", _I),
                      ("array_of_indices", "integer, dimension(*)"),
                      ("array_of_statuses", "integer, dimension(MPI_STATUS_SIZE, *)"), ("ierror", _I)]),
    ("MPI_Testsome", [("incount", _I), ("array_of_requests", "integer, dimension(*)"), ("outcount", _I),
                      ("array_of_indices", "integer, dimension(*)"),
                      ("array_of_statuses", "integer, dimension(MPI_STATUS_SIZE, *)"), ("ierror", _I)]),
    ("MPI_Type_create_keyval", [("type_copy_attr_fn", "external"), ("type_delete_attr_fn", "external"),
                                ("type_keyval", _I), ("extra_state", _A), ("ierror", _I)]),
    ("MPI_Type_set_attr", [("datatype", _I), ("type_keyval", _I), ("attribute_val", _A), ("ierror", _I)]),
    ("MPI_Type_get_attr", [("datatype", _I), ("type_keyval", _I), ("attribute_val", _A), ("flag", _L),
                           ("ierror", _I)]),
    ("MPI_Grequest_start", [("query_fn", "external"), ("free_fn", "external"), ("cancel_fn", "external"),
                            ("extra_state", _A), ("request", _I), ("ierror", _I)]),
    ("MPI_Alloc_mem", [("size", _A), ("info", _I), ("baseptr", _A), ("ierror", _I)]),
    ("MPI_Info_get_string", [("info", _I), ("key", _S), ("buflen", _I), ("value", _S), ("flag", _L),
                             ("ierror", _I)]),
    ("MPI_Info_create_env", [("info", _I), ("ierror", _I)]),
]
# Calls `use mpi` overloads (a generic of that name): extra specific interface bodies.
OVERLOADS = {
    # MPI-3.1 8.2 / 17.1: BASEPTR as TYPE(C_PTR) too (MPICH's f90/misc/alloc_mem).
    "MPI_Alloc_mem": [
        '    subroutine ftmpi_alloc_mem_cptr(size, info, baseptr, ierror) bind(C, name="ftmpi_f_alloc_mem_cptr")',
        "      use, intrinsic :: iso_c_binding, only: c_ptr, c_int, c_intptr_t",
        "      implicit none",
        "      integer(c_intptr_t) :: size",
        "      integer(c_int) :: info, ierror",
        "      type(c_ptr) :: baseptr",
        "    end subroutine ftmpi_alloc_mem_cptr"],
}


def _declaration(call, p):
    """The Fortran declaration of one C parameter (see gen_bindings.Param.kind)."""
    array = bool(p.dims) or (call, p.name) in ARRAY_POINTERS
    if p.kind == "buffer":
        return _BUF
    if p.kind in ("value", "pointer"):
        if p.name in LOGICAL_NAMES and call not in INTEGER_FLAG_CALLS:
            base = "logical"
        else:
            base = KINDS.get(p.base, "integer")
        return base + (", dimension(*)" if array else "")
    if p.kind == "handle":
        return "integer"
    if p.kind == "array2d":
        return "integer, dimension(3, *)"
    if p.kind in ("status", "status_in"):
        return "integer, dimension(MPI_STATUS_SIZE)"
    if p.kind == "statuses":
        return "integer, dimension(MPI_STATUS_SIZE, *)"
    if p.kind in ("string_in", "string_out"):
        return "character(len=*)"
    if p.kind == "callback":
        return "external"
    raise AssertionError(p.kind)


def _dummy(name):
    # `function` is a legal but confusing dummy name; the standard calls it user_fn.
    return {"function": "user_fn"}.get(name, name)


def _interface(name, args):
    """args: [(dummy, declaration)] -> lines of one subroutine interface body."""
    names = [a for a, _ in args]
    lines = [f"    subroutine {name}(" + ", &\n        ".join(names) + ")", f"      {IMPORTS}",
             "      implicit none"]
    for a, decl in args:
        if decl == _BUF:
            lines += [f"      !GCC$ ATTRIBUTES NO_ARG_CHECK :: {a}", f"      type(*), dimension(*) :: {a}"]
        elif decl == "external":
            lines.append(f"      external :: {a}")
        else:
            lines.append(f"      {decl} :: {a}")
    lines.append(f"    end subroutine {name}")
    return lines


def module_source(constant_lines, bound):
    """constant_lines: mpif.h's declarations; bound: [(call, [Param])] of generated wrappers."""
    out = ["! The `use mpi` module, generated by fortran/gen_bindings.py (see gen_interfaces.py).",
           "module mpi", "  implicit none"]
    out += constant_lines
    out += gen_sizeof.declarations("ftmpi")
    out += ["  interface"]
    # Each call twice: MPI_Send and its profiling name PMPI_Send (MPI-3.1 14.2), which a tool
    # calls from its own MPI_SEND (`use mpi, only: PMPI_Send`); the library exports pmpi_send_.
    for p in ("", "P"):
        for call, params in bound:
            args = [(_dummy(q.name), _declaration(call, q)) for q in params] + [("ierror", "integer")]
            out += _interface(p + call, args)
        for call, args in MANUAL_INTERFACES:
            if p or call not in OVERLOADS:  # PMPI_Alloc_mem: the address form only
                out += _interface(p + call, args)
        out += _interface(p + "MPI_F_sync_reg", [("buf", _BUF)])
        for fn in ("MPI_Wtime", "MPI_Wtick"):
            out += [f"    double precision function {p}{fn}()", f"    end function {p}{fn}"]
        for fn, args in (("MPI_Aint_add", "base, disp"), ("MPI_Aint_diff", "addr1, addr2")):
            out += [f"    integer(kind=MPI_ADDRESS_KIND) function {p}{fn}({args})", f"      {IMPORTS}",
                    f"      integer(kind=MPI_ADDRESS_KIND), intent(in) :: {args}", f"    end function {p}{fn}"]
    out += ["  end interface"]
    for call, args in MANUAL_INTERFACES:
        if call in OVERLOADS:
            out += [f"  interface {call}"] + _interface(call, args) + OVERLOADS[call] + [f"  end interface {call}"]
    out += ["contains"] + gen_sizeof.procedures("ftmpi", 0) + ["end module mpi"]
    return "\n".join(out) + "\n"


def manual_names():
    return {name for name, _ in MANUAL_INTERFACES}
