/* Derived datatype construction and queries through the C API: extents, bounds with MPI_LB/MPI_UB,
 * struct padding, addresses, envelopes, dup/resize, free, and the error class of every kind of
 * bad argument. Runs at any process count (each rank checks on its own). */
#include <stddef.h>
#include <string.h>

#include "check.h"

static void vector_queries(void) {
  MPI_Datatype v;
  MPI_Aint lb, extent, ub;
  int size;
  CHECK_EQ(MPI_Type_vector(4, 2, 3, MPI_INT, &v), MPI_SUCCESS);
  CHECK_EQ(MPI_Type_commit(&v), MPI_SUCCESS);
  MPI_Type_size(v, &size);
  CHECK_EQ(size, 32);
  MPI_Type_get_extent(v, &lb, &extent);
  CHECK_EQ(lb, 0);
  CHECK_EQ(extent, (3 * 3 + 2) * 4);
  MPI_Type_extent(v, &extent);
  CHECK_EQ(extent, 44);
  MPI_Type_ub(v, &ub);
  CHECK_EQ(ub, 44);
  MPI_Type_lb(v, &lb);
  CHECK_EQ(lb, 0);

  MPI_Datatype n; /* negative stride: elements at 0, -2, -4 ints */
  MPI_Type_vector(3, 1, -2, MPI_INT, &n);
  MPI_Type_get_extent(n, &lb, &extent);
  CHECK_EQ(lb, -16);
  CHECK_EQ(extent, 20);

  int ni, na, nd, comb;
  MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb);
  CHECK_EQ(comb, MPI_COMBINER_NAMED);
  CHECK_EQ(ni + na + nd, 0);
  MPI_Type_get_envelope(v, &ni, &na, &nd, &comb);
  CHECK_EQ(comb, MPI_COMBINER_VECTOR);
  CHECK_EQ(ni, 3);
  CHECK_EQ(nd, 1);
  MPI_Type_free(&v);
  CHECK_EQ(v, MPI_DATATYPE_NULL);
  MPI_Type_free(&n);
}

static void struct_bounds(void) {
  struct S { double d; char c; } s = {0, 0};
  MPI_Aint base, disp[3];
  MPI_Get_address(&s, &base);
  MPI_Get_address(&s.d, &disp[0]);
  MPI_Get_address(&s.c, &disp[1]);
  disp[0] -= base;
  disp[1] -= base;
  int bl[3] = {1, 1, 1};
  MPI_Datatype types[3] = {MPI_DOUBLE, MPI_CHAR, MPI_UB};
  MPI_Datatype t;
  MPI_Aint lb, extent;
  CHECK_EQ(MPI_Type_create_struct(2, bl, disp, types, &t), MPI_SUCCESS);
  MPI_Type_get_extent(t, &lb, &extent);
  CHECK_EQ(extent, sizeof(struct S)); /* padded like the C struct */
  int ni, na, nd, comb;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  CHECK_EQ(comb, MPI_COMBINER_STRUCT);
  CHECK_EQ(ni, 3);
  CHECK_EQ(na, 2);
  CHECK_EQ(nd, 2);
  MPI_Type_free(&t);

  /* Explicit bounds with the MPI-1 markers. */
  MPI_Aint d2[3] = {-4, 0, 20};
  MPI_Datatype ty2[3] = {MPI_LB, MPI_DOUBLE, MPI_UB};
  MPI_Type_struct(3, bl, d2, ty2, &t);
  MPI_Type_get_extent(t, &lb, &extent);
  CHECK_EQ(lb, -4);
  CHECK_EQ(extent, 24);
  MPI_Aint tlb, textent;
  MPI_Type_get_true_extent(t, &tlb, &textent);
  CHECK_EQ(tlb, 0);
  CHECK_EQ(textent, 8);
  MPI_Datatype c; /* the markers are sticky: two of them step 24 bytes */
  MPI_Type_contiguous(2, t, &c);
  MPI_Type_get_extent(c, &lb, &extent);
  CHECK_EQ(lb, -4);
  CHECK_EQ(extent, 48);
  MPI_Type_free(&c);
  MPI_Type_free(&t);
}

