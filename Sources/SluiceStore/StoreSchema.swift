// The store's tables, one migration per change of schema counted in `PRAGMA user_version`; a database made by
// a newer sluice is refused.

enum StoreSchema {
    /// The columns of `task` besides `id`, in the order `StoredTask.databaseValues` gives them.
    static let columns = [
        "url", "method", "requestHeaders", "kind", "state", "priority", "destination", "partialPath",
        "bytesReceived", "bytesExpected", "etag", "lastModified", "resumeData", "createdAt", "startedAt", "endedAt",
        "statusCode", "outcome", "error", "attempts", "timeline",
    ]

    /// Where each column of `selectSQL`'s rows is.
    static let position: [String: Int32] = Dictionary(
        uniqueKeysWithValues: (["id"] + columns).enumerated().map { ($1, Int32($0)) })

    /// Every column, `id` first; a statement continues it with WHERE, ORDER BY...
    static let selectSQL = "SELECT id, " + columns.joined(separator: ", ") + " FROM task "

    static let insertSQL = "INSERT INTO task (" + columns.joined(separator: ", ") + ") VALUES ("
        + columns.map { _ in "?" }.joined(separator: ", ") + ")"
    /// The columns, then the id.
    static let updateSQL = "UPDATE task SET " + columns.map { $0 + " = ?" }.joined(separator: ", ") + " WHERE id = ?"
    /// The id, then the columns: the row is made when it is not there.
    static let upsertSQL = "INSERT INTO task (id, " + columns.joined(separator: ", ") + ") VALUES (?, "
        + columns.map { _ in "?" }.joined(separator: ", ") + ") ON CONFLICT (id) DO UPDATE SET "
        + columns.map { $0 + " = excluded." + $0 }.joined(separator: ", ")

    /// Migration n (counted from 1) brings a database from user_version n - 1 to n. Only ever appended to.
    static let migrations = [
        // AUTOINCREMENT: an id is never given again after its row is removed, so a history line's id always
        // means the same task.
        """
        CREATE TABLE task (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            url TEXT NOT NULL,
            method TEXT NOT NULL,
            requestHeaders TEXT NOT NULL,
            kind TEXT NOT NULL,
            state TEXT NOT NULL,
            priority INTEGER NOT NULL,
            destination TEXT,
            partialPath TEXT,
            bytesReceived INTEGER NOT NULL,
            bytesExpected INTEGER,
            etag TEXT,
            lastModified TEXT,
            resumeData BLOB,
            createdAt REAL NOT NULL,
            startedAt REAL,
            endedAt REAL,
            statusCode INTEGER,
            outcome TEXT,
            error TEXT,
            attempts INTEGER NOT NULL,
            timeline TEXT NOT NULL
        );
        CREATE INDEX task_queue_order ON task (priority, id);
        CREATE INDEX task_history_order ON task (createdAt, id);
        """,
    ]

    /// Throws `StoreError.newerSchema` when a newer sluice made the file. Only reads: called before anything
    /// is written on opening (the switch to WAL changes the file's header), so a refused file is left as it is.
    static func refuseNewer(_ connection: SQLiteConnection) throws {
        _ = try version(connection)
    }

    /// Brings the database to the current schema in one write transaction, so that of two processes opening a
    /// new store at once the second waits for the first and then finds nothing left to do.
    static func migrate(_ connection: SQLiteConnection) throws {
        // Up to date (every opening but the first): no write lock taken, so `sluice history` never waits for it.
        if try connection.int64("PRAGMA user_version") == Int64(migrations.count) { return }
        try connection.writeTransaction {
            let stored = try connection.int64("PRAGMA user_version") ?? 0
            let version = try self.version(connection)
            for migration in migrations.dropFirst(Int(version)) {
                try connection.execute(migration)
            }
            if stored != migrations.count {
                try connection.execute("PRAGMA user_version = \(migrations.count)")
            }
        }
    }

    /// The migrations the file has had; throws when it has one this sluice does not know.
    private static func version(_ connection: SQLiteConnection) throws -> Int64 {
        var version = try connection.int64("PRAGMA user_version") ?? 0
        if version == 0 { version = try grdbVersion(connection) }
        // A negative version is no sluice's either: left alone all the same.
        guard (0...Int64(migrations.count)).contains(version) else { throw StoreError.newerSchema }
        return version
    }

    /// The schema version of a store that sluice made through GRDB, which kept its applied migrations by name
    /// in `grdb_migrations` and left user_version at 0: "v1" was the first migration here. A name this list
    /// does not know was a newer sluice's. 0 for a file GRDB never touched.
    private static func grdbVersion(_ connection: SQLiteConnection) throws -> Int64 {
        guard try connection.int64("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") != nil
        else { return 0 }
        let statement = try connection.prepare("SELECT identifier FROM grdb_migrations")
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.text(0)) }
        switch names {
        case []: return 0
        case ["v1"]: return 1
        default: return Int64(migrations.count) + 1
        }
    }
}
