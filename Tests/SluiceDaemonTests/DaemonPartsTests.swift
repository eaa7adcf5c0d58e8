// The daemon's pieces that need no process: request bodies, paths, the event log and the chunked reader.
import Foundation
@testable import SluiceDaemon
import SluiceTUI
import SluiceViewModel
import Testing

struct DaemonPartsTests {
    @Test func addRequests() throws {
        let download = AddRequest.parse(Data(#"{"url":"http://h/a","output":"/tmp/a"}"#.utf8))
        #expect(try download.get() == AddRequest(url: "http://h/a", kind: .download, destination: .file("/tmp/a")))
        let data = AddRequest.parse(Data(#"{"url":"http://h/a","kind":"data"}"#.utf8))
        #expect(try data.get() == AddRequest(url: "http://h/a", kind: .data, destination: nil))
        let split = AddRequest.parse(Data(#"{"url":"http://h/a","directory":"/tmp","split":4}"#.utf8))
        #expect(try split.get() == AddRequest(url: "http://h/a", kind: .download, destination: .directory("/tmp"), split: 4))
        for bad in [#"{"url":"http://h/a","output":"a"}"#, #"{"url":"http://h/a","kind":"upload"}"#,
                    #"{"url":"http://h/a","split":0}"#, #"{"url":"http://h/a","split":17}"#,
                    #"{"url":"http://h/a","output":"/a","directory":"/b"}"#, #"{"url":"http://h/a","kind":"data","output":"/a"}"#,
                    #"{"output":"/a"}"#, "not json"] {
            #expect(throws: DaemonFailure.self) { try AddRequest.parse(Data(bad.utf8)).get() }
        }
    }

    @Test func pathsFollowXDGAndRefuseOddIdentifiers() throws {
        let paths = try DaemonPaths(identifier: "work", environment: ["XDG_RUNTIME_DIR": "/run/user/5/", "XDG_STATE_HOME": "/s"])
        #expect(paths.socket == "/run/user/5/sluice/work.sock")
        #expect(paths.lock == "/run/user/5/sluice/work.lock")
        #expect(paths.store == "/s/sluice/daemon-work")
        #expect(paths.log == "/s/sluice/daemon-work.log")
        let fallback = try DaemonPaths(identifier: "default", environment: ["XDG_RUNTIME_DIR": "relative", "HOME": "/h"])
        #expect(fallback.runtimeDirectory == "/tmp/sluice-\(getuid())")
        for bad in ["", "../x", ".hidden", "a/b", String(repeating: "x", count: 65)] {
            #expect(throws: DaemonFailure.self) { try DaemonPaths(identifier: bad, environment: ["HOME": "/h"]) }
        }
        #expect(throws: DaemonFailure.self) {
            try DaemonPaths(identifier: "x", environment: ["XDG_RUNTIME_DIR": "/" + String(repeating: "d", count: 100), "HOME": "/h"])
        }
    }

    @Test func theEventLogKeepsItsNewestAndReplaysFromAPosition() {
        var log = EventLog()
        for i in 0..<(2 * EventLog.capacity + 10) { log.append(.note(id: i, "n")) }
        log.append(.tick(1))  // not an event anyone replays
        #expect(log.next == 2 * EventLog.capacity + 11)
        let oldest = log.events.first?.seq ?? 0
        #expect(oldest > 1 && log.events.count <= 2 * EventLog.capacity)
        #expect(log.since(1).first?.seq == oldest, "a position dropped already starts at the oldest kept")
        #expect(log.since(log.next - 3).map(\.seq) == [log.next - 3, log.next - 2, log.next - 1])
        #expect(log.since(log.next).isEmpty)
    }

    @Test func chunkedBodiesAreReadAcrossAnySplit() {
        let wire = Array("5\r\nhello\r\n7;x=1\r\n, world\r\n0\r\n\r\n".utf8)
        for split in 0...wire.count {
            var decoder = ChunkDecoder()
            let text = (decoder.feed(Array(wire[..<split])) + decoder.feed(Array(wire[split...]))).flatMap { $0 }
            #expect(String(decoding: text, as: UTF8.self) == "hello, world")
            #expect(decoder.ended)
        }
    }

    @Test func aReplyWithItsBody() {
        let reply = DaemonClient.parse(Array("HTTP/1.1 409 Conflict\r\nContent-Length: 3\r\n\r\n{}\n".utf8))
        #expect(reply == DaemonResponse(status: 409, body: "{}\n"))
        #expect(DaemonClient.parse(Array("garbage".utf8)) == nil)
    }
}
