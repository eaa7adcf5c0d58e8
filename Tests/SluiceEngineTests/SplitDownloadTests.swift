// Split downloads against the scenario server's `/ranged` body: byte-identical files, stealing, fallbacks,
// a changed file, a dropped range, and resume data that keeps every segment.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Testing

@Suite struct SplitDownloadTests {
    /// Runs one split download of `path` to its end; returns the recorder and the event log.
    func download(_ path: String, split: Int, minimum: Int64 = 64 << 10, dir: ScratchDirectory,
                  cancelAfter: Int64? = nil, taskCap: Int = 0) async throws -> (DownloadRecorder, EventLog) {
        let server = try Servers.shared()
        let recorder = DownloadRecorder()
        recorder.cancelAfter = cancelAfter
        let log = EventLog()
        let session = downloadSession(recorder, directory: dir, log: log, maximumConcurrentTasks: taskCap)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(with: server.url(path))
        task.split = split
        task.minimumSegmentSize = minimum
        task.resume()
        _ = await recorder.waitForCompletion(30)
        return (recorder, log)
    }

    /// The Range fields the server saw for `path`, as inclusive bounds, and whether each was the slow one.
    func ranges(_ path: String) throws -> [(first: Int64, last: Int64, slow: Bool)] {
        try Servers.shared().rangesRequested(path).compactMap { field in
            let slow = field.hasPrefix("slow ")
            let spec = field.split(separator: "=").last?.split(separator: "-") ?? []
            guard spec.count == 2, let first = Int64(spec[0]), let last = Int64(spec[1]) else { return nil }
            return (first, last, slow)
        }
    }

    @Test func aSplitDownloadIsByteIdenticalAndOneTaskToTheDelegate() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 3_000_000, path = "/ranged/\(size)?rate=4000000&t=identical"
        // Pieces of at least 700 kB: four of 750 kB, and none large enough to steal from, however the machine
        // schedules them (on a loaded machine a steal made six requests of this test).
        let (recorder, log) = try await download(path, split: 4, minimum: 700_000, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.completions == 1)
        #expect(s.calls.filter { $0 == "finished" }.count == 1)
        #expect(log.names.filter { $0 == "didReceiveResponse" }.count == 1)
        #expect(s.writes.last?.total == Int64(size))
        #expect(s.writes.map(\.total) == s.writes.map(\.total).sorted(), "totals across segments only grow")
        #expect(s.writes.allSatisfy { $0.expected == Int64(size) })
        let asked = try ranges(path).sorted { $0.first < $1.first }
        #expect(asked.count == 4)
        #expect(asked.first?.first == 0 && asked.last?.last == Int64(size - 1))
        #expect(zip(asked, asked.dropFirst()).allSatisfy { $0.last + 1 == $1.first }, "the ranges tile the file")
        #expect(dir.entries.isEmpty)
    }

    /// A cap of one task at once counts the split download once, not each of its ranges.
    @Test(arguments: [0, 1]) func eightConnectionsRunAtOnce(taskCap: Int) async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        // Past the session's six connections per host: each range is paced, so all eight overlap if allowed.
        let size = 4_000_000, path = "/ranged/\(size)?rate=1000000&t=eight-\(taskCap)"
        let (recorder, _) = try await download(path, split: 8, dir: dir, taskCap: taskCap)
        #expect(recorder.snapshot.fileBody == patternBytes(count: size))
        let most = try Servers.shared().mostConcurrentRanges(path)
        #expect(most >= 8, "at most \(most) ranges ran at once")
    }

    @Test func theSlowSegmentIsStolenFrom() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        // One range crawls at 100 kB/s: alone, its 1 MB would take 10 s.
        let size = 3_000_000, path = "/ranged/\(size)?slowfirst=100000&t=steal"
        let (recorder, _) = try await download(path, split: 3, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        let asked = try ranges(path)
        let slow = try #require(asked.first { $0.slow })
        let stolen = asked.filter { !$0.slow && $0.first > slow.first && $0.last <= slow.last }
        #expect(!stolen.isEmpty, "another connection fetched part of the slow range: \(asked)")
    }

    @Test func aServerWithoutRangesGetsOneConnection() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 1_000_000, path = "/ranged/\(size)?ranges=0&t=noranges"
        let (recorder, _) = try await download(path, split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(try Servers.shared().requestCount(path) == 1)
        #expect(try ranges(path).isEmpty)
    }

    @Test func aServerThatIgnoresRangesFallsBackToTheWholeBody() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 1_000_000, path = "/ranged/\(size)?ignore=1&t=ignored"
        let (recorder, _) = try await download(path, split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.resumedAt.map(\.offset) == [0], "the delegate is told the file starts again")
    }

    @Test func aValidatorChangedMidwayRestartsCleanly() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        // After the first request the file is another version, 4096 bytes longer: If-Range gets it whole.
        let size = 1_000_000, path = "/ranged/\(size)?changed=1&t=changed"
        let (recorder, _) = try await download(path, split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size + 4096))
        #expect(s.resumedAt.map(\.offset) == [0])
        #expect(s.resumedAt.map(\.expected) == [Int64(size + 4096)])
        #expect(s.writes.last?.total == Int64(size + 4096))
        #expect(dir.entries.isEmpty)
    }

    @Test func aDroppedRangeIsFetchedAgain() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 2_000_000, path = "/ranged/\(size)?droprange=100000&t=drop"
        let (recorder, _) = try await download(path, split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(try ranges(path).count >= 5, "the dropped range's rest was asked for again")
    }

    @Test func resumeDataKeepsEverySegment() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 4_000_000, path = "/ranged/\(size)?rate=1000000&t=resume"
        let (first, _) = try await download(path, split: 4, dir: dir, cancelAfter: 1_000_000)
        let data = try #require(first.snapshot.resumeData)
        let resume = try #require(ResumeData.decode(data))
        #expect(first.snapshot.error?.code == .cancelled)
        let pending = try #require(resume.pending)
        #expect(pending.count >= 4, "every segment had bytes left: \(pending)")
        #expect(resume.connections == 4)
        #expect(resume.bytesOnDisk == pending.first?.first)
        let missing = pending.reduce(Int64(0)) { $0 + $1[1] - $1[0] }
        #expect(missing < Int64(size) - 900_000)
        let before = try Servers.shared().rangesRequested(path).count

        let recorder = DownloadRecorder()
        let session = downloadSession(recorder, directory: dir)
        defer { session.finishTasksAndInvalidate() }
        try session.downloadTask(withResumeData: data).resume()
        _ = await recorder.waitForCompletion(30)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.resumedAt.map(\.offset) == [Int64(size) - missing])
        #expect(s.fileBody == patternBytes(count: size))
        let after = try Servers.shared().rangesRequested(path)
        #expect(after.count - before == pending.count + 1, "one request to check the validator, then each missing range: \(pending) \(after)")
        #expect(after.contains("bytes=\(resume.bytesOnDisk)-"), "the validator is checked where the first gap starts")
        #expect(dir.entries.isEmpty)
    }
}
