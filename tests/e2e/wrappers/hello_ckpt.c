/* Links against libftckpt through mpicc -lftckpt: uses one of its functions. */
#include <ftckpt.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  FTCKPT_Config cfg;
  FTCKPT_Config_default(&cfg);
  printf("ftckpt default df=%d sd=%d\n", cfg.df, cfg.sd);
  MPI_Finalize();
  return 0;
}
