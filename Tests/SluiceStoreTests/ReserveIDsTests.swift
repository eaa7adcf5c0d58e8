// Reserved ids: past every id given or removed, never given again by any store on the file, and the first
// update of one makes its row.
import Foundation
import SluiceStore
import Testing

@Suite struct ReserveIDsTests {
    @Test func reservedIDsStartPastRemovedRowsAndAreNeverGivenAgain() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let a = try TaskStore(directory: dir.path, batchInterval: 3600)
        let first = try a.insert(StoredTask(url: "http://h/1", createdAt: 1))
        let second = try a.insert(StoredTask(url: "http://h/2", createdAt: 2))
        a.remove(id: second.id)
        a.flush()
        #expect(try a.reserveIDs(3) == (second.id + 1)..<(second.id + 4), "past the removed row, not only max(id)")
        let b = try TaskStore(directory: dir.path, batchInterval: 3600)
        #expect(try b.insert(StoredTask(url: "http://h/3", createdAt: 3)).id == second.id + 4, "another store's insert")
        #expect(try b.reserveIDs(2) == (second.id + 5)..<(second.id + 7))
        #expect(try a.insert(StoredTask(url: "http://h/4", createdAt: 4)).id == second.id + 7)
        #expect(try a.reserveIDs(0).isEmpty)
        #expect(try TaskStore(directory: dir.path).insert(StoredTask(url: "http://h/5", createdAt: 5)).id == second.id + 8,
                "an empty reservation moves nothing; reopening forgets nothing")
        #expect(first.id == 1)
    }

    @Test func aNewStoreReservesFromOne() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        #expect(try store.reserveIDs(2) == 1..<3)
        #expect(store.statistics == TaskStore.Statistics(transactions: 0, rowsWritten: 0), "no task was written")
        #expect(try store.all().isEmpty)
        #expect(try store.insert(StoredTask(url: "http://h/", createdAt: 1)).id == 3)
    }

    /// A run reserves 256 ids and uses two: the rest go back when it ends, so the next run's first task is #3,
    /// not #257. Only ids never handed out, and only while no other store has reserved past them.
    @Test func idsNeverHandedOutAreGivenBackForTheNextRun() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let a = try TaskStore(directory: dir.path, batchInterval: 3600)
        let ids = try a.reserveIDs(256)
        #expect(ids == 1..<257)
        for id in ids.prefix(2) { a.update(StoredTask(id: id, url: "http://h/\(id)", createdAt: 1)) }
        #expect(a.giveBack(ids.dropFirst(2)), "nothing reserved past them")
        #expect(try TaskStore(directory: dir.path).reserveIDs(1) == 3..<4)
        #expect(try a.all().map(\.id) == [1, 2], "the rows written before are kept")
    }

    @Test func idsAreKeptWhenAnotherStoreReservedPastThemOrOneWasWritten() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let a = try TaskStore(directory: dir.path, batchInterval: 3600)
        let b = try TaskStore(directory: dir.path, batchInterval: 3600)
        let first = try a.reserveIDs(10)
        _ = try b.reserveIDs(5)
        #expect(!a.giveBack(first.dropFirst()), "b's ids lie past them: giving them back would hand out 2-10 again")
        #expect(try TaskStore(directory: dir.path).reserveIDs(1) == 16..<17)
        let second = try a.reserveIDs(10)
        a.update(StoredTask(id: second.upperBound - 1, url: "http://h/last", createdAt: 1))
        #expect(!a.giveBack(second), "one of them names a row")
        #expect(try TaskStore(directory: dir.path).reserveIDs(1) == 27..<28)
    }

    @Test func twoStoresReservingAtOnceNeverShareAnID() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let stores = [try TaskStore(directory: dir.path), try TaskStore(directory: dir.path)]
        let ids = try await withThrowingTaskGroup(of: [Int64].self) { group in
            for store in stores {
                group.addTask {
                    var ids: [Int64] = []
                    for n in 0..<50 {
                        ids += Array(try store.reserveIDs(n % 3 + 1))
                        ids.append(try store.insert(StoredTask(url: "http://h/\(n)", createdAt: Double(n))).id)
                    }
                    return ids
                }
            }
            return try await group.reduce(into: [Int64]()) { $0 += $1 }
        }
        let perStore = 50 + (0..<50).map { $0 % 3 + 1 }.reduce(0, +)
        #expect(ids.count == 2 * perStore)
        #expect(Set(ids).count == ids.count, "no id given twice")
    }

    @Test func theFirstUpdateOfAReservedIDMakesItsRow() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        let ids = try store.reserveIDs(2)
        var task = StoredTask.everyField()
        task.id = ids.lowerBound
        store.update(task)
        store.flush()
        #expect(store.statistics == TaskStore.Statistics(transactions: 1, rowsWritten: 1))
        #expect(try TaskStore(directory: dir.path).all() == [task], "made, every field as given")
        task.bytesReceived = 7
        task.etag = nil
        store.update(task)
        store.flush()
        #expect(try TaskStore(directory: dir.path).all() == [task], "then changed in place")
        #expect(store.statistics == TaskStore.Statistics(transactions: 2, rowsWritten: 2))
    }

    @Test func aReservedRowRemovedStaysRemoved() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        let ids = try store.reserveIDs(3)
        let tasks = ids.map { id -> StoredTask in
            var task = StoredTask(url: "http://h/\(id)", createdAt: Double(id))
            task.id = id
            return task
        }
        // The first: removed in the same batch as its first update. The second: removed before it was ever
        // written, then updated in a later batch. The third: written, removed, then updated late.
        store.update(tasks[0])
        store.remove(id: tasks[0].id)
        store.update(tasks[0])
        store.remove(id: tasks[1].id)
        store.update(tasks[2])
        store.flush()
        #expect(try store.all() == [tasks[2]])
        store.update(tasks[1])
        store.remove(id: tasks[2].id)
        store.flush()
        store.update(tasks[2])
        store.flush()
        #expect(try store.all().isEmpty)
    }

    @Test func anUpdateOfAnIDNeverReservedMakesNoRow() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path, batchInterval: 3600)
        let other = try TaskStore(directory: dir.path, batchInterval: 3600)
        let ids = try other.reserveIDs(1)
        var task = StoredTask(url: "http://h/", createdAt: 1)
        task.id = ids.lowerBound  // reserved by the other store, which may still write it
        store.update(task)
        task.id = 1000
        store.update(task)
        store.flush()
        #expect(try store.all().isEmpty)
        #expect(store.writeError == nil)
    }
}
