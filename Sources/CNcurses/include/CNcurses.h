// ncursesw for Swift: the macros and variadic or macro-only calls Swift cannot import, as inline functions.
#ifndef SLUICE_CNCURSES_H
#define SLUICE_CNCURSES_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1  /* wcwidth */
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <ncursesw/curses.h>
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>

static inline WINDOW *sluice_stdscr(void) { return stdscr; }
/// A screen on the process's own terminal (stdout, stdin); NULL when TERM names no terminal curses knows.
static inline SCREEN *sluice_newterm(void) { return newterm(NULL, stdout, stdin); }
static inline int sluice_lines(void) { return LINES; }
static inline int sluice_cols(void) { return COLS; }
static inline int sluice_colors(void) { return COLORS; }
static inline int sluice_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int sluice_a_normal(void) { return (int)A_NORMAL; }
static inline int sluice_a_bold(void) { return (int)A_BOLD; }
static inline int sluice_a_dim(void) { return (int)A_DIM; }
static inline int sluice_a_underline(void) { return (int)A_UNDERLINE; }
static inline int sluice_a_reverse(void) { return (int)A_REVERSE; }
static inline int sluice_attrset(int a) { return attrset(a); }
static inline int sluice_mvaddstr(int y, int x, const char *s) { return mvaddstr(y, x, s); }
static inline int sluice_get_wch(wint_t *c) { return get_wch(c); }
static inline int sluice_key_code_yes(void) { return KEY_CODE_YES; }
static inline int sluice_key_resize(void) { return KEY_RESIZE; }
static inline int sluice_key_up(void) { return KEY_UP; }
static inline int sluice_key_down(void) { return KEY_DOWN; }
static inline int sluice_key_left(void) { return KEY_LEFT; }
static inline int sluice_key_right(void) { return KEY_RIGHT; }
static inline int sluice_key_backspace(void) { return KEY_BACKSPACE; }
static inline int sluice_key_enter(void) { return KEY_ENTER; }
static inline int sluice_key_btab(void) { return KEY_BTAB; }
static inline int sluice_key_ppage(void) { return KEY_PPAGE; }
static inline int sluice_key_npage(void) { return KEY_NPAGE; }
/// Terminal columns of one character (libc's, not curses'; Glibc's Swift module does not export it).
static inline int sluice_wcwidth(unsigned int c) { return wcwidth((wchar_t)c); }
/// Saves the terminal's modes and restores them (and leaves the alternate screen) on a fatal signal.
void sluice_guard_terminal(void);
void sluice_unguard_terminal(void);
/// The locale's character set, e.g. "UTF-8".
static inline const char *sluice_codeset(void) { return nl_langinfo(CODESET); }

#endif
