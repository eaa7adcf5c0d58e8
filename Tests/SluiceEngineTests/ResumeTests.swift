// Resume data against the scenario server: Range and If-Range, a range ignored, a changed validator, a drop.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

@Suite struct ResumeTests {
    /// Downloads `path` until `stall` bytes are on disk (the server then goes silent), cancels with resume data.
    func interrupted(_ path: String, at stall: Int64, dir: ScratchDirectory) async throws -> Data? {
        let server = try Servers.shared()
        let recorder = DownloadRecorder()
        recorder.cancelAfter = stall
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        session.downloadTask(with: server.url(path)).resume()
        guard await recorder.waitForCompletion() else { return nil }
        let s = recorder.snapshot
        #expect(s.error?.code == .cancelled)
        #expect(s.resumeDataCalls == 1)
        #expect(s.error?.resumeData == s.resumeData)
        #expect(s.calls.suffix(2) == ["resumeData", "complete"])
        return s.resumeData
    }

    func resumed(_ data: Data, dir: ScratchDirectory) async throws -> DownloadRecorder {
        let recorder = DownloadRecorder()
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        try session.downloadTask(withResumeData: data).resume()
        _ = await recorder.waitForCompletion()
        return recorder
    }

    /// A partial file the caller found free and another download made before this one started: the task fails and
    /// that file is left as it was; when the name is still free, the task makes it.
    @Test func anExclusivePartialFileIsMadeAtTheStartOrNotAtAll() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let taken = dir.path + "/taken.sluice-part"
        try Data("another download's".utf8).write(to: URL(fileURLWithPath: taken))
        let recorder = DownloadRecorder()
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        session.downloadTask(with: Request(url: server.url("/bytes/100")), partialFile: taken, exclusive: true).resume()
        guard await recorder.waitForCompletion() else { return }
        #expect(recorder.snapshot.error?.code == .cannotCreateFile)
        #expect(recorder.snapshot.error?.message.contains("another program took the name") == true)
        #expect(FileManager.default.contents(atPath: taken) == Data("another download's".utf8))

        let fresh = dir.path + "/fresh.sluice-part"
        let second = DownloadRecorder()
        let other = downloadSession(second, directory: dir)
        defer { other.finishTasksAndInvalidate() }
        other.downloadTask(with: Request(url: server.url("/bytes/100")), partialFile: fresh, exclusive: true).resume()
        guard await second.waitForCompletion() else { return }
        #expect(second.snapshot.error == nil)
        #expect(second.snapshot.fileBody == patternBytes(count: 100))
    }

    @Test func resumeContinuesWithARangeRequest() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 5_000_000, stall: Int64 = 1_200_000
        guard let data = try await interrupted("/bytes/\(size)?stall=\(stall)", at: stall, dir: dir) else {
            Issue.record("no resume data")
            return
        }
        let resume = try #require(ResumeData.decode(data))
        #expect(resume.bytesOnDisk == stall)
        #expect(resume.etag == "\"sluice-\(size)\"")
        #expect(resume.expectedLength == Int64(size))
        #expect(dir.entries.count == 1, "the partial file is kept")
        let recorder = try await resumed(data, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.map(\.offset) == [stall])
        #expect(s.resumedAt.map(\.expected) == [Int64(size)])
        #expect(s.writes.last?.total == Int64(size))
        #expect(s.fileBody == patternBytes(count: size))
        #expect(dir.entries.isEmpty)
    }

    @Test func aServerThatIgnoresTheRangeRestartsFromZero() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 2_000_000, stall: Int64 = 300_000
        guard let data = try await interrupted("/bytes/\(size)?ranges=0&stall=\(stall)", at: stall, dir: dir) else {
            Issue.record("no resume data")
            return
        }
        let s = try await resumed(data, dir: dir).snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.map(\.offset) == [0])
        #expect(s.fileBody == patternBytes(count: size))
    }

    @Test func aChangedValidatorRestartsFromZero() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 2_000_000, stall: Int64 = 300_000
        guard let data = try await interrupted("/bytes/\(size)?stall=\(stall)", at: stall, dir: dir),
              var resume = ResumeData.decode(data) else {
            Issue.record("no resume data")
            return
        }
        resume.etag = "\"an-older-version\""  // as if the file had changed on the server since
        let s = try await resumed(resume.encoded(), dir: dir).snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.map(\.offset) == [0])
        #expect(s.fileBody == patternBytes(count: size))
    }

    @Test func aDroppedConnectionOffersResumeDataThatCompletesTheFile() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let recorder = DownloadRecorder()
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        let size = 3_000_000, drop: Int64 = 1_000_000
        session.downloadTask(with: server.url("/bytes/\(size)?drop=\(drop)")).resume()
        guard await recorder.waitForCompletion() else { return }
        let error = try #require(recorder.snapshot.error)
        #expect(error.code == .networkConnectionLost)
        let data = try #require(error.resumeData)
        // The server closes with bytes still unsent, so fewer than `drop` may have arrived.
        let kept = try #require(ResumeData.decode(data)?.bytesOnDisk)
        #expect(kept > 0 && kept <= drop)
        let s = try await resumed(data, dir: dir).snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.map(\.offset) == [kept])
        #expect(s.fileBody == patternBytes(count: size))
        #expect(dir.entries.isEmpty)
    }

    @Test func aMissingPartialFileStartsOver() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 400_000, stall: Int64 = 100_000
        guard let data = try await interrupted("/bytes/\(size)?stall=\(stall)", at: stall, dir: dir),
              var resume = ResumeData.decode(data) else {
            Issue.record("no resume data")
            return
        }
        unlink(resume.path)
        resume.url = try Servers.shared().url("/bytes/\(size)").absoluteString  // a fresh request must not stall
        let s = try await resumed(resume.encoded(), dir: dir).snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.isEmpty, "a fresh request, not a resumed one")
        #expect(s.fileBody == patternBytes(count: size))
    }

    @Test func damagedResumeDataIsRefused() throws {
        #expect(throws: TransferError.self) { try Session.shared.downloadTask(withResumeData: Data("{".utf8)) }
        #expect(throws: TransferError.self) { try Session.shared.downloadTask(withResumeData: Data()) }
    }

    @Test func cancellingANeverStartedDownloadGivesNoResumeData() async throws {
        let server = try Servers.shared()
        let task = Session.shared.downloadTask(with: server.url("/bytes/10"))
        let answer = Locked<(Bool, Data?)>((false, nil))
        task.cancel { data in answer.withLock { $0 = (true, data) } }
        #expect(await eventually { answer.withLock { $0.0 } })
        #expect(answer.withLock { $0.1 } == nil)
        #expect(task.state == .completed)
    }
}