static void resized_and_dup(void) {
  MPI_Datatype r, d;
  MPI_Aint lb, extent;
  int size;
  MPI_Type_create_resized(MPI_INT, -4, 16, &r);
  MPI_Type_dup(r, &d);
  MPI_Type_free(&r); /* the duplicate stands on its own */
  MPI_Type_commit(&d);
  MPI_Type_get_extent(d, &lb, &extent);
  CHECK_EQ(lb, -4);
  CHECK_EQ(extent, 16);
  MPI_Type_size(d, &size);
  CHECK_EQ(size, 4);
  int ni, na, nd, comb;
  MPI_Type_get_envelope(d, &ni, &na, &nd, &comb);
  CHECK_EQ(comb, MPI_COMBINER_DUP);
  MPI_Type_free(&d);
}

static void indexed_layouts(void) {
  int bl[3] = {2, 1, 3}, disp[3] = {5, 0, 10};
  MPI_Datatype t;
  MPI_Aint lb, extent;
  int size;
  MPI_Type_indexed(3, bl, disp, MPI_SHORT, &t);
  MPI_Type_commit(&t);
  MPI_Type_size(t, &size);
  CHECK_EQ(size, 12);
  MPI_Type_get_extent(t, &lb, &extent);
  CHECK_EQ(lb, 0);
  CHECK_EQ(extent, 26);
  MPI_Datatype b;
  int bd[2] = {3, 1};
  MPI_Type_create_indexed_block(2, 2, bd, MPI_INT, &b);
  MPI_Type_get_extent(b, &lb, &extent);
  CHECK_EQ(lb, 4);
  CHECK_EQ(extent, 16);
  MPI_Aint hd[2] = {8, 0};
  MPI_Datatype h;
  MPI_Type_hindexed(2, bl, hd, MPI_INT, &h);
  MPI_Type_get_extent(h, &lb, &extent);
  CHECK_EQ(extent, 16);
  MPI_Type_free(&t);
  MPI_Type_free(&b);
  MPI_Type_free(&h);
}

static void bad_arguments(void) {
  MPI_Datatype t, u;
  int bl[2] = {1, -1}, disp[2] = {0, 4};
  MPI_Aint ad[2] = {0, 4}, a;
  MPI_Datatype ty[2] = {MPI_INT, (MPI_Datatype)9999};
  CHECK_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_contiguous(1, (MPI_Datatype)9999, &t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Type_hvector(2, 1, 8, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_indexed(2, bl, disp, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_indexed(2, NULL, disp, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_hindexed(-1, bl, ad, MPI_INT, &t), MPI_ERR_COUNT);
  bl[1] = 1;
  CHECK_CLASS(MPI_Type_create_struct(2, bl, ad, ty, &t), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_create_struct(2, bl, NULL, ty, &t), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
  t = MPI_DATATYPE_NULL;
  CHECK_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);
  t = MPI_INT;
  CHECK_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE);
  CHECK_EQ(t, MPI_INT);
  CHECK_CLASS(MPI_Type_extent(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_Type_extent(MPI_INT, NULL), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Get_address(&a, NULL), MPI_ERR_ARG);
  MPI_Type_contiguous(2, MPI_INT, &t);
  u = t;
  MPI_Type_free(&t);
  CHECK_CLASS(MPI_Type_free(&u), MPI_ERR_TYPE); /* already freed */
  CHECK_CLASS(MPI_Type_extent(u, &a), MPI_ERR_TYPE);
  int v = 1;
  MPI_Type_contiguous(2, MPI_INT, &t); /* not committed: no communication */
  CHECK_CLASS(MPI_Send(&v, 1, t, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  vector_queries();
  struct_bounds();
  resized_and_dup();
  indexed_layouts();
  bad_arguments();
  return check_finish("dt_types");
}
