// C++ hello world: uses the C API from C++, so it only links if mpi.h has extern "C" guards.
#include <mpi.h>

#include <iostream>
#include <sstream>
#include <string>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int rank = -1, size = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::ostringstream line;  // one write per rank keeps lines whole under mpirun
    line << "hello from C++ rank " << rank << " of " << size << '\n';
    std::cout << line.str() << std::flush;
    MPI_Finalize();
    return 0;
}
