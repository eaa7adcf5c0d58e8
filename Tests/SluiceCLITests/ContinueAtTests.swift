// get -C - -o FILE: a file another program left half done is continued from its end (with the server's validator
// as If-Range), a complete one is left alone, and one that cannot be the start of the server's file is refused
// and left as it was.
import Foundation
import SluiceScenarioServer
import SluiceViewModel
import Testing
@testable import SluiceCLI

@Suite struct ContinueAtTests {
    @Test func theDecisionFollowsTheServersAnswer() {
        let ranged = RefreshCheck.New(status: 206, size: 5000, etag: "\"e\"", lastModified: nil)
        #expect(ContinueAt.decide(localSize: 1000, server: ranged) == .resume)
        #expect(ContinueAt.decide(localSize: 0, server: ranged) == .resume)
        #expect(ContinueAt.decide(localSize: 5000, server: ranged) == .complete)
        guard case .refuse = ContinueAt.decide(localSize: 6000, server: ranged) else { Issue.record("longer"); return }
        let whole = RefreshCheck.New(status: 200, size: 5000, etag: nil, lastModified: nil)
        #expect(ContinueAt.decide(localSize: 5000, server: whole) == .complete)
        guard case .refuse = ContinueAt.decide(localSize: 10, server: whole) else { Issue.record("no ranges"); return }
        guard case .refuse = ContinueAt.decide(localSize: 10, server: .init(status: 404, size: 9, etag: nil, lastModified: nil)) else {
            Issue.record("404"); return
        }
        let exact = RefreshCheck.New(status: 206, size: 5000, etag: nil, lastModified: nil, sent: 0...0)
        #expect(ContinueAt.decide(localSize: 1000, server: exact) == .resume)
        let wholeAs206 = RefreshCheck.New(status: 206, size: 5000, etag: nil, lastModified: nil, sent: 0...4999)
        #expect(ContinueAt.decide(localSize: 1000, server: wholeAs206)
                == .refuse("the server does not send the part asked for (asked for byte 0, it sent bytes 0-4999)"))
    }

    @Test func anotherProgramsHalfIsContinuedToTheWholeFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/f.bin"
        try Data(ScenarioPattern.bytes(offset: 0, count: 1000)).write(to: URL(fileURLWithPath: path))
        // drop=1000: a request without Range loses its connection after 1,000 bytes, so only a resume succeeds.
        let failure = await runGet(["-s", "--retry", "0", "-C", "-", "-o", path,
                                    server.url("/bytes/5000?drop=1000&continue").absoluteString])
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(isPattern(FileManager.default.contents(atPath: path), count: 5000))
        #expect(dir.entries == ["f.bin"])
    }

    /// `-C - -O URL`, curl's resume line: the file named by the URL goes on from its end (it was refused; found by a
    /// tester). More than one URL is refused: each would need its own file.
    @Test func theFileMinusONamesIsContinuedToo() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try Data(ScenarioPattern.bytes(offset: 0, count: 1000)).write(to: URL(fileURLWithPath: dir.path + "/5000"))
        let failure = await runGet(["-s", "--retry", "0", "-C", "-", "-O", "--output-dir", dir.path,
                                    server.url("/bytes/5000?drop=1000&minusO").absoluteString])
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/5000"), count: 5000))
        #expect(dir.entries == ["5000"], "\(dir.entries)")
        let two = await runGet(["-C", "-", "-O", "--output-dir", dir.path, server.url("/bytes/10").absoluteString,
                                server.url("/bytes/20").absoluteString])
        #expect(two?.code == 2 && two?.message.contains("continues one file") == true, "\(two?.message ?? "")")
    }

    /// `--checksum` holds with `-C -` too: a file complete already is checked, and one continued that does not
    /// match keeps the bytes the user had (it was deleted whole, theirs included: found by a tester).
    @Test func aChecksumIsCheckedOnAFileContinuedOrCompleteAndTheUsersBytesStay() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let wrong = "sha256=" + String(repeating: "0", count: 64)
        let complete = Data(ScenarioPattern.bytes(offset: 0, count: 5000))
        try complete.write(to: URL(fileURLWithPath: dir.path + "/whole.bin"))
        let checked = await runGet(["-s", "-C", "-", "--checksum", wrong, "-o", dir.path + "/whole.bin",
                                    server.url("/bytes/5000").absoluteString])
        #expect(checked?.code == 1 && checked?.message.contains("sha256 mismatch") == true, "\(String(describing: checked))")
        #expect(FileManager.default.contents(atPath: dir.path + "/whole.bin") == complete)

        let start = Data(ScenarioPattern.bytes(offset: 0, count: 1000))
        try start.write(to: URL(fileURLWithPath: dir.path + "/half.bin"))
        let continued = await runGet(["-s", "--retry", "0", "-C", "-", "--checksum", wrong, "-o", dir.path + "/half.bin",
                                      server.url("/bytes/5000?checked").absoluteString])
        #expect(continued?.code == 1 && continued?.message.contains("sha256 mismatch") == true, "\(String(describing: continued))")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/half.bin"), count: 5000), "the user's bytes and the rest")
        #expect(dir.entries == ["half.bin", "whole.bin"], "\(dir.entries)")
    }

    /// Found in review: the user's file was given back only on `-C -`'s first attempt. Its retry (and the same
    /// command after a stop) found no file under the name, so a failed check removed the partial file with the
    /// user's bytes in it. The checkpoint now says that the file began as the user's.
    @Test func aRetryOfAContinuedFileStillGivesTheUsersBytesBackWhenTheCheckFails() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let wrong = "sha256=" + String(repeating: "0", count: 64)
        try Data(ScenarioPattern.bytes(offset: 0, count: 1000)).write(to: URL(fileURLWithPath: dir.path + "/half.bin"))
        // The probe is the first request, the continued download the second (dropped 2,500 bytes in), the retry the third.
        let url = server.url("/flaky/5000?key=adopted-retry&fail=2&drop=2500").absoluteString
        let result = await runGet(["-s", "--retry", "1", "--retry-delay", "0", "-C", "-", "--checksum", wrong,
                                   "-o", dir.path + "/half.bin", url])
        #expect(result?.code == 1 && result?.message.contains("sha256 mismatch") == true, "\(String(describing: result))")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/half.bin"), count: 5000), "the user's bytes and the rest")
        #expect(dir.entries == ["half.bin"], "\(dir.entries)")
    }

    @Test func aCompleteFileAndOneThatCannotBeContinuedAreLeftAsTheyWere() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let complete = Data(ScenarioPattern.bytes(offset: 0, count: 5000))
        try complete.write(to: URL(fileURLWithPath: dir.path + "/whole.bin"))
        #expect(await runGet(["-s", "-C", "-", "-o", dir.path + "/whole.bin", server.url("/bytes/5000").absoluteString]) == nil)
        #expect(FileManager.default.contents(atPath: dir.path + "/whole.bin") == complete)

        let longer = Data(repeating: 7, count: 6000)
        try longer.write(to: URL(fileURLWithPath: dir.path + "/long.bin"))
        let refused = await runGet(["-s", "-C", "-", "-o", dir.path + "/long.bin", server.url("/bytes/5000").absoluteString])
        #expect(refused?.code == 1 && refused?.message.contains("more than the server's 5000") == true, "\(String(describing: refused))")
        #expect(FileManager.default.contents(atPath: dir.path + "/long.bin") == longer)

        let half = Data(ScenarioPattern.bytes(offset: 0, count: 100))
        try half.write(to: URL(fileURLWithPath: dir.path + "/norange.bin"))
        let noRanges = await runGet(["-s", "-C", "-", "-o", dir.path + "/norange.bin", server.url("/bytes/5000?ranges=0").absoluteString])
        #expect(noRanges?.code == 1 && noRanges?.message.contains("does not send parts") == true, "\(String(describing: noRanges))")
        #expect(FileManager.default.contents(atPath: dir.path + "/norange.bin") == half)
        #expect(dir.entries == ["long.bin", "norange.bin", "whole.bin"])
    }

    /// Found by a tester: a server that answers every range with the whole file as a 206. `-C -` on a user's file
    /// renamed it FILE.sluice-part and failed, and every run after failed the same way. Now `-C -` leaves the file as
    /// it was, and sluice's own partial file starts again at byte 0, as for a 200.
    @Test func aServerThatSendsTheWholeFileAsA206() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let half = Data(ScenarioPattern.bytes(offset: 0, count: 1000))
        try half.write(to: URL(fileURLWithPath: dir.path + "/user.bin"))
        let refused = await runGet(["-s", "-C", "-", "-o", dir.path + "/user.bin", server.url("/bytes/5000?ranges=whole").absoluteString])
        #expect(refused?.code == 1 && refused?.message.contains("does not send the part asked for") == true, "\(String(describing: refused))")
        #expect(FileManager.default.contents(atPath: dir.path + "/user.bin") == half)

        // drop=1000: the first request (no Range) loses its connection after 1,000 bytes; its partial file is kept.
        let url = server.url("/bytes/5000?ranges=whole&drop=1000&t=\(UInt32.random(in: 0...UInt32.max))").absoluteString
        let dropped = await runGet(["-s", "--retry", "0", "-o", dir.path + "/own.bin", url])
        #expect(dropped != nil && FileManager.default.fileExists(atPath: dir.path + "/own.bin.sluice-part"))
        #expect(await runGet(["-s", "--retry", "0", "-o", dir.path + "/own.bin", url]) == nil)
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/own.bin"), count: 5000))
        #expect(dir.entries == ["own.bin", "user.bin"], "\(dir.entries)")
    }
}

