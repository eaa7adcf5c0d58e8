// Updates and removals are batched: a burst is one transaction, the background writes without flush, the
// latest version wins, and a removed row stays removed.
import Foundation
import SluiceStore
import Testing

@Suite struct BatchingTests {
    @Test func aThousandUpdatesOfOneRowAreOneWrite() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        // An interval no test outlives: only flush() writes, so the count cannot depend on the machine's speed.
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        var task = try store.insert(StoredTask(url: "http://h/", kind: .download, createdAt: 1))
        let before = store.statistics
        #expect(before == TaskStore.Statistics(transactions: 1, rowsWritten: 1), "the insert")
        for n in 1...1000 {
            task.bytesReceived = Int64(n)
            store.update(task)
        }
        #expect(store.statistics == before, "nothing written on the caller's thread")
        store.flush()
        #expect(store.statistics == TaskStore.Statistics(transactions: 2, rowsWritten: 2))
        #expect(try TaskStore(directory: dir.path).all().first?.bytesReceived == 1000, "the latest version")
    }

    @Test func manyRowsGoInOneTransaction() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        var tasks = try (0..<50).map { try store.insert(StoredTask(url: "http://h/\($0)", createdAt: Double($0))) }
        let before = store.statistics
        for round in 1...20 {
            for i in tasks.indices {
                tasks[i].bytesReceived = Int64(round)
                store.update(tasks[i])
            }
        }
        store.remove(id: tasks[0].id)
        store.flush()
        #expect(store.statistics.transactions == before.transactions + 1)
        #expect(store.statistics.rowsWritten == before.rowsWritten + 50, "49 updates and one removal")
        let stored = try store.all()
        #expect(stored.count == 49 && stored.allSatisfy { $0.bytesReceived == 20 })
    }

    @Test func manyInsertsAreOneTransaction() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        let tasks = try store.insert((0..<2000).map { StoredTask(url: "http://h/\($0)", createdAt: Double($0)) })
        #expect(store.statistics == TaskStore.Statistics(transactions: 1, rowsWritten: 2000))
        #expect(tasks.map(\.id) == Array(1...2000))
        #expect(try store.all().map(\.url) == tasks.map(\.url))
    }

    @Test func theBackgroundWritesWithoutFlush() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 0.05)
        var task = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
        task.state = .running
        store.update(task)
        let other = try TaskStore(directory: dir.path)
        // Waits for the write (a condition, not a guess at its time); 30 s allows a sanitizer's slowdown.
        let deadline = Date().addingTimeInterval(30)
        while store.statistics.transactions < 2 && Date() < deadline {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(store.statistics.transactions == 2, "one batch written")
        #expect(try other.all().first?.state == .running, "visible to another connection without flush")
    }

    @Test func aRemovedRowIsNotBroughtBackByALateUpdate() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        var a = try store.insert(StoredTask(url: "http://h/a", createdAt: 1))
        var b = try store.insert(StoredTask(url: "http://h/b", createdAt: 2))
        store.remove(id: a.id)
        a.bytesReceived = 5
        store.update(a)  // in the same batch as the removal
        store.remove(id: b.id)
        store.flush()
        b.bytesReceived = 7
        store.update(b)  // in a later batch
        store.flush()
        #expect(try store.all().isEmpty)
    }

    @Test func anUnflushedStoreWritesItsQueueWhenReleased() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var task: StoredTask
        do {
            let store = try TaskStore(directory: dir.path, batchInterval: 3600)
            task = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
            task.outcome = "saved"
            store.update(task)
        }
        #expect(try TaskStore(directory: dir.path).all() == [task])
    }
}
