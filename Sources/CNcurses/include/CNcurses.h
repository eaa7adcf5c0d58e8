// ncursesw for Swift, loaded when the screen first starts rather than at every start of the program: `sluice get`
// and the other commands without a screen never use it, and loading it (with libtinfo) before main cost every
// start about 1.5 M instructions and 2-3 ms (docs/decisions.md). The package does not link libncursesw: each call
// the UI makes is a sluice_curses_* function here, forwarding to the library's, looked up once (shim.c). curses.h
// is included for its types and constants only; calling one of its functions directly fails to link.
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

/// Loads the library and takes a screen on the process's own terminal (stdout, stdin) and makes it current; NULL
/// when the library cannot be loaded or TERM names no terminal curses knows (`sluice_curses_failure` says which).
SCREEN *sluice_curses_start(void);
/// Why the last `sluice_curses_start` returned NULL.
const char *sluice_curses_failure(void);
/// The rest, once started: curses' functions of the same names, on the screen's standard window.
int sluice_curses_cbreak(void);
int sluice_curses_noecho(void);
int sluice_curses_nonl(void);
int sluice_curses_keypad(bool on);
int sluice_curses_curs_set(int visibility);
int sluice_curses_set_escdelay(int milliseconds);
int sluice_curses_define_key(const char *sequence, int key);
bool sluice_curses_has_colors(void);
int sluice_curses_start_color(void);
int sluice_curses_use_default_colors(void);
int sluice_curses_init_pair(short pair, short foreground, short background);
int sluice_curses_colors(void);
int sluice_curses_lines(void);
int sluice_curses_cols(void);
int sluice_curses_attrset(int attributes);
int sluice_curses_mvaddstr(int y, int x, const char *text);
int sluice_curses_refresh(void);
void sluice_curses_timeout(int milliseconds);
int sluice_curses_get_wch(wint_t *c);
/// Ends curses mode and frees the screen.
void sluice_curses_stop(SCREEN *screen);

static inline int sluice_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int sluice_a_normal(void) { return (int)A_NORMAL; }
static inline int sluice_a_bold(void) { return (int)A_BOLD; }
static inline int sluice_a_dim(void) { return (int)A_DIM; }
static inline int sluice_a_underline(void) { return (int)A_UNDERLINE; }
static inline int sluice_a_reverse(void) { return (int)A_REVERSE; }
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
