// `sluice get --output-dir` and -O keep what a download got beside its target, as -o does: found by a tester, a
// kill -9 left a hidden temporary file for good and the same command started over. A dropped connection leaves
// the same state a kill -9 does (the partial file and its checkpoint), so the next run must go on from it.
import Foundation
import SluiceScenarioServer
import SluiceEngine
import SluiceTUI
import Testing
@testable import SluiceCLI

@Suite struct BatchPartialsTests {
    @Test func aDownloadCutShortIsKeptBesideItsTargetAndTheSameCommandGoesOn() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        // drop=1000: a request without Range loses its connection after 1,000 bytes; a resume is answered whole.
        let tag = UInt32.random(in: 0...UInt32.max)
        let cut = server.url("/bytes/5000?drop=1000&t=\(tag)").absoluteString
        let whole = server.url("/bytes/3000?t=\(tag)").absoluteString
        let first = await runGet(["-s", "--retry", "0", "--output-dir", dir.path, cut, whole])
        #expect(first != nil, "one of two failed")
        #expect(dir.entries == ["3000", "5000.sluice-part", "5000.sluice-resume"], "\(dir.entries)")
        #expect(FileManager.default.contents(atPath: dir.path + "/5000.sluice-part")?.count == 1000)
        let again = await runGet(["-s", "--retry", "0", "--output-dir", dir.path, cut])
        #expect(again == nil, "\(String(describing: again))")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/5000"), count: 5000))
        #expect(dir.entries == ["3000", "5000"], "\(dir.entries)")
    }

    /// Found in review: two downloads of one name, the second ending first, took the plain name from the first,
    /// whose partial file then had no name a rerun would look under. Each now lands where its partial file was
    /// claimed, so the same command goes on from the first.
    @Test func sameNamedDownloadsLandWhereTheirPartialFilesWereClaimed() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let tag = UInt32.random(in: 0...UInt32.max)
        let cut = server.url("/bytes/5000?drop=1000&t=\(tag)").absoluteString
        let whole = server.url("/bytes/5000?t=\(tag)").absoluteString
        _ = await runGet(["-s", "--retry", "0", "--output-dir", dir.path, cut, whole])
        #expect(dir.entries == ["5000.1", "5000.sluice-part", "5000.sluice-resume"], "\(dir.entries)")
        #expect(await runGet(["-s", "--retry", "0", "--output-dir", dir.path, cut]) == nil)
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/5000"), count: 5000))
        #expect(dir.entries == ["5000", "5000.1"], "\(dir.entries)")
    }

    /// Found in review: a Ctrl-C reached downloads still waiting for a place, whose files were never opened; their
    /// earlier checkpoints were removed, and the next run started those partial files over.
    @Test func anAttemptStoppedBeforeItsFileOpenedKeepsTheEarlierCheckpoint() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let url = try #require(URL(string: "http://127.0.0.1:9/file.bin"))
        let companions = DownloadCompanions(target: dir.path + "/file.bin")
        #expect(FileManager.default.createFile(atPath: companions.partialPath, contents: Data(repeating: 1, count: 100)))
        let resume = ResumeData(url: url.absoluteString, path: companions.partialPath, bytesOnDisk: 100, etag: nil,
                                lastModified: nil, expectedLength: 1000)
        #expect(companions.saveResume(resume.encoded()))
        let session = Session(configuration: .default, delegate: nil)
        defer { session.invalidateAndCancel() }
        let partials = BatchPartials(directory: dir.path, count: 1)
        let task = try #require(partials.task(for: 0, url: url, request: Request(url: url), in: session))
        partials.ended(task, at: 0, error: TransferError(.cancelled, "cancelled"))
        #expect(FileManager.default.fileExists(atPath: companions.resumePath), "\(dir.entries)")
        #expect(partials.kept == 1)
    }
}

