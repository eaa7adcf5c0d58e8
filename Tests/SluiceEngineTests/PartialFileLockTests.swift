// A partial file is written by one download at a time: another download (of this process or another, the lock is
// the kernel's) that names the same file fails without emptying it or writing into it.
import Foundation
import SluiceEngine
import SluiceLock
import Testing

@Suite struct PartialFileLockTests {
    private func bytes(of path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Starts a download of `url` into `partial` and hands back its recorder and task once `bytes` are written.
    private func writing(_ url: URL, into partial: String, until bytes: Int64, session: Session,
                         recorder: DownloadRecorder) async -> DownloadTask? {
        // The server stalls after `bytes`: no inactivity timeout may end the download (and let go of its lock) while
        // a starved test waits to look, as the default 60 s did in a full ThreadSanitizer run on two cores.
        let task = session.downloadTask(with: Request(url: url, timeoutInterval: 3600), partialFile: partial)
        task.resume()
        let there = await eventually { recorder.snapshot.writes.last?.total == bytes }
        #expect(there, "the first download did not write \(bytes) bytes")
        let ended = recorder.snapshot.completions > 0
        #expect(!ended, "the first download ended before the check: \(String(describing: recorder.snapshot.error))")
        return there && !ended ? task : nil
    }

    @Test func aPartialFileAnotherDownloadIsWritingIsNeitherEmptiedNorContinued() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let partial = dir.path + "/shared.sluice-part"
        let size = 300_000, stall: Int64 = 100_000
        let first = DownloadRecorder()
        let session = downloadSession(first, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        guard let task = await writing(server.url("/bytes/\(size)?stall=\(stall)"), into: partial, until: stall,
                                       session: session, recorder: first) else { return }

        // A fresh download of the same name would empty the file it opens.
        let fresh = DownloadRecorder()
        let other = downloadSession(fresh, directory: dir)
        defer { other.finishTasksAndInvalidate() }
        other.downloadTask(with: Request(url: server.url("/bytes/\(size)")), partialFile: partial).resume()
        guard await fresh.waitForCompletion() else { return }
        #expect(fresh.snapshot.error?.code == .cannotCreateFile)
        #expect(fresh.snapshot.error?.message.contains("another download is writing it") == true)
        #expect(bytes(of: partial) == stall)

        // Resume data naming the file would cut it to its offset and write after that.
        let resume = ResumeData(url: server.url("/bytes/\(size)").absoluteString, path: partial, bytesOnDisk: 1_000,
                                etag: nil, lastModified: nil, expectedLength: Int64(size))
        let continuing = DownloadRecorder()
        let third = downloadSession(continuing, directory: dir)
        defer { third.finishTasksAndInvalidate() }
        try third.downloadTask(withResumeData: resume.encoded()).resume()
        guard await continuing.waitForCompletion() else { return }
        #expect(continuing.snapshot.error?.code == .cannotCreateFile)
        #expect(continuing.snapshot.writes.isEmpty)
        #expect(bytes(of: partial) == stall)

        // The first download's bytes are whole: its resume data completes the file.
        let kept = Locked<Data?>(nil)
        task.cancel { data in kept.withLock { $0 = data } }
        guard await first.waitForCompletion(), let data = kept.withLock({ $0 }) else {
            Issue.record("no resume data from the first download")
            return
        }
        let last = DownloadRecorder()
        let fourth = downloadSession(last, directory: dir)
        defer { fourth.finishTasksAndInvalidate() }
        try fourth.downloadTask(withResumeData: data).resume()
        guard await last.waitForCompletion() else { return }
        #expect(last.snapshot.error == nil)
        #expect(last.snapshot.resumedAt.first?.offset == stall)
        #expect(last.snapshot.fileBody == patternBytes(count: size))
    }

    /// The lock is the open's, not the process's: a second open of the file in this process waits for the first to
    /// let go (a download's next attempt while its last one closes its file), and gives up once its patience ends.
    @Test func aSecondOpenWaitsForTheFirstToLetGoThenGivesUp() throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let path = dir.path + "/held.sluice-part"
        let first = open(path, O_WRONLY | O_CREAT, 0o644)
        let second = open(path, O_WRONLY)
        defer { close(second) }
        #expect(first >= 0 && second >= 0)
        #expect(PartialFileLock.take(first, patience: 0))
        #expect(PartialFileLock.isHeldElsewhere(path))
        #expect(!PartialFileLock.take(second, patience: 0), "held by the first open")
        let released = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            usleep(10_000)
            close(first)
            released.signal()
        }
        #expect(PartialFileLock.take(second, patience: 2_000), "the first let go while the second waited")
        released.wait()
        #expect(PartialFileLock.isHeldElsewhere(path), "now the second's")
    }

    /// Once the writer has let go (finished, cancelled, or its process gone), the name is usable again.
    @Test func aPartialFileIsFreeAgainOnceItsDownloadEnds() async throws {
        let server = try Servers.shared()
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let partial = dir.path + "/again.sluice-part"
        let first = DownloadRecorder()
        let session = downloadSession(first, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        guard let task = await writing(server.url("/bytes/50000?stall=20000"), into: partial, until: 20_000,
                                       session: session, recorder: first) else { return }
        #expect(PartialFileLock.isHeldElsewhere(partial))
        task.cancel()
        guard await first.waitForCompletion() else { return }
        #expect(!PartialFileLock.isHeldElsewhere(partial))
        let second = DownloadRecorder()
        let other = downloadSession(second, directory: dir)
        defer { other.finishTasksAndInvalidate() }
        other.downloadTask(with: Request(url: server.url("/bytes/50000")), partialFile: partial).resume()
        guard await second.waitForCompletion() else { return }
        #expect(second.snapshot.error == nil)
        #expect(second.snapshot.fileBody == patternBytes(count: 50_000))
    }
}
