// The one piece of CNcurses that is not a wrapper: putting the terminal back if the process dies mid-UI.
#include "CNcurses.h"
#include <signal.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved_termios;
static int saved = 0;

/// A fatal signal (a crash) while curses owns the terminal: restore the saved modes, leave the alternate
/// screen, show the cursor, then die as the signal demands. Only async-signal-safe calls.
static void sluice_restore_and_die(int sig) {
    static const char reset[] = "\033[0m\033[?1049l\033[?25h\r\n";
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
