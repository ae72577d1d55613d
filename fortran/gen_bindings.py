#!/usr/bin/env python3
"""Generates ftmpi's Fortran layer from the C headers (run by CMake at build time).

The C headers are the one table: every `int MPI_*(...)`, `FTMPI_*` and `MPIX_*` prototype gets a
Fortran-callable wrapper (`mpi_send_`, gfortran's naming: lower case, one trailing underscore)
unless fortran/src/*.c writes it by hand (MANUAL: strings with special lengths, callbacks, the
MPI-1 INTEGER-address calls) or it has no Fortran form (C_ONLY). Each binding also has its
profiling name (`pmpi_send_`, which calls C's PMPI_Send; a hand-written one is the same body
under a second name, FTMPI_F_PMPI in fortran_support.h), and `use mpi` an interface for it
(PMPI_Send), so a Fortran tool can define MPI_SEND and call PMPI_SEND. Every `#define` with an integer
value becomes a PARAMETER in mpif.h. A prototype whose arguments this script does not know is
listed in unbound.txt (test fortran.coverage fails on it) rather than breaking the build.

  gen_bindings.py OUTDIR INCDIR HEADER...
      writes OUTDIR/{ftmpi_fortran_gen.c,mpi_module.f90,mpi_f08.f90,unbound.txt,names.txt,
      f08_names.txt} and INCDIR/mpif.h
"""
import os
import re
import sys

import gen_f08
import gen_interfaces

# Written in fortran/src/*.c because the Fortran argument is not the C one.
MANUAL = {
    "MPI_Init", "MPI_Init_thread", "MPI_Pcontrol",           # no argc/argv; varargs
    "MPI_Info_get", "MPI_Info_get_nthkey",                   # output length given by the caller
    "MPI_Keyval_create", "MPI_Comm_create_keyval",           # Fortran callbacks (trampolines)
    "MPI_Attr_put", "MPI_Attr_get", "MPI_Comm_set_attr", "MPI_Comm_get_attr",  # values, not pointers
    "MPI_Address", "MPI_Type_hvector", "MPI_Type_hindexed", "MPI_Type_struct",  # MPI-1: INTEGER addresses
    "MPI_Type_extent", "MPI_Type_lb", "MPI_Type_ub",
    "MPI_Buffer_detach",                                     # returns the buffer's address
    "MPI_Waitany", "MPI_Testany", "MPI_Waitsome", "MPI_Testsome",  # Fortran indices start at 1
    "MPI_Type_create_keyval", "MPI_Type_set_attr", "MPI_Type_get_attr",  # as the Comm ones
    "MPI_Alloc_mem",                                         # returns an address (or a C_PTR)
    "MPI_Grequest_start",                                    # Fortran callbacks (trampolines)
    "MPI_Info_get_string", "MPI_Info_create_env",            # Fortran lengths; no argc/argv
}
# No Fortran binding in the MPI standard; the f08 status conversions have theirs in mpi_f08
# only, written by hand (src/mpi_f08_special.f90, gen_f08.F08_ONLY).
C_ONLY = {"MPI_Status_f2c", "MPI_Status_c2f", "MPI_Status_f082c", "MPI_Status_c2f08",
          "MPI_Status_f082f", "MPI_Status_f2f08"}

HANDLES = {"MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Request", "MPI_Op", "MPI_Errhandler",
           "MPI_Info", "MPI_Message"}
# Fortran procedure arguments arrive as the procedure's address; these C callback types take
# every argument by reference, so a Fortran procedure is one of them as it is.
BYREF_CALLBACKS = {"MPI_User_function", "MPI_Comm_errhandler_function", "MPI_Handler_function"}
BUFFER_NAMES = {"buf", "sendbuf", "recvbuf", "buffer", "inbuf", "outbuf", "inoutbuf", "location",
                "base"}
# Distributed graph weight arrays: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are sentinel variables
# (fortran_support.h, ftmpi_f_weights) passed in their place.
WEIGHT_NAMES = {"sourceweights", "destweights", "weights"}

