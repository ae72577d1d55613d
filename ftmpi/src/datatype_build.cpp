// Every constructor reduces to "place blocks of child types at displacements": layout,
// signature and MPI-1 bounds are accumulated by one Composer so that the rules live in one place.
#include "datatype_build.h"

#include <algorithm>

namespace ftmpi {
namespace {

const char* name_of(int combiner) {
  switch (combiner) {
    case MPI_COMBINER_DUP: return "derived datatype (dup)";
    case MPI_COMBINER_CONTIGUOUS: return "derived datatype (contiguous)";
    case MPI_COMBINER_VECTOR: return "derived datatype (vector)";
    case MPI_COMBINER_HVECTOR: return "derived datatype (hvector)";
    case MPI_COMBINER_INDEXED: return "derived datatype (indexed)";
    case MPI_COMBINER_INDEXED_BLOCK: return "derived datatype (indexed block)";
    case MPI_COMBINER_HINDEXED: return "derived datatype (hindexed)";
    case MPI_COMBINER_HINDEXED_BLOCK: return "derived datatype (hindexed block)";
    case MPI_COMBINER_STRUCT: return "derived datatype (struct)";
    case MPI_COMBINER_RESIZED: return "derived datatype (resized)";
    default: return "derived datatype";
  }
}

class Composer {
 public:
  // n copies of `t`, the k-th at disp + k * step.
  void place(const Datatype& t, MPI_Aint disp, std::size_t n, MPI_Aint step) {
    if (n == 0 || !t.has_entries) return;
    layout_.place(t.layout, disp, n, step);
    sig_.place(t.signature, n);
    const MPI_Aint last = static_cast<MPI_Aint>(n - 1) * step;
    const MPI_Aint lo = disp + t.lb + std::min<MPI_Aint>(0, last);
    const MPI_Aint hi = disp + t.ub() + std::max<MPI_Aint>(0, last);
    widen(&lo_all_, &hi_all_, &any_, lo, hi);
    if (t.lb_marked) widen_lo(&lo_marked_, &lb_marked_, lo);
    if (t.ub_marked) widen_hi(&hi_marked_, &ub_marked_, hi);
    if (t.size > 0) align_ = std::max(align_, t.align);
  }

  std::unique_ptr<Datatype> finish(bool is_struct, int combiner) {
    auto t = std::make_unique<Datatype>();
    t->name = name_of(combiner);
    t->combiner = combiner;
    t->layout = layout_.finish();
    t->signature = sig_.finish();
    t->size = t->layout->size;
    t->has_entries = any_;
    t->lb_marked = lb_marked_;
    t->ub_marked = ub_marked_;
    t->align = align_;
    if (any_) {
      t->lb = lb_marked_ ? lo_marked_ : lo_all_;
      MPI_Aint ub = ub_marked_ ? hi_marked_ : hi_all_;
      // MPI-1's epsilon: a struct without explicit bounds spans whole C structs, so that
      // count > 1 steps over the same padding the compiler puts between array elements.
      if (is_struct && !lb_marked_ && !ub_marked_ && align_ > 1) {
        const MPI_Aint a = static_cast<MPI_Aint>(align_);
        const MPI_Aint span = ub - t->lb;
        ub = t->lb + (span + a - 1) / a * a;
      }
      t->extent = ub - t->lb;
    }
    t->true_lb = t->layout->true_lb;
    t->true_extent = t->layout->true_ub - t->layout->true_lb;
    const Layout& l = *t->layout;
    t->contiguous = t->size == 0 || (l.single_run() && l.blocks[0].offset == 0 && t->lb == 0 &&
                                     t->extent == static_cast<MPI_Aint>(t->size));
    return t;
  }

 private:
  static void widen(MPI_Aint* lo, MPI_Aint* hi, bool* any, MPI_Aint l, MPI_Aint h) {
    *lo = *any ? std::min(*lo, l) : l;
    *hi = *any ? std::max(*hi, h) : h;
    *any = true;
  }
  static void widen_lo(MPI_Aint* lo, bool* any, MPI_Aint l) {
    *lo = *any ? std::min(*lo, l) : l;
    *any = true;
  }
  static void widen_hi(MPI_Aint* hi, bool* any, MPI_Aint h) {
    *hi = *any ? std::max(*hi, h) : h;
    *any = true;
  }

