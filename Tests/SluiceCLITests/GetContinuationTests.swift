// `sluice get -o FILE URL` over a partial file that an earlier run of another URL left: continued when the new URL
// serves the same file (an expired signed link given again fresh), refused with what differs otherwise; and the
// hint when the old link itself is refused.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import SluiceTUI
import Testing
@testable import SluiceCLI

@Suite struct GetContinuationTests {
    let size = 3_000_000
    let kept = 1_000_000

    /// FILE.sluice-part with the first `kept` bytes of `/ranged/size`, and a checkpoint naming `oldURL`.
    func leaveAPartial(in dir: Scratch, of oldURL: URL) throws {
        let target = DownloadCompanions(target: dir.path + "/f")
        try Data(ScenarioPattern.bytes(offset: 0, count: kept)).write(to: URL(fileURLWithPath: target.partialPath))
        let resume = ResumeData(url: oldURL.absoluteString, path: target.partialPath, bytesOnDisk: Int64(kept),
                                etag: "\"ranged-\(size)-v1\"", lastModified: nil, expectedLength: Int64(size))
        #expect(target.saveResume(resume.encoded()))
    }

    @Test func aFreshURLOfTheSameFileContinuesThePartialFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = UInt32.random(in: 0...UInt32.max)
        try leaveAPartial(in: dir, of: server.url("/ranged/\(size)?expires=1&old=\(tag)"))
        let fresh = "/ranged/\(size)?token=\(tag)"
        let failure = await runGet([server.url(fresh).absoluteString, "-o", dir.path + "/f"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(server.rangesRequested(fresh).contains("bytes=\(kept)-"), "\(server.rangesRequested(fresh))")
        #expect(FileManager.default.contents(atPath: dir.path + "/f") == Data(ScenarioPattern.bytes(offset: 0, count: size)))
        #expect(dir.entries == ["f"])
    }

    @Test func anotherFileBehindTheNewURLIsRefusedAndThePartialFileStays() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let old = server.url("/ranged/\(size)?old=\(UInt32.random(in: 0...UInt32.max))")
        try leaveAPartial(in: dir, of: old)
        let before = FileManager.default.contents(atPath: dir.path + "/f.sluice-resume")
        let failure = await runGet([server.url("/ranged/\(size + 1)").absoluteString, "-o", dir.path + "/f"])
        #expect(failure?.code == 1)
        #expect(failure?.message.contains("is \(size + 1) bytes, the partial one's \(size)") == true, "\(failure?.message ?? "")")
        #expect(dir.entries == ["f.sluice-part", "f.sluice-resume"])
        #expect(FileManager.default.contents(atPath: dir.path + "/f.sluice-resume") == before, "the checkpoint still names the old URL")
        #expect((try? FileManager.default.attributesOfItem(atPath: dir.path + "/f.sluice-part")[.size] as? Int) == kept)
    }

    @Test func aPOSTLeavesAnotherURLsCheckpointAsItIs() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try leaveAPartial(in: dir, of: server.url("/ranged/\(size)?old=\(UInt32.random(in: 0...UInt32.max))"))
        let before = FileManager.default.contents(atPath: dir.path + "/f.sluice-resume")
        let fresh = "/ranged/\(size)?h=\(UInt32.random(in: 0...UInt32.max))"
        let failure = await runGet(["-d", "a=b", server.url(fresh).absoluteString, "-o", dir.path + "/f"])
        #expect(failure?.message.contains("a POST is not sent again to continue one") == true, "\(failure?.message ?? "")")
        #expect(server.requestCount(fresh) == 0, "not even probed")
        #expect(FileManager.default.contents(atPath: dir.path + "/f.sluice-resume") == before)
    }

    @Test func anExpiredLinkSaysToGiveAFreshURLNotToRunTheSameAgain() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let expired = server.url("/ranged/\(size)?expires=1&gone=\(UInt32.random(in: 0...UInt32.max))")
        try leaveAPartial(in: dir, of: expired)
        let failure = await runGet(["--retry", "0", expired.absoluteString, "-o", dir.path + "/f"])
        #expect(failure?.code == 22, "an error status, as a first request's 403 is")
        #expect(failure?.message.contains("403") == true && failure?.message.contains("fresh URL of the same file") == true,
                "\(failure?.message ?? "")")
        #expect(dir.entries == ["f.sluice-part", "f.sluice-resume"])
    }
}
