// The store keeps every field as given, orders the queue and the history, finds tasks by text, never reuses ids.
import Foundation
import SluiceStore
import Testing

@Suite struct TaskStoreTests {
    @Test func everyFieldSurvivesAReopen() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var full = StoredTask.everyField()
        let bare = StoredTask(url: "http://127.0.0.1/", createdAt: 0)
        do {
            let store = try TaskStore(directory: dir.path)
            full = try store.insert(full)
            let insertedBare = try store.insert(bare)
            #expect(full.id > 0 && insertedBare.id > full.id)
        }
        let reopened = try TaskStore(directory: dir.path)
        #expect(reopened.notice == nil)
        let all = try reopened.all()
        #expect(all.count == 2)
        #expect(all.first == full, "every field as inserted")
        var expectedBare = bare
        expectedBare.id = full.id + 1
        #expect(all.last == expectedBare, "every optional stays nil, defaults as given")
        #expect(all.last?.method == "GET" && all.last?.state == .queued && all.last?.kind == .data)
    }

    @Test func anUpdateChangesEveryField() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        var task = try store.insert(StoredTask(url: "http://127.0.0.1/x", createdAt: 1))
        let id = task.id
        task = StoredTask.everyField()
        task.id = id
        store.update(task)
        store.flush()
        #expect(try TaskStore(directory: dir.path).all() == [task])
        task.destination = nil
        task.resumeData = nil
        task.statusCode = nil
        task.requestHeaders = []
        store.update(task)
        store.flush()
        #expect(try TaskStore(directory: dir.path).all() == [task], "fields set back to nil")
    }

    @Test func theQueueRunsByPriorityThenIdAndHistoryIsNewestFirst() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        let a = try store.insert(StoredTask(url: "http://h/a", priority: 5, createdAt: 30))
        let b = try store.insert(StoredTask(url: "http://h/b", priority: 1, createdAt: 10))
        let c = try store.insert(StoredTask(url: "http://h/c", priority: 5, createdAt: 20))
        let d = try store.insert(StoredTask(url: "http://h/d", priority: -2, createdAt: 20))
        #expect(try store.all().map(\.id) == [d.id, b.id, a.id, c.id])
        #expect(try store.search(nil, limit: nil).map(\.id) == [a.id, d.id, c.id, b.id], "by time, then the later id")
        #expect(try store.search("", limit: 2).map(\.id) == [a.id, d.id])
        #expect(try store.search(nil, limit: 0).isEmpty)
    }

    @Test func aRunOffATerminalReadsTheUnfinishedTasksAndTheDownloadsOfItsURLs() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        let quoted = "http://h/\"q\"/caf\u{e9}"  // given as JSON: a quote and a non-ASCII letter survive the trip
        let savedGiven = try store.insert(StoredTask(url: "http://h/a", kind: .download, state: .completed, priority: 2, createdAt: 1))
        let failedGiven = try store.insert(StoredTask(url: quoted, kind: .download, state: .failed, createdAt: 2))
        _ = try store.insert(StoredTask(url: "http://h/other", kind: .download, state: .completed, createdAt: 3))
        _ = try store.insert(StoredTask(url: "http://h/a", kind: .data, state: .completed, createdAt: 4))
        let running = try store.insert(StoredTask(url: "http://h/r", kind: .data, state: .running, createdAt: 5))
        let suspended = try store.insert(StoredTask(url: "http://h/s", kind: .download, state: .suspended, createdAt: 6))
        let queued = try store.insert(StoredTask(url: "http://h/q", kind: .download, state: .queued, priority: -1, createdAt: 7))
        _ = try store.insert(StoredTask(url: "http://h/c", kind: .download, state: .cancelled, createdAt: 8))
        #expect(try store.unfinished(orDownloadsOf: ["http://h/a", quoted, "http://h/none"]).map(\.id)
                == [queued.id, failedGiven.id, running.id, suspended.id, savedGiven.id], "by priority, then id")
        #expect(try store.unfinished(orDownloadsOf: []).map(\.id) == [queued.id, running.id, suspended.id])
        #expect(try store.unfinished(orDownloadsOf: ["http://h/a"]).first { $0.id == savedGiven.id } == store.all().first { $0.id == savedGiven.id },
                "whole rows")
    }

    @Test func searchLooksInTheURLAndTheDestination() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        let iso = try store.insert(StoredTask(url: "https://mirror.test/debian.ISO", createdAt: 1))
        let saved = try store.insert(StoredTask(url: "https://x.test/1", destination: "/srv/Debian/notes.txt", createdAt: 2))
        _ = try store.insert(StoredTask(url: "https://x.test/2", createdAt: 3))
        let percent = try store.insert(StoredTask(url: "https://x.test/100%25_done", createdAt: 4))
        #expect(try store.search("debian", limit: nil).map(\.id) == [saved.id, iso.id], "ASCII case ignored")
        #expect(try store.search(".iso", limit: nil).map(\.id) == [iso.id])
        #expect(try store.search("%25_", limit: nil).map(\.id) == [percent.id], "% and _ are plain characters")
        #expect(try store.search("nowhere", limit: nil).isEmpty)
    }

    @Test func aRemovedIdIsNeverGivenAgain() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let first: StoredTask
        do {
            let store = try TaskStore(directory: dir.path)
            first = try store.insert(StoredTask(url: "http://h/1", createdAt: 1))
            let second = try store.insert(StoredTask(url: "http://h/2", createdAt: 2))
            store.remove(id: second.id)
            store.remove(id: first.id)
            store.flush()
            #expect(try store.all().isEmpty)
        }
        let store = try TaskStore(directory: dir.path)
        let third = try store.insert(StoredTask(url: "http://h/3", createdAt: 3))
        #expect(third.id == first.id + 2)
    }

    @Test func theFileIsInWALMode() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let store = try TaskStore(directory: dir.path)
        _ = try store.insert(StoredTask(url: "http://h/", createdAt: 1))
        #expect(store.path == dir.path + "/sluice.db")
        #expect(dir.entries.contains("sluice.db-wal"), "\(dir.entries)")
        // The header's bytes 18 and 19 are 2 for WAL (1 for a rollback journal).
        let header = try #require(FileManager.default.contents(atPath: store.path)).prefix(20)
        #expect(header.count == 20 && header[18] == 2 && header[19] == 2)
    }
}