  LayoutBuilder layout_;
  SignatureBuilder sig_;
  bool any_ = false, lb_marked_ = false, ub_marked_ = false;
  MPI_Aint lo_all_ = 0, hi_all_ = 0, lo_marked_ = 0, hi_marked_ = 0;
  std::size_t align_ = 1;
};

void set_envelope(Datatype* t, int ints, int aints, int types) {
  t->env_ints = ints;
  t->env_aints = aints;
  t->env_types = types;
}

}  // namespace

std::unique_ptr<Datatype> build_contiguous(std::size_t count, const Datatype& old) {
  Composer c;
  c.place(old, 0, count, old.extent);
  auto t = c.finish(false, MPI_COMBINER_CONTIGUOUS);
  set_envelope(t.get(), 1, 0, 1);
  return t;
}

std::unique_ptr<Datatype> build_hvector(std::size_t count, std::size_t blocklen, MPI_Aint stride,
                                        const Datatype& old, int combiner) {
  // Two levels (a block, then count blocks) keep regular patterns foldable into one run.
  auto block = build_contiguous(blocklen, old);
  Composer c;
  c.place(*block, 0, count, stride);
  auto t = c.finish(false, combiner);
  if (combiner == MPI_COMBINER_VECTOR) {
    set_envelope(t.get(), 3, 0, 1);
  } else {
    set_envelope(t.get(), 2, 1, 1);
  }
  return t;
}

std::unique_ptr<Datatype> build_blocks(const TypeBlock* blocks, std::size_t n, bool is_struct,
                                       int combiner) {
  Composer c;
  for (std::size_t i = 0; i < n; ++i) {
    c.place(*blocks[i].type, blocks[i].disp, blocks[i].blocklen, blocks[i].type->extent);
  }
  auto t = c.finish(is_struct, combiner);
  const int count = static_cast<int>(n);
  switch (combiner) {
    case MPI_COMBINER_INDEXED: set_envelope(t.get(), 2 * count + 1, 0, 1); break;
    case MPI_COMBINER_INDEXED_BLOCK: set_envelope(t.get(), count + 2, 0, 1); break;
    case MPI_COMBINER_HINDEXED: set_envelope(t.get(), count + 1, count, 1); break;
    case MPI_COMBINER_HINDEXED_BLOCK: set_envelope(t.get(), 2, count, 1); break;
    default: set_envelope(t.get(), count + 1, count, count); break;  // struct
  }
  return t;
}

std::unique_ptr<Datatype> build_resized(const Datatype& old, MPI_Aint lb, MPI_Aint extent) {
  auto t = build_dup(old);
  t->name = name_of(MPI_COMBINER_RESIZED);
  t->combiner = MPI_COMBINER_RESIZED;
  set_envelope(t.get(), 0, 2, 1);
  // Resizing sets both bounds explicitly, as MPI_LB/MPI_UB markers would.
  t->lb = lb;
  t->extent = extent;
  t->lb_marked = t->ub_marked = t->has_entries = true;
  t->contiguous = t->size == 0 || (t->layout->single_run() && t->layout->blocks[0].offset == 0 &&
                                   lb == 0 && extent == static_cast<MPI_Aint>(t->size));
  return t;
}

std::unique_ptr<Datatype> build_dup(const Datatype& old) {
  auto t = std::make_unique<Datatype>(old);
  t->name = name_of(MPI_COMBINER_DUP);
  t->user_name.clear();  // a name is not copied (MPICH f77/datatype/typesnamef dups a named type)
  t->combiner = MPI_COMBINER_DUP;
  set_envelope(t.get(), 0, 0, 1);
  t->predefined = false;
  t->committed = old.committed;  // MPI-2: a duplicate of a committed type is committed
  t->handle = MPI_DATATYPE_NULL;
  t->refs = 0;
  return t;
}

void set_contents(Datatype* t, int combiner, std::vector<int> ints, std::vector<MPI_Aint> aints,
                  const std::vector<const Datatype*>& types) {
  auto c = std::make_shared<TypeContents>();
  set_envelope(t, static_cast<int>(ints.size()), static_cast<int>(aints.size()),
               static_cast<int>(types.size()));
  c->ints = std::move(ints);
  c->aints = std::move(aints);
  for (const Datatype* a : types) {
    c->named.push_back(a->predefined ? a->handle : MPI_DATATYPE_NULL);
    c->derived.push_back(a->predefined ? nullptr : std::make_shared<Datatype>(*a));
  }
  t->combiner = combiner;
  t->contents = std::move(c);
}

}  // namespace ftmpi
