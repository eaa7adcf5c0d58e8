// libncursesw is loaded when the screen first starts (see CNcurses.h); and the one piece here that is not a
// forwarder: putting the terminal back if the process dies mid-UI.
#include "CNcurses.h"
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <termios.h>
#include <unistd.h>

// What the UI calls, and the variables it reads, looked up once. libtinfo (a dependency of libncursesw) holds some
// of them; a lookup through the library's handle finds those too.
static struct {
    SCREEN *(*newterm)(const char *, FILE *, FILE *);
    SCREEN *(*set_term)(SCREEN *);
    int (*cbreak)(void);
    int (*noecho)(void);
    int (*nonl)(void);
    int (*keypad)(WINDOW *, bool);
    int (*curs_set)(int);
    int (*set_escdelay)(int);
    int (*define_key)(const char *, int);
    bool (*has_colors)(void);
    int (*start_color)(void);
    int (*use_default_colors)(void);
    int (*init_pair)(short, short, short);
    // Fields not named as the functions where curses.h also defines the name as a macro.
    int (*set_attributes)(WINDOW *, int);
    int (*add_string_at)(WINDOW *, int, int, const char *);
    int (*wrefresh)(WINDOW *);
    void (*wtimeout)(WINDOW *, int);
    int (*wget_wch)(WINDOW *, wint_t *);
    int (*endwin)(void);
    void (*delscreen)(SCREEN *);
    WINDOW **stdscr;
    int *colors;
    int *lines;
    int *cols;
} api;
static int loaded;
static char failure[256];

#define SLUICE_LOOKUP(field, name) \
    if (!(*(void **)&api.field = dlsym(library, name))) { \
        snprintf(failure, sizeof failure, "cannot load curses: libncursesw.so.6 has no %s", name); \
        return 0; \
    }

// Only the UI's thread starts a screen, so no lock: a second start finds everything looked up.
static int load(void) {
    if (loaded) return 1;
    void *library = dlopen("libncursesw.so.6", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load curses (libncursesw.so.6): %s", why ? why : "not found");
        return 0;
    }
    SLUICE_LOOKUP(newterm, "newterm")
    SLUICE_LOOKUP(set_term, "set_term")
    SLUICE_LOOKUP(cbreak, "cbreak")
    SLUICE_LOOKUP(noecho, "noecho")
    SLUICE_LOOKUP(nonl, "nonl")
    SLUICE_LOOKUP(keypad, "keypad")
    SLUICE_LOOKUP(curs_set, "curs_set")
    SLUICE_LOOKUP(set_escdelay, "set_escdelay")
    SLUICE_LOOKUP(define_key, "define_key")
    SLUICE_LOOKUP(has_colors, "has_colors")
    SLUICE_LOOKUP(start_color, "start_color")
    SLUICE_LOOKUP(use_default_colors, "use_default_colors")
    SLUICE_LOOKUP(init_pair, "init_pair")
    SLUICE_LOOKUP(set_attributes, "wattrset")
    SLUICE_LOOKUP(add_string_at, "mvwaddstr")
    SLUICE_LOOKUP(wrefresh, "wrefresh")
    SLUICE_LOOKUP(wtimeout, "wtimeout")
    SLUICE_LOOKUP(wget_wch, "wget_wch")
    SLUICE_LOOKUP(endwin, "endwin")
    SLUICE_LOOKUP(delscreen, "delscreen")
    SLUICE_LOOKUP(stdscr, "stdscr")
    SLUICE_LOOKUP(colors, "COLORS")
    SLUICE_LOOKUP(lines, "LINES")
    SLUICE_LOOKUP(cols, "COLS")
    loaded = 1;
    return 1;
}

SCREEN *sluice_curses_start(void) {
    if (!load()) return NULL;
    SCREEN *screen = api.newterm(NULL, stdout, stdin);
    if (!screen) {
        snprintf(failure, sizeof failure, "cannot start the terminal UI (is TERM set to a terminal curses knows?)");
        return NULL;
    }
    api.set_term(screen);
    return screen;
}

const char *sluice_curses_failure(void) { return failure; }

int sluice_curses_cbreak(void) { return api.cbreak(); }
int sluice_curses_noecho(void) { return api.noecho(); }
int sluice_curses_nonl(void) { return api.nonl(); }
int sluice_curses_keypad(bool on) { return api.keypad(*api.stdscr, on); }
int sluice_curses_curs_set(int visibility) { return api.curs_set(visibility); }
int sluice_curses_set_escdelay(int milliseconds) { return api.set_escdelay(milliseconds); }
int sluice_curses_define_key(const char *sequence, int key) { return api.define_key(sequence, key); }
bool sluice_curses_has_colors(void) { return api.has_colors(); }
int sluice_curses_start_color(void) { return api.start_color(); }
int sluice_curses_use_default_colors(void) { return api.use_default_colors(); }
int sluice_curses_init_pair(short pair, short foreground, short background) { return api.init_pair(pair, foreground, background); }
int sluice_curses_colors(void) { return *api.colors; }
int sluice_curses_lines(void) { return *api.lines; }
int sluice_curses_cols(void) { return *api.cols; }
int sluice_curses_attrset(int attributes) { return api.set_attributes(*api.stdscr, attributes); }
int sluice_curses_mvaddstr(int y, int x, const char *text) { return api.add_string_at(*api.stdscr, y, x, text); }
int sluice_curses_refresh(void) { return api.wrefresh(*api.stdscr); }
void sluice_curses_timeout(int milliseconds) { api.wtimeout(*api.stdscr, milliseconds); }
int sluice_curses_get_wch(wint_t *c) { return api.wget_wch(*api.stdscr, c); }

void sluice_curses_stop(SCREEN *screen) {
    api.endwin();
    if (screen) api.delscreen(screen);
}

static struct termios saved_termios;
static int saved = 0;

/// A fatal signal (a crash) while curses owns the terminal: restore the saved modes, end bracketed paste (the
/// screen asks for it, and a shell left in it shows every paste wrapped in ESC[200~), leave the alternate
/// screen, show the cursor, then die as the signal demands. Only async-signal-safe calls.
static void sluice_restore_and_die(int sig) {
    static const char reset[] = "\033[0m\033[?2004l\033[?1049l\033[?25h\r\n";
    if (saved) tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
    (void)!write(STDOUT_FILENO, reset, sizeof reset - 1);
    signal(sig, SIG_DFL);
    raise(sig);
}

void sluice_guard_terminal(void) {
    if (tcgetattr(STDIN_FILENO, &saved_termios) == 0) saved = 1;
    int fatal[] = { SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE };
    for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], sluice_restore_and_die);
}

void sluice_unguard_terminal(void) {
    int fatal[] = { SIGABRT, SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE };
    for (unsigned i = 0; i < sizeof fatal / sizeof fatal[0]; i++) signal(fatal[i], SIG_DFL);
}
