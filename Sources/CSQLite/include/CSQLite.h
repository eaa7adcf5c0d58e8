// The system's SQLite for Swift: <sqlite3.h>, and the destructor constant Swift cannot import.
#ifndef SLUICE_CSQLITE_H
#define SLUICE_CSQLITE_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT ("copy the bytes before the bind call returns"), a macro of a cast Swift cannot import.
static inline sqlite3_destructor_type sluice_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
