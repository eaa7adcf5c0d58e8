// SessionConfiguration.wireMonitor (curl -v's lines): libcurl's heads and notes line by line, each hop of a redirect
// chain its own request, and the byte splitting that makes the lines.
import Foundation
@testable import SluiceEngine
import SluiceLock
import Testing

@Suite struct WireLineTests {
    @Test func theHeadsSentAndReceivedAndLibcurlsNotesArriveLineByLine() async throws {
        let server = try Servers.shared()
        let lines = Locked<[(Int, WireLine)]>([])
        var configuration = SessionConfiguration.default
        configuration.wireMonitor = { task, line in lines.withLock { $0.append((task, line)) } }
        let recorder = Recorder()
        let session = Session(configuration: configuration, delegate: recorder, delegateQueue: recorder.queue)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: server.url("/redirect/2"))
        task.resume()
        guard await recorder.waitForCompletion() else { return }
        let seen = lines.withLock { $0 }
        #expect(seen.allSatisfy { $0.0 == task.taskIdentifier })
        let sent = seen.filter { $0.1.kind == .headerOut }.map(\.1.text)
        // Three requests, each head ending with its empty line: the two redirects, then the body.
        #expect(sent.filter { $0.hasPrefix("GET ") } == ["GET /redirect/2 HTTP/1.1", "GET /redirect/1 HTTP/1.1", "GET /bytes/16 HTTP/1.1"],
                "\(sent)")
        #expect(sent.filter(\.isEmpty).count == 3)
        #expect(sent.contains { $0.hasPrefix("Host: 127.0.0.1:") })
        let received = seen.filter { $0.1.kind == .headerIn }.map(\.1.text)
        #expect(received.filter { $0.hasPrefix("HTTP/1.1 ") }.count == 3, "\(received)")
        #expect(received.contains { $0.hasPrefix("HTTP/1.1 200") })
        #expect(!received.contains { $0.hasSuffix("\r") || $0.contains("\n") })
        #expect(seen.contains { $0.1.kind == .info && $0.1.text.contains("Connected to 127.0.0.1") })
    }

    @Test func aChunkIsCutAtLineEndsWithoutThem() {
        func lines(_ text: String) -> [String] {
            Array(text.utf8).withUnsafeBytes { WireLine.lines(.headerOut, $0).map(\.text) }
        }
        #expect(lines("GET / HTTP/1.1\r\nHost: h\r\n\r\n") == ["GET / HTTP/1.1", "Host: h", ""])
        #expect(lines("  Trying 127.0.0.1:80...\n") == ["  Trying 127.0.0.1:80..."])
        #expect(lines("no end") == ["no end"])
        #expect(lines("a\nb\r\n\n") == ["a", "b", ""])
        #expect(lines("").isEmpty)
    }
}