# Fortran-only constants (MPI-3.1 17.2; values match the C side, checked in fortran/src/).
FORTRAN_CONSTANTS = [
    ("MPI_STATUS_SIZE", 5), ("MPI_SOURCE", 1), ("MPI_TAG", 2), ("MPI_ERROR", 3),
    ("MPI_ADDRESS_KIND", 8), ("MPI_OFFSET_KIND", 8), ("MPI_COUNT_KIND", 8), ("MPI_INTEGER_KIND", 4),
]
# Fortran names for C constants of another name (none today: the sized Fortran types,
# MPI_INTEGER1 ... MPI_LOGICAL16, are handles of their own in mpi.h, so they keep their names).
FORTRAN_ALIASES = []
# A constant spelled like a procedure (Fortran names ignore case) gets this name in Fortran.
RENAMED_CONSTANTS = {"FTMPI_COMM_STATE": "FTMPI_COMM_STATE_KEY"}
PREFIXES = ("MPI_", "MPIX_", "FTMPI_")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def strip_typedefs(text):
    return re.sub(r"\btypedef\b[^;]*;", " ", text)


def parse_prototypes(text):
    protos = []
    for m in re.finditer(r"\b(int|double|MPI_\w+)\s+((?:MPI|MPIX|FTMPI)_\w+)\s*\(([^;{}]*)\)\s*;", text):
        ret, name, args = m.group(1), m.group(2), " ".join(m.group(3).split())
        params = [] if args in ("", "void") else [a.strip() for a in args.split(",")]
        protos.append((ret, name, params))
    return protos


def parse_constants(text):
    raw = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.+?)[ \t]*$", text, flags=re.M):
        name, value = m.group(1), m.group(2)
        if name.startswith(PREFIXES):
            raw[name] = value
    values = {}

    def resolve(name, depth=0):
        v = raw[name].strip()
        while True:  # peel ((MPI_Comm)1), (-1), (MPI_Datatype)(3)
            n = re.fullmatch(r"\((.*)\)", v) or re.fullmatch(r"\(\s*MPI_\w+\s*\)\s*(.*)", v)
            if not n:
                break
            v = n.group(1).strip()
        if re.fullmatch(r"-?\d+", v):
            return int(v)
        if v in raw and depth < 8:
            return resolve(v, depth + 1)
        return None

    for name in raw:
        v = resolve(name)
        if v is not None:
            values[name] = v
    return values


class Param:
    """One C parameter and how its Fortran counterpart is passed and converted."""

    def __init__(self, text):
        m = re.fullmatch(r"(.*?)(\w+)\s*((?:\[\w*\])*)", text)
        if not m:
            raise ValueError(text)
        self.ctype = " ".join(m.group(1).replace("*", " * ").split())
        self.name, self.dims = m.group(2), m.group(3)
        base = self.ctype.replace("const", "").replace("*", "").split()
        self.base = base[0] if len(base) == 1 else " ".join(base)
        self.ptr = self.ctype.count("*") + (1 if self.dims else 0)
        self.const = "const" in self.ctype
        self.kind = self.classify()

    def classify(self):
        b, p = self.base, self.ptr
        if b == "void" and p == 1 and self.name in BUFFER_NAMES:
            return "buffer"
        if b in ("int", "MPI_Aint", "MPI_Count", "MPI_Offset") and p == 0:
            return "value"
        if b in HANDLES and p == 0:
            return "handle"
        if b in {"int", "MPI_Aint", "MPI_Count", "MPI_Offset"} | HANDLES and p == 1:
            return "array2d" if self.dims.count("[") == 2 else "pointer"
        if b == "int" and self.dims.count("[") == 2:
            return "array2d"
        if b == "MPI_Status" and p == 1:
            if self.dims:
                return "statuses"
            return "status_in" if self.const else "status"
        if b == "char" and p == 1:
            return "string_in" if self.const else "string_out"
        if b in BYREF_CALLBACKS and p == 1:
            return "callback"
        return None


def fortran_arg(p):
    """(C declaration of the wrapper's parameter, expression passed to the C function)."""
    ftype = {"int": "MPI_Fint", "MPI_Aint": "MPI_Aint", "MPI_Count": "MPI_Count",
             "MPI_Offset": "MPI_Offset"}.get(p.base, "MPI_Fint")
    if p.kind == "buffer":
        return f"void *{p.name}", f"ftmpi_f_buffer({p.name})"
    if p.kind == "value":
        return f"const {ftype} *{p.name}", f"*{p.name}"
    if p.kind == "handle":
        short = {"Datatype": "Type"}.get(p.base[4:], p.base[4:])
        return f"const MPI_Fint *{p.name}", f"MPI_{short}_f2c(*{p.name})"
    if p.kind == "pointer" and p.name in WEIGHT_NAMES and p.base == "int":
        return f"MPI_Fint *{p.name}", f"ftmpi_f_weights({p.name})"
    if p.kind == "pointer":
        return f"{ftype} *{p.name}", f"({p.ctype.replace('const ', '')}{'' if p.ctype.endswith('*') else ' *'}){p.name}"
    if p.kind == "array2d":
        return f"MPI_Fint (*{p.name})[3]", f"(int (*)[3]){p.name}"
    if p.kind == "status":
        return f"MPI_Fint *{p.name}", f"ftmpi_f_status({p.name})"
    if p.kind == "status_in":
        return f"const MPI_Fint *{p.name}", f"(const MPI_Status *){p.name}"
    if p.kind == "statuses":
        return f"MPI_Fint *{p.name}", f"ftmpi_f_statuses({p.name})"
    if p.kind == "string_in":
        return f"const char *{p.name}", f"{p.name}_c"
    if p.kind == "string_out":
        return f"char *{p.name}", f"{p.name}_c"
    if p.kind == "callback":
        return f"{p.base} *{p.name}", p.name
    raise AssertionError(p.kind)


