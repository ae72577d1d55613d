"""MPI_Sizeof (MPI-3.1 17.1.9) for `use mpi` and `use mpi_f08`: a generic over every intrinsic
numeric type and kind gfortran has (INTEGER 1/2/4/8/16, REAL 4/8/10/16, COMPLEX 4/8/10/16,
LOGICAL 1/2/4/8/16), each specific taking any rank (DIMENSION(..): scalars and arrays alike)
and answering the bytes of one element, storage_size / 8. Pure Fortran: no C call.
"""

KINDS = [("integer", k) for k in (1, 2, 4, 8, 16)] + [("real", k) for k in (4, 8, 10, 16)] + \
        [("complex", k) for k in (4, 8, 10, 16)] + [("logical", k) for k in (1, 2, 4, 8, 16)]


def _name(prefix, t, k):
    return f"{prefix}_sizeof_{t[0]}{k}"


def declarations(prefix):
    """The generic interface and the private specifics, for the module's specification part."""
    names = [_name(prefix, t, k) for t, k in KINDS]
    lines = ["  interface MPI_Sizeof"]
    lines += [f"    module procedure {n}" for n in names]
    lines += ["  end interface MPI_Sizeof"]
    for i in range(0, len(names), 6):
        lines.append("  private :: " + ", ".join(names[i:i + 6]))
    return lines


def procedures(prefix, success):
    """The specifics, for the module's CONTAINS part; `success` is MPI_SUCCESS's value."""
    lines = []
    for t, k in KINDS:
        n = _name(prefix, t, k)
        lines += [f"  subroutine {n}(x, size, ierror)",
                  "    implicit none",
                  f"    {t}(kind={k}), dimension(..), intent(in) :: x",
                  "    integer, intent(out) :: size",
                  "    integer, optional, intent(out) :: ierror",
                  "    size = storage_size(x) / 8",
                  f"    if (present(ierror)) ierror = {success}",
                  f"  end subroutine {n}"]
    return lines
