// Swift imports CNcurses through include/CNcurses.h; this file gives the target a compiled unit.