def wrapper(name, params):
    decls, args, hidden, pre, post = [], [], [], [], []
    for p in params:
        d, a = fortran_arg(p)
        decls.append(d)
        args.append(a)
        if p.kind == "string_in":
            hidden.append(f"size_t {p.name}_len")
            conv = "ftmpi_f_info_string_in" if name.startswith("MPI_Info_") else "ftmpi_f_string_in"
            pre.append(f"  char *{p.name}_c = {conv}({p.name}, {p.name}_len);\n"
                       f"  if ({p.name}_c == NULL) {{ *ierr = MPI_ERR_NO_MEM; return; }}")
            post.append(f"  free({p.name}_c);")
        elif p.kind == "string_out":
            hidden.append(f"size_t {p.name}_len")
            pre.append(f"  char {p.name}_c[FTMPI_F_STRING_MAX] = {{0}};")
            post.append(f"  if (*ierr == MPI_SUCCESS) ftmpi_f_string_out({p.name}_c, {p.name}, {p.name}_len);")
    decls.append("MPI_Fint *ierr")
    decls += hidden
    def body(callee):
        return "\n".join(pre + [f"  *ierr = {callee}({', '.join(args)});"] + post)
    text = f"void {name.lower()}_({', '.join(decls)}) {{\n{body(name)}\n}}\n"
    # The profiling name calls the C profiling name (as MPICH's bindings do): a call a Fortran
    # tool forwards with PMPI_SEND is not seen again by a C tool's MPI_Send. FTMPI_ calls have
    # no C profiling name; theirs is the binding under a second name.
    if name.startswith(("MPI_", "MPIX_")):
        return text + f"void p{name.lower()}_({', '.join(decls)}) {{\n{body('P' + name)}\n}}\n"
    return text + f"FTMPI_F_PMPI({name.lower()}_);\n"


def fortran_lines(name, value):
    lines = [f"      INTEGER {name}", f"      PARAMETER ({name}={value})"]
    for line in lines:
        if len(line) > 72:
            raise SystemExit(f"gen_bindings: '{line}' is longer than 72 columns (fixed form)")
    return lines


