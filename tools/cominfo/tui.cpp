#include "tui.h"

#include <curses.h>

#include <csignal>

namespace ftmpi::tools {

namespace {
short pair_of(Color c) { return static_cast<short>(static_cast<int>(c) + 1); }

void init_colors() {
    if (!has_colors()) return;
    start_color();
    use_default_colors();
    auto set = [](Color c, short fg) { init_pair(pair_of(c), fg, -1); };
    set(Color::normal, -1);
    set(Color::comm_ok, COLOR_GREEN);
    set(Color::proc_ok, COLOR_GREEN);
    set(Color::comm_detected, COLOR_YELLOW);
    set(Color::comm_recover, COLOR_MAGENTA);
    set(Color::comm_recovered, COLOR_CYAN);
    set(Color::proc_joining, COLOR_CYAN);
    set(Color::comm_failed, COLOR_RED);
    set(Color::proc_failed, COLOR_RED);
    set(Color::proc_unavailable, COLOR_BLUE);
    set(Color::title, -1);
    set(Color::dim, -1);
}

attr_t attr_of(Color c) {
    attr_t a = has_colors() ? COLOR_PAIR(pair_of(c)) : 0;
    if (c == Color::title || c == Color::comm_failed || c == Color::proc_failed) a |= A_BOLD;
    if (c == Color::dim) a |= A_DIM;
    if (!has_colors() && (c == Color::comm_failed || c == Color::proc_failed)) a |= A_REVERSE;
    return a;
}

void paint(const Screen& s) {
    erase();
    for (int y = 0; y < s.h; ++y) {
        for (int x = 0; x < s.w; ++x) {
            char ch = s.rows[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)];
            Color c = s.colors[static_cast<std::size_t>(y)][static_cast<std::size_t>(x)];
            if (ch == ' ' && c == Color::normal) continue;
            // The bottom-right cell cannot be written without scrolling on some terminals.
            if (y == s.h - 1 && x == s.w - 1) continue;
            mvaddch(y, x, static_cast<chtype>(static_cast<unsigned char>(ch)) | attr_of(c));
        }
    }
    refresh();
}
}  // namespace

int run_live(const std::function<Screen(ViewState&, int, int)>& draw,
             const std::function<void(int, ViewState&)>& on_key, int interval_ms) {
    if (initscr() == nullptr) return 1;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    init_colors();
    timeout(interval_ms);
    ViewState v;
    for (;;) {
        int h = 0, w = 0;
        getmaxyx(stdscr, h, w);
        paint(draw(v, w, h));
        int ch = getch();
        if (ch == ERR || ch == KEY_RESIZE) continue;
        if (v.help) {  // any key leaves the help
            v.help = false;
            if (ch != 'q') continue;
        }
        const int page = h > 3 ? h - 3 : 1;
        switch (ch) {
            case 'q': case 'Q': endwin(); return 0;
            case KEY_UP: case 'k': v.scroll -= 1; break;
            case KEY_DOWN: v.scroll += 1; break;
            case KEY_PPAGE: v.scroll -= page; break;
            case KEY_NPAGE: case ' ': v.scroll += page; break;
            case KEY_HOME: v.scroll = 0; break;
            case KEY_END: v.scroll = 1 << 28; break;
            case '?': v.help = true; break;
            default:
                if (on_key) on_key(ch, v);
        }
    }
}

}  // namespace ftmpi::tools
