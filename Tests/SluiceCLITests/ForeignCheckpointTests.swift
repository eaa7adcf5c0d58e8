// A checkpoint beside `-o FILE` whose resume data names some other partial file: one planted by a server through
// `-O` (found by a tester: the download was built on top of an unrelated file of the user's, which was gone after),
// or one of a pair copied or moved from another directory. The named file is never touched; the partial file
// continued is always FILE.sluice-part.
import Foundation
import SluiceEngine
import SluiceScenarioServer
import SluiceTUI
import Testing
@testable import SluiceCLI

@Suite struct ForeignCheckpointTests {
    let size = 3_000_000
    let kept = 1_000_000

    /// A checkpoint at `target`'s resume path for `url`, naming `named` as its partial file.
    func checkpoint(_ target: DownloadCompanions, of url: URL, naming named: String, bytes: Int) -> Bool {
        let resume = ResumeData(url: url.absoluteString, path: named, bytesOnDisk: Int64(bytes),
                                etag: "\"ranged-\(size)-v1\"", lastModified: nil, expectedLength: Int64(size))
        return target.saveResume(resume.encoded())
    }

    @Test func aCheckpointNamingAnotherFileLeavesThatFileAlone() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch(), elsewhere = try Scratch()
        defer { dir.remove(); elsewhere.remove() }
        let notes = elsewhere.path + "/notes.txt"
        let mine = Data("my notes, not backed up\n".utf8)
        try mine.write(to: URL(fileURLWithPath: notes))
        let path = "/ranged/\(size)?planted=\(UInt32.random(in: 0...UInt32.max))"
        let url = server.url(path)
        #expect(checkpoint(DownloadCompanions(target: dir.path + "/f"), of: url, naming: notes, bytes: mine.count))
        let failure = await runGet([url.absoluteString, "-o", dir.path + "/f"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(FileManager.default.contents(atPath: notes) == mine, "the file the checkpoint named is as it was")
        #expect(Scratch.entries(elsewhere.path) == ["notes.txt"])
        #expect(FileManager.default.contents(atPath: dir.path + "/f") == Data(ScenarioPattern.bytes(offset: 0, count: size)))
        #expect(server.rangesRequested(path).isEmpty, "nothing of this URL is on disk here: fetched whole")
        #expect(dir.entries == ["f"])
    }

    @Test func aCopiedPairContinuesFromItsOwnPartialFile() async throws {
        let server = try CLIServers.shared()
        let original = try Scratch(), copy = try Scratch()
        defer { original.remove(); copy.remove() }
        let path = "/ranged/\(size)?copied=\(UInt32.random(in: 0...UInt32.max))"
        let url = server.url(path)
        let first = DownloadCompanions(target: original.path + "/f")
        let second = DownloadCompanions(target: copy.path + "/f")
        let start = Data(ScenarioPattern.bytes(offset: 0, count: kept))
        for pair in [first, second] {  // as `cp -a` leaves them: the copy's checkpoint names the original's partial
            try start.write(to: URL(fileURLWithPath: pair.partialPath))
            #expect(checkpoint(pair, of: url, naming: first.partialPath, bytes: kept))
        }
        let failure = await runGet([url.absoluteString, "-o", copy.path + "/f"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(server.rangesRequested(path).contains("bytes=\(kept)-"), "\(server.rangesRequested(path))")
        #expect(FileManager.default.contents(atPath: copy.path + "/f") == Data(ScenarioPattern.bytes(offset: 0, count: size)))
        #expect(copy.entries == ["f"])
        #expect(original.entries == ["f.sluice-part", "f.sluice-resume"], "the original pair is untouched")
        #expect(FileManager.default.contents(atPath: first.partialPath) == start)
    }
}