def main():
    outdir, incdir, headers = sys.argv[1], sys.argv[2], sys.argv[3:]
    text = "\n".join(strip_comments(open(h).read()) for h in headers)
    protos = parse_prototypes(strip_typedefs(text))
    consts = parse_constants(text)

    if MANUAL != gen_interfaces.manual_names():
        raise SystemExit("gen_bindings: MANUAL and gen_interfaces.MANUAL_INTERFACES differ")
    generated, unbound, names, bound = [], [], [], []
    for ret, name, raw_params in protos:
        if name in C_ONLY or ret != "int" and name not in MANUAL:
            continue
        if name in MANUAL:
            names.append(name)
            continue
        try:
            params = [Param(t) for t in raw_params]
        except ValueError:
            params = None
        bad = [p.name for p in params or [] if p.kind is None]
        if params is None or bad:
            unbound.append(f"{name}: arguments not known to gen_bindings.py: {', '.join(bad) or raw_params}")
            continue
        generated.append(wrapper(name, params))
        names.append(name)
        bound.append((name, params))
    names += ["MPI_Wtime", "MPI_Wtick", "MPI_Aint_add", "MPI_Aint_diff"]  # functions (fortran/src)

    with open(os.path.join(outdir, "ftmpi_fortran_gen.c"), "w") as f:
        f.write("/* Generated by fortran/gen_bindings.py from the C headers; do not edit. */\n"
                '#include "fortran_support.h"\n\n#pragma GCC visibility push(default)\n\n')
        f.write("\n".join(generated))
        f.write("\n#pragma GCC visibility pop\n")
    with open(os.path.join(outdir, "unbound.txt"), "w") as f:
        f.write("".join(u + "\n" for u in unbound))
    with open(os.path.join(outdir, "names.txt"), "w") as f:
        f.write("".join(n + "\n" for n in sorted(names)))

    procs = {n.upper() for n in names}
    out = ["! ftmpi mpif.h, generated by fortran/gen_bindings.py from the C",
           "! headers. Fixed and free form: no tabs, no continuation lines,",
           "! <= 72 columns. The FTMPI_COMM_STATE attribute key is called",
           "! FTMPI_COMM_STATE_KEY here (Fortran names ignore case, and",
           "! FTMPI_COMM_STATE is the procedure)."]
    seen = set()
    for name in sorted(consts):
        fname = RENAMED_CONSTANTS.get(name, name)
        if fname.upper() in procs:
            raise SystemExit(f"gen_bindings: constant {name} is spelled like a procedure; add it to RENAMED_CONSTANTS")
        seen.add(fname.upper())
        out += fortran_lines(fname, consts[name])
    for name, value in FORTRAN_CONSTANTS:
        out += fortran_lines(name, value)
    for name, alias in FORTRAN_ALIASES:
        out += fortran_lines(name, consts[alias])
    out += [
        "! Sentinels: the library recognises these variables by their address.",
        "      INTEGER MPI_BOTTOM, MPI_IN_PLACE",
        "      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)",
        "      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
        "      COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM",
        "      COMMON /MPI_FORTRAN_IN_PLACE/ MPI_IN_PLACE",
        "      COMMON /MPI_FORTRAN_ST_IGNORE/ MPI_STATUS_IGNORE",
        "      COMMON /MPI_FORTRAN_STS_IGNORE/ MPI_STATUSES_IGNORE",
        "      SAVE /MPI_FORTRAN_BOTTOM/, /MPI_FORTRAN_IN_PLACE/",
        "      SAVE /MPI_FORTRAN_ST_IGNORE/, /MPI_FORTRAN_STS_IGNORE/",
        "      INTEGER MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)",
        "      COMMON /MPI_FORTRAN_UNWEIGHTED/ MPI_UNWEIGHTED",
        "      COMMON /MPI_FORTRAN_WGHT_EMPTY/ MPI_WEIGHTS_EMPTY",
        "      SAVE /MPI_FORTRAN_UNWEIGHTED/, /MPI_FORTRAN_WGHT_EMPTY/",
        "! Predefined attribute copy and delete callbacks.",
        "      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN",
        "      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN",
        "      EXTERNAL MPI_COMM_DUP_FN",
        "      EXTERNAL MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN",
        "      EXTERNAL MPI_TYPE_DUP_FN",
    ]
    module_constants = list(out)
    for p in ("", "P"):  # the functions and their profiling names
        out += [f"      DOUBLE PRECISION {p}MPI_WTIME, {p}MPI_WTICK", f"      EXTERNAL {p}MPI_WTIME, {p}MPI_WTICK",
                f"      INTEGER(KIND=MPI_ADDRESS_KIND) {p}MPI_AINT_ADD, {p}MPI_AINT_DIFF",
                f"      EXTERNAL {p}MPI_AINT_ADD, {p}MPI_AINT_DIFF"]
    for line in out:
        if len(line) > 72 or "\t" in line:
            raise SystemExit(f"gen_bindings: mpif.h line not fixed-form safe: {line}")
    with open(os.path.join(incdir, "mpif.h"), "w") as f:
        f.write("\n".join(out) + "\n")
    with open(os.path.join(outdir, "mpi_module.f90"), "w") as f:
        f.write(gen_interfaces.module_source(module_constants, bound))

    # use mpi_f08: the same calls and constants, the handles as derived types.
    ctypes = gen_f08.constant_types(text)
    f08_consts = dict(consts)
    for name, alias in FORTRAN_ALIASES:
        f08_consts[name] = consts[alias]
        if alias in ctypes:
            ctypes[name] = ctypes[alias]
    source, f08_names = gen_f08.module_source(module_constants, f08_consts, ctypes, RENAMED_CONSTANTS, bound)
    with open(os.path.join(outdir, "mpi_f08.f90"), "w") as f:
        f.write(source)
    with open(os.path.join(outdir, "f08_names.txt"), "w") as f:
        f.write("".join(n + "\n" for n in f08_names))


if __name__ == "__main__":
    main()
