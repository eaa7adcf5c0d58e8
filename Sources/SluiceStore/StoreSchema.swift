// The store's tables, one migration per change of schema; a database made by a newer sluice is refused.
import GRDB

enum StoreSchema {
    /// The columns of `task` besides `id`, in the order `StoredTask.databaseValues` gives them.
    static let columns = [
        "url", "method", "requestHeaders", "kind", "state", "priority", "destination", "partialPath",
        "bytesReceived", "bytesExpected", "etag", "lastModified", "resumeData", "createdAt", "startedAt", "endedAt",
        "statusCode", "outcome", "error", "attempts", "timeline",
    ]

    static let insertSQL = "INSERT INTO task (" + columns.joined(separator: ", ") + ") VALUES ("
        + columns.map { _ in "?" }.joined(separator: ", ") + ")"
    static let updateSQL = "UPDATE task SET " + columns.map { $0 + " = ?" }.joined(separator: ", ") + " WHERE id = ?"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // AUTOINCREMENT: an id is never given again after its row is removed, so a history line's id
            // always means the same task.
            try db.execute(sql: """
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
                """)
        }
        return migrator
    }

    /// Brings the database to the current schema. Two processes opening a new store at once can both see "v1"
    /// unapplied; the loser's migration then fails on the table the winner made, and a second pass (which
    /// reads the applied list again, after the winner committed) finds nothing left to do.
    static func migrate(_ pool: DatabasePool) throws {
        let migrator = migrator
        if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
            throw StoreError.newerSchema
        }
        do {
            try migrator.migrate(pool)
        } catch {
            try migrator.migrate(pool)
        }
    }
}
