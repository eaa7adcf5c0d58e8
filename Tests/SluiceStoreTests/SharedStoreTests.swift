// Two stores on one file, as two sluice processes would have: each sees what the other wrote.
import Foundation
import SluiceStore
import Testing

@Suite struct SharedStoreTests {
    @Test func twoInstancesSeeEachOthersWrites() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let a = try TaskStore(directory: dir.path, batchInterval: 3600)
        let b = try TaskStore(directory: dir.path, batchInterval: 3600)
        var fromA = try a.insert(StoredTask(url: "http://h/a", createdAt: 1))
        var fromB = try b.insert(StoredTask(url: "http://h/b", createdAt: 2))
        #expect(fromB.id == fromA.id + 1, "one id sequence")
        #expect(try b.all().map(\.url) == ["http://h/a", "http://h/b"])
        fromA.bytesReceived = 10
        a.update(fromA)
        fromB.bytesReceived = 20
        b.update(fromB)
        a.flush()
        b.flush()
        #expect(try a.all().map(\.bytesReceived) == [10, 20])
        #expect(try b.all().map(\.bytesReceived) == [10, 20])
    }

    @Test func twoInstancesWritingAtOnceLoseNothing() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let stores = [try TaskStore(directory: dir.path, batchInterval: 0.01), try TaskStore(directory: dir.path, batchInterval: 0.01)]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, store) in stores.enumerated() {
                group.addTask {
                    for i in 0..<100 {
                        var task = try store.insert(StoredTask(url: "http://h/\(n)/\(i)", createdAt: Double(i)))
                        task.outcome = "saved"
                        store.update(task)
                    }
                    store.flush()
                }
            }
            try await group.waitForAll()
        }
        let all = try stores[0].all()
        #expect(all.count == 200 && all.allSatisfy { $0.outcome == "saved" })
        #expect(stores.allSatisfy { $0.writeError == nil })
    }

    @Test func aNewStoreOpenedTwiceAtOnceIsMigratedOnce() async throws {
        for _ in 0..<5 {
            let dir = try Scratch()
            defer { dir.remove() }
            let path = dir.path
            let opened = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        do { _ = try TaskStore(directory: path); return nil } catch { return "\(error)" }
                    }
                }
                return await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
            }
            #expect(opened.isEmpty, "\(opened)")
            #expect(!dir.entries.contains { $0.contains("corrupt") })
        }
    }
}
