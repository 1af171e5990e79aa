// C shim for ncursesw, imported into Swift as the CNcurses module.
//
// SwiftPM drops the -D flags pkg-config reports for ncursesw, so the wide
// character API is switched on here. Swift 6 rejects C macros that are not
// plain constants and mutable C globals (stdscr, COLORS, stdout, ...), so the
// few we need are wrapped in static inline functions prefixed `scn_`.
#ifndef SYNCSCOPE_CNCURSES_SHIM_H
#define SYNCSCOPE_CNCURSES_SHIM_H

#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <stdio.h>
#include <wchar.h>

#if __has_include(<ncursesw/curses.h>)
#include <ncursesw/curses.h>
#else
#include <curses.h>
#endif

// MARK: locale and start-up

/// `setlocale(LC_ALL, "")`: must run before the screen is created so that
/// ncurses reads and writes UTF-8.
static inline void scn_setlocale_from_environment(void) { setlocale(LC_ALL, ""); }

/// `newterm(NULL, stdout, stdin)`: unlike `initscr`, returns NULL instead of
/// exiting the process when the terminal cannot be set up.
static inline SCREEN *scn_newterm_stdio(void) { return newterm(NULL, stdout, stdin); }

static inline WINDOW *scn_stdscr(void) { return stdscr; }

/// Whether the terminal can move the cursor to a given place (terminfo
/// `cup`): without it (TERM=dumb) nothing can be drawn where it belongs.
static inline int scn_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}
static inline WINDOW *scn_curscr(void) { return curscr; }

// MARK: size

static inline int scn_getmaxy(WINDOW *win) { return getmaxy(win); }
static inline int scn_getmaxx(WINDOW *win) { return getmaxx(win); }

// MARK: attributes and colours

static inline attr_t scn_A_NORMAL(void) { return A_NORMAL; }
static inline attr_t scn_A_BOLD(void) { return A_BOLD; }
static inline attr_t scn_A_REVERSE(void) { return A_REVERSE; }
static inline attr_t scn_A_UNDERLINE(void) { return A_UNDERLINE; }
static inline attr_t scn_A_DIM(void) { return A_DIM; }
static inline int scn_COLOR_PAIR(int n) { return (int)COLOR_PAIR(n); }
static inline int scn_COLORS(void) { return COLORS; }
static inline int scn_COLOR_PAIRS(void) { return COLOR_PAIRS; }

// MARK: keys

static inline int scn_KEY_F(int n) { return KEY_F(n); }

// MARK: mouse

/// Reports left-button presses and wheel turns (no click timing: a press
/// arrives at once).
static inline void scn_enable_mouse(void) {
    mmask_t mask = BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED;
#ifdef BUTTON5_PRESSED
    mask |= BUTTON5_PRESSED;
#endif
    mousemask(mask, NULL);
    mouseinterval(0);
}

/// Reads the mouse event behind a KEY_MOUSE: 1 left press, 2 wheel up,
/// 3 wheel down, 0 anything else, -1 none; the cell in *x, *y.
static inline int scn_get_mouse(int *x, int *y) {
    MEVENT event;
    if (getmouse(&event) != OK) return -1;
    *x = event.x;
    *y = event.y;
    if (event.bstate & BUTTON4_PRESSED) return 2;
#ifdef BUTTON5_PRESSED
    if (event.bstate & BUTTON5_PRESSED) return 3;
#endif
    if (event.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    return 0;
}

// MARK: output

#define SCN_BAD_CHARACTERS (-2)

/// Puts one grapheme (a spacing wide character followed by up to
/// CCHARW_MAX - 1 combining characters, NUL-terminated) at (y, x).
/// Returns SCN_BAD_CHARACTERS when `setcchar` rejects the characters, otherwise
/// what `mvwadd_wch` returns (ERR when off-screen, and also after writing the
/// bottom-right cell, because the cursor cannot advance past it).
static inline int scn_put_wch(WINDOW *win, int y, int x, const wchar_t *wstr, attr_t attrs, int pair) {
    cchar_t cell;
    int extended_pair = pair;
    if (setcchar(&cell, wstr, attrs, (NCURSES_PAIRS_T)pair, &extended_pair) == ERR) {
        return SCN_BAD_CHARACTERS;
    }
    return mvwadd_wch(win, y, x, &cell);
}

// MARK: terminfo

/// The terminfo string capability `name`, or NULL when absent or cancelled.
static inline const char *scn_tigetstr(const char *name) {
    char *value = tigetstr(name);
    if (value == NULL || value == (char *)-1) {
        return NULL;
    }
    return value;
}

#endif
