// ftmpi's environment knobs: one table (knob_list.h), one parser, typed readers.
// A leaf library with no dependencies, so every layer (transport, collectives, libftmpi,
// ftmpid, mpirun, the tools) can read its knobs without depending on another layer.
//
// Reading: flag/integer/number/text(Id) return the value set in the environment, or the
// table's default when the variable is unset or empty. A value that does not parse (wrong
// type, out of range, not one of the choices) is never half-used: the default applies and one
// warning per knob and process goes to stderr, naming the variable, the value and what was
// expected. Values are read from the environment on every call (callers cache if hot).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "ftmpi_knobs/knob_list.h"

namespace ftmpi::knobs {

enum class Type { flag, integer, size, number, text, choice };

#define FTMPI_KNOB_ID(id, ...) id,
enum class Id { FTMPI_KNOB_LIST(FTMPI_KNOB_ID) count };
#undef FTMPI_KNOB_ID

struct Knob {
  Id id;
  const char* name;           // the environment variable, FTMPI_...
  Type type;
  const char* default_value;  // "" when the reader decides (the meaning says how)
  double min, max;            // inclusive, for integer, size and number
  const char* choices;        // '|'-separated, for choice
  const char* layer;          // library, transport, collectives, daemon, mpirun, internal, test
  const char* meaning;
};

// A parsed value: integer for flag (0/1), integer and size; number for number (integers too);
// text for text and choice (a choice in its lower-case spelling from the table).
struct Value {
  long long integer = 0;
  double number = 0;
  std::string text;
};

// The table, in declaration order; knob(id) is table()[id].
const Knob* table_begin();
const Knob* table_end();
const Knob& knob(Id id);
// The knob called `name` (e.g. "FTMPI_SHM_RINGS"), or nullptr.
const Knob* find(std::string_view name);

// THE parser: `text` as a value of `k`'s type and range. On failure returns nullopt and, when
// `why` is given, says what was expected ("an integer in [1, 65536]").
std::optional<Value> parse(const Knob& k, std::string_view text, std::string* why = nullptr);

// The text set in the environment, unparsed, if set and non-empty: for a caller that rejects
// an invalid value itself (mpirun exits 2 on a bad FTMPI_COMM_MODE) instead of warning.
std::optional<std::string> raw(Id id);
// The value set in the environment, if set, non-empty and valid (else nullopt; warns once if
// invalid). For knobs whose default depends on the situation (default_value "").
std::optional<Value> get_if_set(Id id);
// The environment's value or the table's default (a knob without a default yields a zero Value).
Value get(Id id);
inline bool flag(Id id) { return get(id).integer != 0; }
inline long long integer(Id id) { return get(id).integer; }
inline double number(Id id) { return get(id).number; }
inline std::string text(Id id) { return get(id).text; }

// "integer", "size", ...; and "[1, 65536]" / "abort|shrink|..." / "" describing what is valid.
const char* type_name(Type t);
std::string valid_values(const Knob& k);

// Prints the table for people: one block per knob (name, type, default, valid values, meaning),
// with the value currently set in the environment, if any. `markdown`: a README table instead.
void print_table(std::FILE* out, bool markdown = false);

}  // namespace ftmpi::knobs
