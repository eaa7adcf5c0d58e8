// One connection to an SQLite file: opening it, running SQL, cached statements, write transactions.
#if canImport(Glibc)
import Glibc
#endif
import CSQLite

/// Opened with SQLITE_OPEN_NOMUTEX, so SQLite takes no lock of its own: whoever holds a connection must keep
/// it to one thread at a time. `TaskStore` keeps each of its two in a lock (`Locked`) (and the writer's on one queue).
/// Not Sendable, so the compiler holds every other user to the same.
final class SQLiteConnection {
    let handle: OpaquePointer
    /// Statements compiled once and run many times (a batch can hold every task of a large queue).
    private var cache: [String: SQLiteStatement] = [:]

    /// `readOnly` opens without write access; otherwise the file is made when missing. `busyTimeout` is how
    /// long a statement waits for another connection's lock (another sluice writing a batch) before it fails
    /// with SQLITE_BUSY, in milliseconds.
    init(path: String, readOnly: Bool = false, busyTimeout: Int32 = 10_000) throws(SQLiteError) {
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        var handle: OpaquePointer?
        let code = sluice_sqlite3_open_v2(path, &handle, access | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sluice_sqlite3_close_v2(handle)  // a failed open may still have made a handle, which must be closed
            throw error
        }
        self.handle = handle
        sluice_sqlite3_extended_result_codes(handle, 1)
        sluice_sqlite3_busy_timeout(handle, busyTimeout)
    }

    deinit {
        cache = [:]  // finalized first: close_v2 would otherwise keep the connection open for them
        sluice_sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters, ignoring any rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sluice_sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle) }
    }

    /// A statement compiled for this one use.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        try SQLiteStatement(sql: sql, connection: handle)
    }

    /// The statement for `sql`, compiled on its first use and kept for the connection's life.
    func cached(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let statement = cache[sql] { return statement }
        let statement = try prepare(sql)
        cache[sql] = statement
        return statement
    }

    /// The first column of the first row of `sql` as text, nil when it returns no row or NULL.
    func text(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> String? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() && !statement.isNull(0) ? statement.text(0) : nil
    }

    /// The first column of the first row of `sql` as an integer, nil when it returns no row or NULL.
    func int64(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        try statement.bind(values)
        return try statement.step() && !statement.isNull(0) ? statement.int64(0) : nil
    }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedID: Int64 { sluice_sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a write transaction: BEGIN IMMEDIATE takes the write lock at once (waiting out another
    /// writer under the busy timeout) rather than at the first write, where a reader turned writer could
    /// only fail. Commits what `body` did, or rolls it all back when it or the commit throws.
    func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // SQLite may have rolled back already (some I/O and memory errors do); then there is nothing to end.
            if sluice_sqlite3_get_autocommit(handle) == 0 { _ = try? execute("ROLLBACK") }
            throw error
        }
    }
}
