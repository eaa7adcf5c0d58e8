// A damaged or unreadable store file is moved aside with its companions, never deleted, and a new one made.
import Foundation
import SluiceStore
import Testing

@Suite struct DamagedStoreTests {
    @Test func aFileThatIsNotADatabaseIsMovedAside() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let garbage = Data(String(repeating: "not a database, just text\n", count: 400).utf8)
        try garbage.write(to: URL(fileURLWithPath: dir.path + "/sluice.db"))
        let store = try TaskStore(directory: dir.path)
        let moved = try #require(dir.entries.first { $0.hasPrefix("sluice.db.corrupt-") })
        #expect(moved.wholeMatch(of: /sluice\.db\.corrupt-\d{8}-\d{6}/) != nil, "\(moved)")
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved) == garbage, "kept byte for byte")
        let notice = try #require(store.notice)
        #expect(notice.contains(dir.path + "/" + moved) && notice.contains("moved"), "\(notice)")
        _ = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
        #expect(try store.all().count == 1, "a working new store")
    }

    @Test func damagedPagesAreFound() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        do {
            let store = try TaskStore(directory: dir.path, batchInterval: 3600)
            for n in 0..<300 {
                _ = try store.insert(StoredTask(url: "http://h/" + String(repeating: "x", count: 200) + "\(n)", createdAt: Double(n)))
            }
        }
        // Closing the last connection checkpoints the WAL into the file; then scribble over its middle pages,
        // keeping the 100-byte header valid so that SQLite opens it.
        let path = dir.path + "/sluice.db"
        var bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count > 8 * 4096)
        for i in 4096..<(bytes.count - 4096) { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try bytes.write(to: URL(fileURLWithPath: path))

        let store = try TaskStore(directory: dir.path)
        let notice = try #require(store.notice)
        let moved = try #require(dir.entries.first { $0.hasPrefix("sluice.db.corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved) == bytes, "kept byte for byte; \(notice)")
        #expect(notice.contains("integrity check") || notice.contains("malformed"), "\(notice)")
        #expect(try store.all().isEmpty)
    }

    /// SQLite ties a WAL to its database by name only: left in place, a damaged file's WAL would be read as the
    /// new store's.
    @Test func theWALAndSharedMemoryGoAlong() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/sluice.db"
        let garbage = Data(String(repeating: "garbage ", count: 600).utf8)
        let wal = Data("a WAL of the damaged file".utf8)
        let shm = Data("its shared memory".utf8)
        try garbage.write(to: URL(fileURLWithPath: path))
        try wal.write(to: URL(fileURLWithPath: path + "-wal"))
        try shm.write(to: URL(fileURLWithPath: path + "-shm"))
        let store = try TaskStore(directory: dir.path)
        #expect(store.notice != nil)
        let moved = try #require(dir.entries.first { $0.hasPrefix("sluice.db.corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved) == garbage)
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved + "-wal") == wal)
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved + "-shm") == shm)
        _ = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
        #expect(try store.all().count == 1)
    }

    @Test func aDirectoryInPlaceOfTheFileIsMovedAside() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/sluice.db", withIntermediateDirectories: false)
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: dir.path + "/sluice.db/inside"))
        let store = try TaskStore(directory: dir.path)
        #expect(store.notice != nil)
        let moved = try #require(dir.entries.first { $0.hasPrefix("sluice.db.corrupt-") })
        #expect(FileManager.default.contents(atPath: dir.path + "/" + moved + "/inside") == Data("keep me".utf8))
        _ = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
    }

    @Test func twoDamagedFilesInOneSecondKeepBoth() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var names: Set<String> = []
        for n in 0..<2 {
            try Data("garbage \(n)".utf8).write(to: URL(fileURLWithPath: dir.path + "/sluice.db"))
            _ = try TaskStore(directory: dir.path)
            names = Set(dir.entries.filter { $0.hasPrefix("sluice.db.corrupt-") })
        }
        #expect(names.count == 2, "\(names)")
    }
}
