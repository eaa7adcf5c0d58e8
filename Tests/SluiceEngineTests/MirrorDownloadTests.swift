// Split downloads over mirrors against the scenario server: ranges spread over every URL, a failing mirror
// dropped with its reason in the event stream, and a mirror serving another file never trusted.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Testing

@Suite struct MirrorDownloadTests {
    /// Runs one split download of `path` with `mirrors` to its end.
    func download(_ path: String, mirrors: [URL], split: Int, dir: ScratchDirectory) async throws -> (DownloadRecorder, EventLog) {
        let server = try Servers.shared()
        let recorder = DownloadRecorder()
        let log = EventLog()
        let session = downloadSession(recorder, directory: dir, log: log)
        defer { session.finishTasksAndInvalidate() }
        let task = session.downloadTask(with: server.url(path))
        task.split = split
        task.minimumSegmentSize = 64 << 10
        task.mirrors = mirrors
        task.resume()
        _ = await recorder.waitForCompletion(30)
        return (recorder, log)
    }

    func drops(_ log: EventLog) -> [(url: URL, reason: String)] {
        log.events.compactMap { if case .mirrorDropped(let url, let reason) = $0 { (url, reason) } else { nil } }
    }

    @Test func rangesAreSpreadOverAHealthyMirrorAndTheFileIsByteIdentical() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let server = try Servers.shared()
        let size = 3_000_000, path = "/ranged/\(size)?rate=4000000&t=mirror-a", mirror = "/ranged/\(size)?rate=4000000&t=mirror-b"
        let (recorder, log) = try await download(path, mirrors: [server.url(mirror)], split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.completions == 1)
        #expect(log.names.filter { $0 == "didReceiveResponse" }.count == 1, "still one download to the delegate")
        #expect(drops(log).isEmpty)
        // Two ranges each at the start (round robin); a steal near the end may add one.
        #expect(server.rangesRequested(path).count >= 2, "\(server.rangesRequested(path))")
        #expect(server.rangesRequested(mirror).count >= 2, "\(server.rangesRequested(mirror))")
        #expect(dir.entries.isEmpty)
    }

    @Test func aMirrorAnswering503IsDroppedAndItsRangesComeFromTheOthers() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let server = try Servers.shared()
        let size = 2_000_000, path = "/ranged/\(size)?t=mirror-503"
        let failing = server.url("/status/503?t=mirror-503")
        let (recorder, log) = try await download(path, mirrors: [failing], split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        let dropped = drops(log)
        #expect(dropped.count == 1)
        #expect(dropped.first?.url == failing)
        #expect(dropped.first?.reason == "answered 503 to a range request")
        #expect(log.names.last == "didCompleteWithError")
    }

    @Test func aRefusedMirrorIsDropped() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let size = 2_000_000, path = "/ranged/\(size)?t=mirror-refused"
        let refused = ScenarioServer.refusedURL().appendingPathComponent("file")
        let (recorder, log) = try await download(path, mirrors: [refused], split: 2, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        let dropped = drops(log)
        #expect(dropped.map(\.url) == [refused])
        #expect(dropped.first.map { !$0.reason.isEmpty } == true)
    }

    @Test func aMirrorServingAnotherFileIsNeverTrusted() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let server = try Servers.shared()
        // One byte longer, so another ETag: If-Range gets its whole body, which must not replace the download.
        let size = 2_000_000, path = "/ranged/\(size)?t=mirror-other", other = "/ranged/\(size + 1)?t=mirror-other"
        let (recorder, log) = try await download(path, mirrors: [server.url(other)], split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.resumedAt.isEmpty, "the download never started over from the mirror's body")
        let dropped = drops(log)
        #expect(dropped.count == 1)
        #expect(dropped.first?.reason.hasPrefix("serves another file (ETag") == true, "\(dropped)")
    }

    @Test func aMirrorWhoseFileChangesMidwayIsDropped() async throws {
        let dir = try ScratchDirectory()
        defer { dir.remove() }
        let server = try Servers.shared()
        // The mirror's first request sees the same file; every later one a new version with another ETag.
        let size = 2_000_000, path = "/ranged/\(size)?rate=4000000&t=mirror-changed"
        let changing = "/ranged/\(size)?changed=1&rate=4000000&t=mirror-changed"
        let (recorder, log) = try await download(path, mirrors: [server.url(changing)], split: 4, dir: dir)
        let s = recorder.snapshot
        #expect(s.error == nil)
        #expect(s.fileBody == patternBytes(count: size))
        #expect(s.writes.last?.total == Int64(size))
        let dropped = drops(log)
        #expect(dropped.count == 1)
        #expect(dropped.first?.reason.hasPrefix("serves another file") == true, "\(dropped)")
        #expect(server.requestCount(changing) >= 2)
    }
}
