// libsqlite3 is loaded when a store is first opened, not at every start of the program: `sluice get` never
// opens one, and loading the library before main cost every start 1.7 M instructions and about 0.5 ms
// (docs/decisions.md). Each sqlite3_* function Sluice calls is defined here with <sqlite3.h>'s own prototype and
// forwards to the library, looked up once. Add a function here before calling it from Swift: the link fails
// otherwise (the package does not link libsqlite3).
#include "CSQLite.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>

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
#define SLUICE_SQLITE_POINTER(name, ret, params, args) ret (*name) params;
static struct { SLUICE_SQLITE_ENTRY(SLUICE_SQLITE_POINTER) SLUICE_SQLITE_REST(SLUICE_SQLITE_POINTER) } api;
static int loaded;  // written once, inside pthread_once
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "cannot load SQLite (libsqlite3.so.0): %s", why ? why : "not found");
        return;
    }
#define SLUICE_SQLITE_LOOKUP(name, ret, params, args) \
    *(void **)&api.name = dlsym(library, #name); \
    if (!api.name) { \
        snprintf(failure, sizeof failure, "cannot load SQLite: libsqlite3.so.0 has no %s", #name); \
        return; \
    }
    SLUICE_SQLITE_ENTRY(SLUICE_SQLITE_LOOKUP)
    SLUICE_SQLITE_REST(SLUICE_SQLITE_LOOKUP)
    loaded = 1;
}

static int ready(void) {
    pthread_once(&once, load);
    return loaded;
}

// Opening is where the library is first needed: without it, the open fails and errstr says why.
int sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
    if (!ready()) {
        if (db) *db = NULL;
        return SQLITE_CANTOPEN;
    }
    return api.sqlite3_open_v2(filename, db, flags, vfs);
}

int sqlite3_close_v2(sqlite3 *db) { return ready() ? api.sqlite3_close_v2(db) : SQLITE_OK; }

const char *sqlite3_errstr(int code) { return ready() ? api.sqlite3_errstr(code) : failure; }

#define SLUICE_SQLITE_FORWARD(name, ret, params, args) \
    ret name params { return api.name args; }
SLUICE_SQLITE_REST(SLUICE_SQLITE_FORWARD)
