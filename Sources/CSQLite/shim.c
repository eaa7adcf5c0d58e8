// libsqlite3 is loaded when a store is first opened, not at every start of the program: `sluice get` never
// opens one, and loading the library before main cost every start 1.7 M instructions and about 0.5 ms
// (docs/decisions.md). Each function Sluice calls is sluice_sqlite3_NAME here, with <sqlite3.h>'s prototype of
// NAME, and forwards to the library's NAME, looked up once. The list is in CSQLite.h: a function not in it
// cannot be called (the package does not link libsqlite3).
#include "CSQLite.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>

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
int sluice_sqlite3_open_v2(const char *filename, sqlite3 **db, int flags, const char *vfs) {
    if (!ready()) {
        if (db) *db = NULL;
        return SLUICE_SQLITE_NOT_LOADED;
    }
    return api.sqlite3_open_v2(filename, db, flags, vfs);
}

int sluice_sqlite3_close_v2(sqlite3 *db) { return ready() ? api.sqlite3_close_v2(db) : SQLITE_OK; }

const char *sluice_sqlite3_errstr(int code) { return ready() ? api.sqlite3_errstr(code) : failure; }

#define SLUICE_SQLITE_FORWARD(name, ret, params, args) \
    ret sluice_##name params { return api.name args; }
SLUICE_SQLITE_REST(SLUICE_SQLITE_FORWARD)
