// Pack/unpack throughput of strided layouts against a plain memcpy of the same bytes.
//   dt_pack_bench [-r reps] [-t seconds_per_rep]
// Each line: layout, packed bytes, median GB/s of MPI_Pack and MPI_Unpack, and the ratio to
// memcpy. Only MPI-1 calls, so the same source builds against MPICH or Open MPI for comparison.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Options {
  int reps = 9;
  double target_s = 0.05;
};

// Median seconds per call of f, with the iteration count chosen so one repetition lasts
// about target_s.
template <typename F>
double median_seconds(const Options& o, F&& f) {
  f();  // warm up: page faults and caches
  double t0 = MPI_Wtime();
  f();
  const double once = std::max(MPI_Wtime() - t0, 1e-7);
  const int iters = std::max(1, static_cast<int>(o.target_s / once));
  std::vector<double> per_call;
  for (int r = 0; r < o.reps; ++r) {
    t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) f();
    per_call.push_back((MPI_Wtime() - t0) / iters);
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

void run(const Options& o, const char* name, MPI_Datatype type, std::size_t span_bytes) {
  MPI_Type_commit(&type);
  int packed = 0;
  MPI_Pack_size(1, type, MPI_COMM_WORLD, &packed);
  std::vector<char> mem(span_bytes, 1), out(static_cast<std::size_t>(packed)),
      ref(static_cast<std::size_t>(packed));
  const double t_pack = median_seconds(o, [&] {
    int pos = 0;
    MPI_Pack(mem.data(), 1, type, out.data(), packed, &pos, MPI_COMM_WORLD);
  });
  const double t_unpack = median_seconds(o, [&] {
    int pos = 0;
    MPI_Unpack(out.data(), packed, &pos, mem.data(), 1, type, MPI_COMM_WORLD);
  });
  const double t_copy = median_seconds(o, [&] {
    std::memcpy(ref.data(), mem.data(), ref.size());
    asm volatile("" ::: "memory");  // keep the copy
  });
  const double gb = packed / 1e9;
  std::printf("%-34s %9d B  pack %6.2f GB/s  unpack %6.2f GB/s  memcpy %6.2f GB/s  (pack/memcpy %.2f)\n",
              name, packed, gb / t_pack, gb / t_unpack, gb / t_copy, t_copy / t_pack);
  MPI_Type_free(&type);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-r") && i + 1 < argc) {
      o.reps = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "-t") && i + 1 < argc) {
      o.target_s = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [-r reps] [-t seconds_per_rep]\n", argv[0]);
      return 2;
    }
  }
  const int mib = 1 << 20;
  MPI_Datatype t;
  MPI_Type_contiguous(mib / 8, MPI_DOUBLE, &t);
  run(o, "contiguous 1 MiB", t, mib);
  MPI_Type_vector(mib / 8, 1, 2, MPI_DOUBLE, &t);
  run(o, "vector 8 B blocks, stride 16 B", t, 2 * mib);
  MPI_Type_vector(mib / 4, 1, 2, MPI_FLOAT, &t);
  run(o, "vector 4 B blocks, stride 8 B", t, 2 * mib);
  MPI_Type_vector(mib / 64, 8, 16, MPI_DOUBLE, &t);
  run(o, "vector 64 B blocks, stride 128 B", t, 2 * mib);
  MPI_Type_vector(mib / 4096, 512, 1024, MPI_DOUBLE, &t);
  run(o, "vector 4 KiB blocks, stride 8 KiB", t, 2 * mib);
  // An array of {int, double} structs (12 data bytes in 16): the particle case.
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, s;
  MPI_Type_create_struct(2, bl, disp, types, &s);
  MPI_Type_contiguous(mib / 12, s, &t);
  run(o, "contiguous of struct{int,double}", t, (mib / 12) * 16);
  MPI_Type_free(&s);
  MPI_Finalize();
  return 0;
}
