// `sluice refresh`: a download whose signed link expired (403 on its resume after a restart) goes on from a new
// link to the same file and ends byte-identical; a link to another file is refused, saying what differs, and
// leaves the partial file and its checkpoint as they were.
import Foundation
import SluiceScenarioServer
import Testing

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonRefreshTests {
    @Test func anExpiredLinkIsReplacedAndTheBytesKept() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            let size = 2_000_000
            let expiring = server.url("/ranged/\(size)?rate=20000&sig=old&expires=2").absoluteString
            #expect(try await fixture.sluice(["add", "-o", "file.bin", expiring]).status == 0)
            try await fixture.waitForTasks { ($0.first?["bytes"] as? Int ?? 0) > 40_000 }  // 100 s in all: stopped long before, even under a sanitizer
            // A stop (the checkpoint kept) and a start: the resumed request is the link's second, which has expired.
            #expect(try await fixture.sluice(["stop"]).status == 0)
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            try await fixture.waitForTasks { $0.first?["outcome"] as? String == "failed" }
            let partial = fixture.output + "/file.bin.sluice-part"
            let kept = try #require(FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int)
            #expect(kept > 0, "the 403 left the bytes")

            let other = try await fixture.sluice(["refresh", "1", server.url("/ranged/\(size + 4096)?sig=new").absoluteString])
            #expect(other.status == 1)
            #expect(other.error.contains("the new URL's file is \(size + 4096) bytes, the partial one's \(size)"), "\(other.error)")
            #expect(try FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int == kept, "nothing lost")

            let fresh = server.url("/ranged/\(size)?sig=new").absoluteString
            let refreshed = try await fixture.sluice(["refresh", "1", fresh])
            #expect(refreshed.status == 0, "\(refreshed.error)")
            let done = try await fixture.waitForTasks { $0.first?["outcome"] as? String == "finished" }
            #expect(done.first?["url"] as? String == fresh)
            #expect(FileManager.default.contents(atPath: fixture.output + "/file.bin") == pattern(size), "byte-identical")
            let ranges = server.rangesRequested("/ranged/\(size)?sig=new")
            #expect(ranges.contains { $0 != "bytes=0-0" && $0.hasPrefix("bytes=") && !$0.hasPrefix("bytes=0-") },
                    "the new link was asked for the rest, not the whole file: \(ranges)")
            #expect(!FileManager.default.fileExists(atPath: partial))
        }
    }
}
