// The schema's version is PRAGMA user_version: a newer one is refused and left as it is, and a store that sluice
// made through GRDB (which counted its migrations in a table of its own) is taken as it is.
import Foundation
@testable import SluiceStore
import Testing

@Suite struct SchemaVersionTests {
    @Test func aStoreFromANewerSluiceIsRefusedAndLeftAsItIs() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/sluice.db"
        do {
            let store = try TaskStore(directory: dir.path)
            _ = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
        }
        try SQLiteConnection(path: path).execute("PRAGMA user_version = \(StoreSchema.migrations.count + 1)")
        let before = try #require(FileManager.default.contents(atPath: path))
        #expect(throws: StoreError.self) { _ = try TaskStore(directory: dir.path) }
        do {
            _ = try TaskStore(directory: dir.path)
        } catch let error as StoreError {
            #expect("\(error)".contains("newer sluice"), "\(error)")
        }
        #expect(FileManager.default.contents(atPath: path) == before, "not touched")
        #expect(dir.entries == ["sluice.db"], "nothing moved aside, no WAL left: \(dir.entries)")
    }

    @Test func aStoreMadeThroughGRDBIsTakenAsItIs() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/sluice.db"
        var task = StoredTask.everyField()
        do {
            let grdb = try SQLiteConnection(path: path)
            try grdb.execute("""
                PRAGMA journal_mode = WAL;
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                """)
            try grdb.execute(StoreSchema.migrations[0])
            try grdb.prepare(StoreSchema.insertSQL).run(task.databaseValues)
            task.id = grdb.lastInsertedID
        }
        let store = try TaskStore(directory: dir.path)
        #expect(store.notice == nil)
        #expect(try store.all() == [task])
        #expect(try store.insert(StoredTask(url: "http://h/", createdAt: 1)).id == task.id + 1)
        #expect(try SQLiteConnection(path: path).int64("PRAGMA user_version") == Int64(StoreSchema.migrations.count))
    }

    @Test func aStoreThatGRDBMigratedFurtherIsRefused() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/sluice.db"
        do {
            let grdb = try SQLiteConnection(path: path)
            try grdb.execute("""
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2');
                """)
            try grdb.execute(StoreSchema.migrations[0])
        }
        let before = try #require(FileManager.default.contents(atPath: path))
        #expect(throws: StoreError.self) { _ = try TaskStore(directory: dir.path) }
        #expect(FileManager.default.contents(atPath: path) == before)
    }
}
