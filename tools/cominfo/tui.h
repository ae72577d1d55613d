// The full-screen live loop shared by cominfo and hostinfo (ncurses).
#pragma once

#include <functional>

#include "render.h"

namespace ftmpi::tools {

// Paints `draw(view, width, height)` every `interval_ms` and after every key, until q. Arrow
// keys and PageUp/PageDown scroll; other keys go to `on_key` (may be empty). Survives resizes.
int run_live(const std::function<Screen(ViewState&, int, int)>& draw,
             const std::function<void(int, ViewState&)>& on_key, int interval_ms);

}  // namespace ftmpi::tools
