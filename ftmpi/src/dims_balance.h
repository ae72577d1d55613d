// MPI_Dims_create's balanced factorization: n as k non-increasing extents with the smallest
// spread (largest minus smallest). MPI leaves the choice among equally balanced results to the
// implementation; this one makes MPICH's (its test suite checks it): the result whose smallest
// extent is largest, then the second smallest, and so on. Pure arithmetic, no MPI state.
#pragma once

#include <vector>

namespace ftmpi {

// n >= 1, k >= 0: k extents, non-increasing, product n. A prime factor above the square root
// of the rest stands alone in a leading dimension; 1s appear only when n has fewer than k
// prime factors (counted with multiplicity).
std::vector<int> balanced_dims(int n, int k);

}  // namespace ftmpi
