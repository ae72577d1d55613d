// C API: MPI_Type_create_darray (builder in datatype_darray.cpp) and MPI_Type_get_contents
// (what set_contents recorded at construction). Errors go through MPI_COMM_WORLD's handler,
// like the other datatype calls (api_datatype.cpp).
#include <vector>

#include "datatype_build.h"
#include "library.h"

using namespace ftmpi;

extern "C" {

int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                           const int distribs[], const int dargs[], const int psizes[],
                           int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const Datatype* old = nullptr;
  Err e = lib().types.find(oldtype, &old);
  if (e == Err::ok && newtype == nullptr) e = fail(Err::arg, "newtype pointer is NULL");
  if (e == Err::ok) {
    e = check_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old->extent);
  }
  if (e != Err::ok) return raise_world(e);
  auto t = build_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, *old);
  std::vector<int> ints{size, rank, ndims};
  for (const int* a : {gsizes, distribs, dargs, psizes}) ints.insert(ints.end(), a, a + ndims);
  ints.push_back(order);
  set_contents(t.get(), MPI_COMBINER_DARRAY, std::move(ints), {}, {old});
  *newtype = lib().types.add(std::move(t));
  return MPI_SUCCESS;
}

// MPI-3.1 4.1.13. A derived datatype argument comes back as a new handle to a copy of the
// record the constructor saw (the original may have been freed since): the caller frees it.
int MPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype datatypes[]) {
  const Datatype* t = nullptr;
  if (Err e = lib().types.find(type, &t); e != Err::ok) return raise_world(e);
  if (t->contents == nullptr) {  // named (the MPI_Type_create_f90_* types have contents)
    return raise_world(fail(Err::type, "MPI_Type_get_contents: %s is a named datatype", t->name));
  }
  const TypeContents& c = *t->contents;
  if (max_integers < static_cast<int>(c.ints.size()) ||
      max_addresses < static_cast<int>(c.aints.size()) ||
      max_datatypes < static_cast<int>(c.named.size())) {
    return raise_world(fail(Err::arg, "MPI_Type_get_contents: the arrays hold %d, %d and %d "
                            "entries; the envelope needs %zu, %zu and %zu", max_integers,
                            max_addresses, max_datatypes, c.ints.size(), c.aints.size(),
                            c.named.size()));
  }
  if ((!c.ints.empty() && integers == nullptr) || (!c.aints.empty() && addresses == nullptr) ||
      (!c.named.empty() && datatypes == nullptr)) {
    return raise_world(fail(Err::arg, "MPI_Type_get_contents: an output array is NULL"));
  }
  for (std::size_t i = 0; i < c.ints.size(); ++i) integers[i] = c.ints[i];
  for (std::size_t i = 0; i < c.aints.size(); ++i) addresses[i] = c.aints[i];
  for (std::size_t i = 0; i < c.named.size(); ++i) {
    datatypes[i] = c.derived[i] ? lib().types.add(std::make_unique<Datatype>(*c.derived[i]))
                                : c.named[i];
  }
  return MPI_SUCCESS;
}

}  // extern "C"
