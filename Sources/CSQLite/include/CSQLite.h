// The system's SQLite for Swift: <sqlite3.h>'s types and constants, the destructor constant Swift cannot import,
// and the functions Sluice calls, as sluice_sqlite3_* (shim.c): they load libsqlite3 when a store is first opened,
// not at every start. The library's own names are not defined here, so nothing else that links this module
// (SluiceDaemon is a library product) meets a second sqlite3_open_v2.
#ifndef SLUICE_CSQLITE_H
#define SLUICE_CSQLITE_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT ("copy the bytes before the bind call returns"), a macro of a cast Swift cannot import.
static inline sqlite3_destructor_type sluice_sqlite_transient(void) { return SQLITE_TRANSIENT; }
/// SQLITE_STATIC ("the bytes stay where they are until the statement is reset or bound again").
static inline sqlite3_destructor_type sluice_sqlite_static(void) { return SQLITE_STATIC; }

// Name, return type, parameters, arguments: one line per function. The entry points work without the library
// (a failed open says why); the rest take a connection or a statement, which only a loaded library can have made.
#define SLUICE_SQLITE_ENTRY(X) \
    X(sqlite3_open_v2, int, (const char *a, sqlite3 **b, int c, const char *d), (a, b, c, d)) \
    X(sqlite3_close_v2, int, (sqlite3 *a), (a)) \
    X(sqlite3_errstr, const char *, (int a), (a))
#define SLUICE_SQLITE_REST(X) \
    X(sqlite3_errmsg, const char *, (sqlite3 *a), (a)) \
    X(sqlite3_extended_errcode, int, (sqlite3 *a), (a)) \
    X(sqlite3_extended_result_codes, int, (sqlite3 *a, int b), (a, b)) \
    X(sqlite3_busy_timeout, int, (sqlite3 *a, int b), (a, b)) \
    X(sqlite3_exec, int, (sqlite3 *a, const char *b, int (*c)(void *, int, char **, char **), void *d, char **e), \
      (a, b, c, d, e)) \
    X(sqlite3_changes, int, (sqlite3 *a), (a)) \
    X(sqlite3_last_insert_rowid, sqlite3_int64, (sqlite3 *a), (a)) \
    X(sqlite3_get_autocommit, int, (sqlite3 *a), (a)) \
    X(sqlite3_prepare_v3, int, (sqlite3 *a, const char *b, int c, unsigned int d, sqlite3_stmt **e, const char **f), \
      (a, b, c, d, e, f)) \
    X(sqlite3_step, int, (sqlite3_stmt *a), (a)) \
    X(sqlite3_reset, int, (sqlite3_stmt *a), (a)) \
    X(sqlite3_finalize, int, (sqlite3_stmt *a), (a)) \
    X(sqlite3_clear_bindings, int, (sqlite3_stmt *a), (a)) \
    X(sqlite3_bind_parameter_count, int, (sqlite3_stmt *a), (a)) \
    X(sqlite3_bind_text, int, (sqlite3_stmt *a, int b, const char *c, int d, void (*e)(void *)), (a, b, c, d, e)) \
    X(sqlite3_bind_blob, int, (sqlite3_stmt *a, int b, const void *c, int d, void (*e)(void *)), (a, b, c, d, e)) \
    X(sqlite3_bind_zeroblob, int, (sqlite3_stmt *a, int b, int c), (a, b, c)) \
    X(sqlite3_bind_null, int, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_bind_int64, int, (sqlite3_stmt *a, int b, sqlite3_int64 c), (a, b, c)) \
    X(sqlite3_bind_double, int, (sqlite3_stmt *a, int b, double c), (a, b, c)) \
    X(sqlite3_column_type, int, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_column_text, const unsigned char *, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_column_bytes, int, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_column_int64, sqlite3_int64, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_column_double, double, (sqlite3_stmt *a, int b), (a, b)) \
    X(sqlite3_column_blob, const void *, (sqlite3_stmt *a, int b), (a, b))
#define SLUICE_SQLITE_DECLARE(name, ret, params, args) ret sluice_##name params;
SLUICE_SQLITE_ENTRY(SLUICE_SQLITE_DECLARE)
SLUICE_SQLITE_REST(SLUICE_SQLITE_DECLARE)

/// The result of opening when libsqlite3 could not be loaded: an error that is not the file's (SQLITE_CANTOPEN
/// would have the store moved aside as damaged); sluice_sqlite3_errstr then says why.
#define SLUICE_SQLITE_NOT_LOADED SQLITE_ERROR

#endif
