// The UI as a download manager, without a terminal: TransferApp's plain mode against the scenario server. Downloads
// land whole with no companions left, the queue starts moved tasks first and holds the per-host limit, a dropped
// connection is retried from the partial file, and the store keeps every row.
import Dispatch
import Foundation
import SluiceEngine
import SluiceLock
import SluiceScenarioServer
import SluiceStore
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct ManagerTests {
    /// Runs the app's plain mode until every row has ended; its printed lines.
    func runToTheEnd(_ app: TransferApp) async -> [String] { await ranToTheEnd(app).lines }

    /// The same, with what the run says of how its tasks ended.
    func ranToTheEnd(_ app: TransferApp) async -> (lines: [String], run: PlainRun) {
        await offThePool {
            let lines = LinesBox()
            let run = app.runPlain(stop: StopFlag()) { lines.append($0) }
            app.cancelAll()
            app.waitUntilStopped(seconds: 10)
            app.session.invalidateAndCancel()
            return (lines.all, run)
        }
    }

    func pattern(_ count: Int) -> Data { Data(ScenarioPattern.bytes(offset: 0, count: count)) }

    @Test func downloadsLandWholeUnderTheirNamesWithNoCompanionsLeft() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, concurrency: 2)
        for (n, name) in [(70_000, "a.bin"), (1_000, "b.bin"), (300_000, "c.bin")] {
            guard case .success = app.add(server.url("/bytes/\(n)?name=\(name)").absoluteString, kind: .download) else {
                Issue.record("refused")
                return
            }
        }
        _ = await runToTheEnd(app)
        #expect(dir.entries == ["a.bin", "b.bin", "c.bin"], "\(dir.entries)")
        #expect(FileManager.default.contents(atPath: dir.path + "/c.bin") == pattern(300_000))
    }

    @Test func theAppSaysWhenNothingIsLeftToRunOnceTheLastTaskHasEnded() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, concurrency: 1)  // each end but the last starts the next
        let told = DispatchSemaphore(value: 0)
        let seen = Locked<[Bool]>([])  // at each call: whether every task had completed
        app.onIdle { [weak app] in
            seen.withLock { $0.append(app?.allCompleted ?? false) }
            told.signal()
        }
        // The first holds the only place until the gate opens, so the others are queued behind it before anything ends.
        let gate = "idle-\(UInt32.random(in: 0...UInt32.max))"
        for path in ["/drip?bytes=4096&chunk=512&interval=10&gate=\(gate)", "/bytes/2000", "/bytes/3000"] {
            guard case .success = app.add(server.url(path).absoluteString, kind: .download) else {
                Issue.record("refused")
                return
            }
        }
        server.openGate(gate)
        let said = await offThePool { told.wait(timeout: .now() + 30) == .success }
        #expect(said)
        app.waitUntilStopped(seconds: 10)
        #expect(app.allCompleted)
        #expect(seen.withLock { $0 } == [true], "told once, after the last task")
        app.session.invalidateAndCancel()
    }

    @Test func twoURLsOfOneNameGetTwoFilesNeverOnePartialFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, concurrency: 1)  // the second waits: its partial file sits unwritten
        let tag = UInt32.random(in: 0...UInt32.max)
        for query in ["a=\(tag)", "b=\(tag)"] {
            guard case .success = app.add(server.url("/bytes/300000?\(query)").absoluteString, kind: .download) else {
                Issue.record("refused")
                return
            }
        }
        _ = await runToTheEnd(app)
        #expect(dir.entries == ["300000", "300000.1"], "\(dir.entries)")
        for name in dir.entries { #expect(FileManager.default.contents(atPath: dir.path + "/" + name) == pattern(300_000)) }
    }

    @Test func quittingKeepsTheFilesOfDownloadsThatNeverStarted() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = UInt32.random(in: 0...UInt32.max)
        let app = TransferApp(outputDirectory: dir.path, concurrency: 1)
        _ = app.add(server.url("/bytes/3000000?stall=1000000&first=\(tag)").absoluteString, kind: .download)
        _ = app.add(server.url("/bytes/2000?second=\(tag)").absoluteString, kind: .download)  // queued behind the first
        // Something of an earlier run's waits beside the queued one: quitting must not take it away.
        try Data("earlier".utf8).write(to: URL(fileURLWithPath: dir.path + "/2000.sluice-part"))
        await offThePool {
            app.cancelAll()
            app.waitUntilStopped(seconds: 10)
            app.session.invalidateAndCancel()
        }
        #expect(FileManager.default.contents(atPath: dir.path + "/2000.sluice-part") == Data("earlier".utf8), "\(dir.entries)")
    }

    /// Another program takes a queued download's name (its partial file and checkpoint) before the download starts:
    /// they are its files, left as they are, and the download is saved under the next free name.
    @Test func aNameTakenBeforeTheDownloadStartsIsLeftAloneAndTheNextNameUsed() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let gate = "taken-\(UInt32.random(in: 0...UInt32.max))"
        let app = TransferApp(outputDirectory: dir.path, concurrency: 1)  // the second waits behind the gate
        _ = app.add(server.url("/drip?bytes=1024&chunk=512&interval=10&gate=\(gate)").absoluteString, kind: .download)
        guard case .success(let row) = app.add(server.url("/bytes/5000?\(gate)").absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        try Data("another program's".utf8).write(to: URL(fileURLWithPath: dir.path + "/5000.sluice-part"))
        try Data("its checkpoint".utf8).write(to: URL(fileURLWithPath: dir.path + "/5000.sluice-resume"))
        server.openGate(gate)
        let lines = await runToTheEnd(app)
        #expect(FileManager.default.contents(atPath: dir.path + "/5000.sluice-part") == Data("another program's".utf8), "\(dir.entries)")
        #expect(FileManager.default.contents(atPath: dir.path + "/5000.sluice-resume") == Data("its checkpoint".utf8))
        #expect(FileManager.default.contents(atPath: dir.path + "/5000.1") == pattern(5000), "\(dir.entries) \(lines)")
        #expect(dir.entries.filter { $0.hasPrefix("5000") } == ["5000.1", "5000.sluice-part", "5000.sluice-resume"])
        #expect(lines.contains { $0.contains("#\(row)") && $0.contains("5000.1") }, "the row says where it saves: \(lines)")
    }

    /// A long list reads the directory's names once for its claims: a user's file listed there is passed over, and
    /// a partial file another program made after the names were read (so the list does not know it) is met when the
    /// download starts: left alone, and the download placed again under the next name.
    @Test func aLongListPlacedFromTheDirectorysNamesPassesOverFilesMadeBeforeAndAfterTheyWereRead() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try Data("the user's".utf8).write(to: URL(fileURLWithPath: dir.path + "/1003"))
        let app = TransferApp(outputDirectory: dir.path, concurrency: 8)
        let sizes = Array(1000..<1070)
        try app.addingDownloads(into: dir.path, count: sizes.count) {
            try Data("another program's".utf8).write(to: URL(fileURLWithPath: dir.path + "/1005.sluice-part"))
            for size in sizes {
                guard case .success = app.addDownload(server.url("/bytes/\(size)"), to: .directory(dir.path)) else {
                    Issue.record("refused")
                    return
                }
            }
        }
        let lines = await runToTheEnd(app)
        #expect(FileManager.default.contents(atPath: dir.path + "/1003") == Data("the user's".utf8))
        #expect(FileManager.default.contents(atPath: dir.path + "/1003.1") == pattern(1003), "\(dir.entries)")
        #expect(FileManager.default.contents(atPath: dir.path + "/1005.sluice-part") == Data("another program's".utf8))
        #expect(FileManager.default.contents(atPath: dir.path + "/1005.1") == pattern(1005), "\(dir.entries) \(lines)")
        for size in sizes where size != 1003 && size != 1005 {
            #expect(FileManager.default.contents(atPath: dir.path + "/\(size)") == pattern(size))
        }
        #expect(dir.entries.count == sizes.count + 2, "\(dir.entries)")
    }

    @Test func aQueuedTaskMovedToTheFrontStartsNext() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = "order-\(UInt32.random(in: 0...UInt32.max))"
        let app = TransferApp(outputDirectory: dir.path, concurrency: 1)
        // The first holds the only slot for a few hundred milliseconds, long enough to reorder the rest.
        _ = app.add(server.url("/drip?bytes=4096&chunk=512&interval=50&\(tag)=0").absoluteString)
        var rows: [Int] = []
        for n in 1...3 {
            if case .success(let row) = app.add(server.url("/bytes/10?\(tag)=\(n)").absoluteString) { rows.append(row) }
        }
        #expect(app.perform(.move(rows[2], by: 2)) == nil, "the last queued task goes to the front")
        #expect(app.perform(.move(rows[2], by: 1)) != nil, "and no further")
        _ = await runToTheEnd(app)
        let order = server.requestOrder(containing: tag).compactMap { $0.split(separator: "=").last.map(String.init) }
        #expect(order == ["0", "3", "1", "2"], "\(order)")
    }

    @Test func atMostOneTransferPerHostWhenAskedAndTheOtherHostGoesOn() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = "host-\(UInt32.random(in: 0...UInt32.max))"
        let app = TransferApp(outputDirectory: dir.path, concurrency: 4, perHost: 1)
        let slow = "/drip?bytes=2048&chunk=512&interval=40&\(tag)="
        let local = server.baseURL.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        _ = app.add(server.url(slow + "a1").absoluteString)
        _ = app.add(server.url(slow + "a2").absoluteString)
        _ = app.add(local + slow + "b1")
        _ = await runToTheEnd(app)
        let order = server.requestOrder(containing: tag).compactMap { $0.split(separator: "=").last.map(String.init) }
        // b1 is on another host: it starts at once, before a1 has ended and a2 may start.
        #expect(order == ["a1", "b1", "a2"], "\(order)")
    }

    @Test func aHostsOwnLimitHoldsItsTasksAndCapsItsSplitWhileAnotherHostGoesOn() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = "hostlimit-\(UInt32.random(in: 0...UInt32.max))"
        let app = TransferApp(outputDirectory: dir.path, concurrency: 6, hostLimit: { $0 == "127.0.0.1" ? 1 : nil }, split: 4)
        let slow = "/drip?bytes=2048&chunk=512&interval=40&\(tag)="
        let local = server.baseURL.absoluteString.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        _ = app.add(server.url(slow + "a1").absoluteString)
        _ = app.add(server.url(slow + "a2").absoluteString)
        _ = app.add(local + slow + "b1")
        _ = app.add(local + slow + "b2")
        let ranged = "/ranged/4000000?rate=2000000&t=\(tag)"
        _ = app.add(server.url(ranged).absoluteString, kind: .download)
        _ = await runToTheEnd(app)
        let order = server.requestOrder(containing: tag).compactMap { $0.split(separator: "=").last.map(String.init) }
        // localhost has no limit of its own: b1 and b2 start at once, beside a1; a2 waits for a1.
        #expect(order.prefix(3).sorted() == ["a1", "b1", "b2"] && order.dropFirst(3).first == "a2", "\(order)")
        #expect(server.mostConcurrentRanges(ranged) <= 1, "split 4, but one connection to this host: \(server.mostConcurrentRanges(ranged)) ranges at once")
        #expect(dir.entries.count == 1 && FileManager.default.contents(atPath: dir.path + "/" + (dir.entries.first ?? "")) == pattern(4_000_000))
    }

    @Test func aDroppedDownloadIsRetriedFromItsPartialFileAndTheStoreKeepsIt() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        let state = try Scratch()
        defer { dir.remove(); state.remove() }
        let store = try TaskStore(directory: state.path)
        var fast = RetryPolicy(maximumRetries: 3)
        fast.initialDelay = 0.05
        let app = TransferApp(outputDirectory: dir.path, store: store, retries: RetryPolicies(downloads: fast))
        let path = "/bytes/2000000?drop=700000&name=dropped.bin&t=\(UInt32.random(in: 0...UInt32.max))"
        guard case .success(let row) = app.add(server.url(path).absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        _ = await runToTheEnd(app)
        #expect(FileManager.default.contents(atPath: dir.path + "/dropped.bin") == pattern(2_000_000))
        #expect(dir.entries == ["dropped.bin"], "\(dir.entries)")
        #expect(server.requestCount(path) == 2, "the first attempt dropped at 700 kB, the second asked for the rest")
        let stored = try #require(try store.all().first { $0.id == Int64(row) })
        #expect(stored.state == .completed && stored.outcome == "saved" && stored.destination == dir.path + "/dropped.bin")
        #expect(stored.timeline.contains("retry 1/3"), "\(stored.timeline)")
    }

    /// A download whose directory is removed while it runs cannot be saved: it fails, as `get -o` does, and the
    /// store does not call it saved (a tester's `rm -rf` of the output directory gave "finished", exit 0, and an
    /// on-complete hook with no file).
    @Test func aDownloadThatCannotBeSavedFails() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch(), state = try Scratch()
        defer { dir.remove(); state.remove() }
        let out = dir.path + "/gone"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let store = try TaskStore(directory: state.path)
        let app = TransferApp(outputDirectory: out, store: store, retries: RetryPolicies(downloads: nil))
        // The body holds after its first chunk until the gate opens: the directory goes before the download can end.
        let gate = "gone-\(UInt32.random(in: 0...UInt32.max))"
        guard case .success(let row) = app.add(server.url("/drip?bytes=4096&chunk=1024&interval=10&gate=\(gate)").absoluteString,
                                               kind: .download) else {
            Issue.record("refused")
            return
        }
        let removed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {  // not the test pool's threads, which other tests may all be holding
            for _ in 0..<4000 where !Scratch.entries(out).contains(where: { $0.hasSuffix(".sluice-part") }) { usleep(5000) }
            try? FileManager.default.removeItem(atPath: out)
            server.openGate(gate)
            removed.signal()
        }
        let ended = await ranToTheEnd(app).run
        _ = await offThePool { removed.wait(timeout: .now() + 30) }
        #expect(ended.failed == 1, "\(ended)")
        let stored = try #require(try store.all().first { $0.id == Int64(row) })
        #expect(stored.outcome != "finished" && stored.savedFile == nil, "\(stored.outcome ?? "nil")")
    }

    /// What the plain run says of how its tasks ended, for the command's exit status: a download saved, one the
    /// server refused (404: nothing saved) and one whose connection drops with no retry left.
    @Test func thePlainRunTellsWhichOfItsTasksFailed() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: nil))
        for path in ["/bytes/1000?name=good.bin", "/status/404", "/bytes/5000?drop=1000&name=dropped.bin"] {
            guard case .success = app.add(server.url(path).absoluteString, kind: .download) else {
                Issue.record("refused")
                return
            }
        }
        let ended = await ranToTheEnd(app).run
        #expect(ended == PlainRun(ended: 3, failed: 1, errorStatuses: 1))
        #expect(dir.entries.contains("good.bin") && !dir.entries.contains("404"))
    }

    /// A row an earlier run left unfinished and the restore ends at once (an interrupted data task) is history: the
    /// tally counts this run's tasks only.
    @Test func thePlainRunsTallyLeavesOutRowsTheRestoreEnded() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: nil))
        let interrupted = StoredTask(id: 900, url: server.url("/bytes/10").absoluteString, kind: .data, state: .running,
                                     createdAt: 1)
        app.restore([interrupted])
        guard case .success = app.add(server.url("/bytes/5000?drop=1000&name=lost.bin").absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        let ended = await ranToTheEnd(app).run
        #expect(ended == PlainRun(ended: 1, failed: 1, errorStatuses: 0))
    }

    /// Removing a failed download from the list (`x`, `sluice rm`) keeps the bytes it got, and says where: an add of
    /// the same URL goes on from them. The row was removed without a word, and the files looked orphaned.
    @Test func removingAFailedDownloadSaysItsPartialFileIsKept() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: nil))
        guard case .success(let failed) = app.add(server.url("/bytes/5000?drop=1000&t=\(UInt32.random(in: 0...UInt32.max))").absoluteString, kind: .download),
              case .success(let saved) = app.add(server.url("/bytes/300?name=whole.bin").absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        #expect(await ranToTheEnd(app).run.failed == 1)
        let partial = dir.path + "/5000.sluice-part"
        #expect(FileManager.default.fileExists(atPath: partial))
        let note = app.forget(failed)
        #expect(note == "removed #\(failed); its partial file \(partial) is kept: adding the URL again goes on from it",
                "\(note ?? "no note")")
        #expect(FileManager.default.fileExists(atPath: partial))
        #expect(app.forget(saved) == nil, "a saved download left nothing to say")
    }

    /// An expired link is most often found on a later run: a download an earlier run left failed takes a new URL
    /// (`U`, `sluice refresh`) and goes on from its partial file. Found by a tester: it was refused as "not a
    /// download of this list".
    @Test func aDownloadAnEarlierRunLeftFailedGoesOnFromANewURL() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        let state = try Scratch()
        defer { dir.remove(); state.remove() }
        let store = try TaskStore(directory: state.path)
        let tag = UInt32.random(in: 0...UInt32.max)
        let first = TransferApp(outputDirectory: dir.path, store: store, retries: RetryPolicies(downloads: nil))
        guard case .success(let row) = first.add(server.url("/bytes/5000?drop=1000&t=\(tag)").absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        #expect(await ranToTheEnd(first).run.failed == 1)
        let second = TransferApp(outputDirectory: dir.path, store: store, retries: RetryPolicies(downloads: nil))
        second.restore(try store.all())
        let fresh = server.url("/bytes/5000?t=\(tag)-new").absoluteString
        let answer = await withCheckedContinuation { done in second.refresh(row, to: fresh, force: false) { done.resume(returning: $0) } }
        #expect(answer == nil, "\(answer ?? "")")
        let run = await ranToTheEnd(second)
        #expect(run.run.failed == 0, "\(run.lines)")
        #expect(FileManager.default.contents(atPath: dir.path + "/5000") == pattern(5000), "\(dir.entries) \(run.lines)")
        #expect(dir.entries == ["5000"], "\(dir.entries)")
        #expect(server.requestCount("/bytes/5000?t=\(tag)-new") >= 1)
        let stored = try #require(try store.all().first { $0.id == Int64(row) })
        #expect(stored.state == .completed && stored.url == fresh, "\(stored.state) \(stored.url)")
    }

    /// A quit cancels the data tasks still running: the store says so at once, as the next start would have (found
    /// by a tester: `sluice history` between the runs listed them running, no process running them). A download
    /// stopped by the same quit stays unfinished, for the next start to resume.
    @Test func aQuitStoresTheDataTasksItCancelledAsInterrupted() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        let state = try Scratch()
        defer { dir.remove(); state.remove() }
        let store = try TaskStore(directory: state.path)
        let gate = "quit-\(UInt32.random(in: 0...UInt32.max))"  // never opened: both stall after their first chunk
        let app = TransferApp(outputDirectory: dir.path, store: store)
        guard case .success(let data) = app.add(server.url("/drip?bytes=4096&chunk=512&interval=10&gate=\(gate)").absoluteString, kind: .data),
              case .success(let download) = app.add(server.url("/drip?bytes=4096&chunk=512&interval=10&gate=\(gate)&d=1").absoluteString,
                                                    kind: .download) else {
            Issue.record("refused")
            return
        }
        let stop = StopFlag()
        let run = Task { await offThePool { app.runPlain(stop: stop) { _ in } } }
        // Until both are stored running (the keeper writes a running row at its next pass).
        let deadline = DispatchTime.now().uptimeNanoseconds + 120_000_000_000  // a bound, not a wait: a sanitizer run is slow
        func running() throws -> Bool {
            let rows = try store.all()
            return [data, download].allSatisfy { id in rows.contains { $0.id == Int64(id) && $0.state == .running } }
        }
        while try !running(), DispatchTime.now().uptimeNanoseconds < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(try running())
        stop.set()
        _ = await run.value
        await offThePool {
            app.waitUntilStopped(seconds: 10)
            app.session.invalidateAndCancel()
        }
        let rows = try store.all()
        let stored = try #require(rows.first { $0.id == Int64(data) })
        #expect(stored.state == .cancelled && stored.outcome == "interrupted" && stored.endedAt != nil,
                "\(stored.state) \(stored.outcome ?? "-")")
        #expect(rows.first { $0.id == Int64(download) }?.state.isFinished == false)
    }

    /// Found in review: removing an earlier run's failed row whose name another URL's download took since deleted
    /// (X) or claimed (x) that download's files. They are its own only while its checkpoint names its URL.
    @Test func removingAnEarlierFailedRowLeavesAnotherDownloadsFilesAlone() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let companions = DownloadCompanions(target: dir.path + "/file.iso")
        #expect(FileManager.default.createFile(atPath: companions.partialPath, contents: Data("b's bytes".utf8)))
        let theirs = ResumeData(url: "http://b/file.iso", path: companions.partialPath, bytesOnDisk: 9, etag: nil,
                                lastModified: nil, expectedLength: 100)
        #expect(companions.saveResume(theirs.encoded()))
        var failed = StoredTask(url: "http://a/file.iso", kind: .download, state: .failed, destination: companions.target,
                                createdAt: 0, outcome: "HTTP 404")
        failed.id = 41
        let app = TransferApp(outputDirectory: dir.path)
        app.restore([failed])
        #expect(app.purge(41, savedPath: nil).contains("file.iso.sluice-part") == false)
        #expect(FileManager.default.contents(atPath: companions.partialPath) == Data("b's bytes".utf8))
        #expect(FileManager.default.fileExists(atPath: companions.resumePath))
    }

    /// A second UI on the same store leaves alone a download another sluice is fetching (its partial file locked):
    /// it fetched it again under NAME.1, and both rows wrote the same id, losing one from the history.
    @Test func aDownloadAnotherProcessIsFetchingIsNotResumed() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let target = dir.path + "/busy.bin"
        let writer = open(target + ".sluice-part", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(writer >= 0 && PartialFileLock.take(writer))
        defer { close(writer) }
        let app = TransferApp(outputDirectory: dir.path)
        let busy = StoredTask(id: 902, url: server.url("/bytes/3000").absoluteString, kind: .download, state: .running,
                              destination: target, partialPath: target + ".sluice-part", createdAt: 1)
        #expect(app.restore([busy]) == 0)
        #expect(app.heldElsewhereAtRestore == 1)
        var model = Model()
        _ = app.drainEvents(into: &model)
        #expect(model.rows.isEmpty, "not shown as this process's")
        #expect(dir.entries == ["busy.bin.sluice-part"], "nothing fetched beside it")
        app.session.invalidateAndCancel()
    }

    /// `--exit-when-done` on a terminal exits as a plain run does: the UI's quit once everything ended keeps the
    /// tally (it exited 0 though a task had failed).
    @Test func aQuitOnceEverythingEndedKeepsTheTally() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: nil))
        _ = app.add(server.url("/bytes/5000?drop=1000&t=\(UInt32.random(in: 0...UInt32.max))").absoluteString, kind: .download)
        _ = app.add(server.url("/status/404").absoluteString, kind: .data)
        var model = Model()  // as the UI's loop holds it: drained until the app says everything ended
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        while !(app.isDone && model.rows.count == 2 && model.rows.allSatisfy(\.isFinished)) && DispatchTime.now().uptimeNanoseconds < deadline {
            _ = app.drainEvents(into: &model)
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        #expect(app.tallyAtQuit == nil, "nothing kept before a quit")
        defer { app.session.invalidateAndCancel() }
        app.quit(model: model)
        #expect(app.tallyAtQuit == PlainRun(ended: 2, failed: 1, errorStatuses: 1), "\(String(describing: app.tallyAtQuit))")
    }

    /// A download an earlier run left suspended (only the UI's `r` resumes it), and a plain run, which
    /// has no keys, says so once and ends with its own tasks instead of waiting for it for ever.
    @Test func aPlainRunDoesNotWaitForADownloadLeftSuspended() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path)
        let parked = StoredTask(id: 901, url: server.url("/bytes/3000").absoluteString, kind: .download, state: .suspended,
                                destination: dir.path + "/parked.bin", createdAt: 1)
        #expect(app.restore([parked]) == 1)
        guard case .success = app.add(server.url("/bytes/2000?name=now.bin").absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        // Not for ever: a watchdog stops the run, so that a run that waits says so and ends. Generous: in a full
        // ThreadSanitizer run on two cores other tests took 77 s, and a 20 s watchdog stopped a run that was fine.
        let stop = StopFlag()
        let watchdog = DispatchWorkItem { stop.set() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 180, execute: watchdog)
        let (lines, run) = await offThePool {
            let lines = LinesBox()
            let run = app.runPlain(stop: stop) { lines.append($0) }
            app.cancelAll()
            app.waitUntilStopped(seconds: 10)
            app.session.invalidateAndCancel()
            return (lines.all, run)
        }
        watchdog.cancel()
        #expect(!stop.isSet, "the run waited for the suspended download until the watchdog stopped it")
        #expect(dir.entries.contains("now.bin"))
        #expect(!dir.entries.contains("parked.bin"), "left as it was: not resumed")
        #expect(lines.joined(separator: "\n").split(separator: "\n").filter { $0.contains("#901") }.count == 1, "\(lines)")
        #expect(run == PlainRun(ended: 1, failed: 0, errorStatuses: 0))
    }

    /// A wait for a retry is one line, not a countdown a second: a log of a long list stays readable.
    @Test func thePlainRunSaysEachRetryOnce() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        var slow = RetryPolicy(maximumRetries: 1)
        slow.initialDelay = 2.5  // past two of the plain run's one-second progress passes
        slow.jitter = 0
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: slow))
        let path = "/bytes/20000?drop=5000&name=once.bin&t=\(UInt32.random(in: 0...UInt32.max))"
        guard case .success = app.add(server.url(path).absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        let lines = await runToTheEnd(app).flatMap { $0.split(separator: "\n").map(String.init) }
        #expect(lines.filter { $0.contains("retrying in") }.count == 1, "\(lines)")
        #expect(lines.last?.contains("finished") == true, "\(lines)")
        #expect(FileManager.default.contents(atPath: dir.path + "/once.bin") == pattern(20_000))
    }

    @Test func aSplitDownloadInTheUIRunsItsRangesAtOnceAndLandsWhole() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let path = "/ranged/8000000?rate=2000000&t=ui-split-\(UInt32.random(in: 0...UInt32.max))"
        let app = TransferApp(outputDirectory: dir.path, split: 4)
        guard case .success = app.add(server.url(path).absoluteString, kind: .download) else {
            Issue.record("refused")
            return
        }
        _ = await runToTheEnd(app)
        #expect(server.mostConcurrentRanges(path) == 4, "four ranges at once: \(server.mostConcurrentRanges(path))")
        let saved = try #require(dir.entries.first)
        #expect(dir.entries.count == 1 && FileManager.default.contents(atPath: dir.path + "/" + saved) == pattern(8_000_000))
    }

    /// A row that has ended for good lets its engine task go (its response, metrics and buffers: 2,000 finished
    /// downloads kept 6.7 MB), and keys aimed at it still answer as they did while the app held the task.
    @Test func aRowThatEndedLetsItsEngineTaskGoAndKeysStillAnswer() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path, retries: RetryPolicies(downloads: nil))
        let gone = WeakTasks()
        var rows: [Int] = []
        for path in ["/bytes/1000?name=kept.bin", "/status/404", "/bytes/700"] {
            guard case .success(let id) = app.add(server.url(path).absoluteString, kind: path == "/bytes/700" ? .data : .download) else {
                Issue.record("refused")
                return
            }
            rows.append(id)
            gone.watch(app.delegate.task(id))
        }
        _ = await runToTheEnd(app)
        // The engine lets go of a task once its last delegate call has returned, a moment after the app's.
        var alive = gone.alive
        for _ in 0..<1000 where alive > 0 {
            try await Task.sleep(nanoseconds: 10_000_000)
            alive = gone.alive
        }
        #expect(alive == 0, "engine tasks still held: \(alive)")
        let (saved, failed, data) = (rows[0], rows[1], rows[2])
        #expect(app.perform(.cancel(saved)) == "#\(saved) has already completed")
        #expect(app.perform(.resume(failed)) == "#\(failed) is completed, not suspended")
        #expect(app.perform(.suspend(saved)) == "#\(saved) is completed, not running")
        #expect(app.perform(.convert(saved)) == "#\(saved) is already a download")
        #expect(app.perform(.convert(data)) == "#\(data) has already completed")
        #expect(app.perform(.move(saved, by: 1)) == "#\(saved) is not queued: only waiting tasks change places")
        #expect(app.perform(.resume(9_999)) == "no such task")
        let answer = Locked<String?>(nil)
        app.refresh(saved, to: server.url("/bytes/1000").absoluteString, force: false) { said in answer.withLock { $0 = said } }
        #expect(answer.withLock { $0 } == "#\(saved) has finished: nothing to refresh")
    }
}

/// Lines printed from the app's loop, read by the test afterwards.
final class LinesBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

/// Weak references to engine tasks: how many of them something still holds.
final class WeakTasks: @unchecked Sendable {
    private final class Box {
        weak var task: SessionTask?
        init(_ task: SessionTask?) { self.task = task }
    }
    private let lock = NSLock()
    private var boxes: [Box] = []
    func watch(_ task: SessionTask?) { lock.withLock { boxes.append(Box(task)) } }
    var alive: Int { lock.withLock { boxes.filter { $0.task != nil }.count } }
}
