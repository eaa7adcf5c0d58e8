// `sluice get -o` into devices, FIFOs, sockets, symlinks and directories, run in-process against the scenario server.
import Dispatch
import Foundation
import SluiceScenarioServer
import Synchronization
import Testing
@testable import SluiceCLI

@Suite struct OutputTargetTests {
    // MARK: Streams: written into directly, no --force, no temporary file, no resume data

    @Test func aFIFOReceivesTheBodyByteIdentical() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let fifo = dir.path + "/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = StreamReader.fifo(fifo)
        let failure = await runGet([server.url("/bytes/300000").absoluteString, "-o", fifo])
        let body = await reader.finish(unblocking: fifo)
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(body, count: 300_000))
        #expect(FileKind.of(fifo) == S_IFIFO, "the FIFO is still a FIFO")
        #expect(dir.entries == ["pipe"], "no temporary file and no resume data beside it")
    }

    @Test func aFIFOThatLosesItsConnectionKeepsNoResumeData() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let fifo = dir.path + "/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = StreamReader.fifo(fifo)
        let failure = await runGet([server.url("/bytes/300000?drop=100000").absoluteString, "-o", fifo])
        let body = await reader.finish(unblocking: fifo)
        #expect(failure?.code == 1)
        #expect(failure?.message.contains("resume") == false, "a stream cannot be resumed: \(failure?.message ?? "")")
        #expect(isPattern(body, count: 100_000), "the bytes that came went through")
        #expect(dir.entries == ["pipe"])
    }

    /// A data task that becomes a download at the response still delivers its body to the stream, whole.
    @Test func becomeDownloadIntoAFIFODeliversTheFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let fifo = dir.path + "/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = StreamReader.fifo(fifo)
        let failure = await runGet([server.url("/bytes/600000").absoluteString, "-o", fifo, "--disposition", "becomeDownload"])
        let body = await reader.finish(unblocking: fifo)
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(body, count: 600_000), "got \(body.count) bytes")
        #expect(dir.entries == ["pipe"])
    }

    @Test func aSymlinkToAFIFOWritesIntoTheFIFO() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let fifo = dir.path + "/pipe"
        try #require(mkfifo(fifo, 0o600) == 0)
        try #require(symlink("pipe", dir.path + "/link") == 0)
        let reader = StreamReader.fifo(fifo)
        let failure = await runGet([server.url("/bytes/5000").absoluteString, "-o", dir.path + "/link"])
        let body = await reader.finish(unblocking: fifo)
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(body, count: 5000))
        #expect(FileKind.of(dir.path + "/link", following: false) == S_IFLNK)
        #expect(dir.entries == ["link", "pipe"])
    }

    @Test func aUnixSocketReceivesTheBody() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let path = dir.path + "/sock"
        let reader = try #require(StreamReader.socket(path))
        let failure = await runGet([server.url("/bytes/70000").absoluteString, "-o", path])
        let body = await reader.finish(unblocking: nil)
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(body, count: 70000))
        #expect(FileKind.of(path) == S_IFSOCK)
    }

    /// /dev/null itself, only without --force (the old code refused then, and never touched it).
    @Test func devNullWithoutForceDiscardsTheBody() async throws {
        let server = try CLIServers.shared()
        let failure = await runGet([server.url("/bytes/100000").absoluteString, "-o", "/dev/null"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(FileKind.of("/dev/null", following: false) == S_IFCHR)
    }

    /// Our own node for the null device (1, 3) in a scratch directory, so that --force is tried on a node nobody
    /// else needs. Needs the right to make device nodes (root); skipped otherwise.
    @Test(.enabled(if: Scratch.canMakeDeviceNodes))
    func aCharacterDeviceIsWrittenIntoEvenWithForce() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let node = dir.path + "/null"
        try #require(mknod(node, S_IFCHR | 0o666, deviceNumber(1, 3)) == 0)
        for extra in [[], ["--force"]] {
            let failure = await runGet([server.url("/bytes/100000").absoluteString, "-o", node] + extra)
            #expect(failure == nil, "\(extra): \(failure?.message ?? "")")
            #expect(FileKind.of(node, following: false) == S_IFCHR, "\(extra): the device node is still a device node")
            #expect(dir.entries == ["null"], "\(extra): no temporary file, no resume data")
        }
    }

    /// A block device holds data: like an existing file it is refused without --force. The node's numbers name
    /// no device here (major 240 is for local use), and the refusal comes before anything is opened.
    @Test(.enabled(if: Scratch.canMakeDeviceNodes))
    func aBlockDeviceIsRefusedWithoutForce() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let node = dir.path + "/disk"
        try #require(mknod(node, S_IFBLK | 0o600, deviceNumber(240, 77)) == 0)
        let failure = await runGet([server.url("/bytes/100").absoluteString, "-o", node])
        #expect(failure?.code == 1)
        #expect(failure?.message.contains("--force") == true, "\(failure?.message ?? "")")
        #expect(FileKind.of(node, following: false) == S_IFBLK)
        #expect(dir.entries == ["disk"])
    }

    // MARK: Symlinks: what they point to, never the link itself

    @Test func aSymlinkToAFileIsAnExistingFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try Data("precious".utf8).write(to: URL(fileURLWithPath: dir.path + "/target"))
        try #require(symlink("target", dir.path + "/link") == 0)
        let failure = await runGet([server.url("/bytes/100").absoluteString, "-o", dir.path + "/link"])
        #expect(failure?.code == 1)
        #expect(failure?.message.contains("--force") == true, "\(failure?.message ?? "")")
        #expect(FileManager.default.contents(atPath: dir.path + "/target") == Data("precious".utf8))
        #expect(FileKind.of(dir.path + "/link", following: false) == S_IFLNK)
        #expect(dir.entries == ["link", "target"])
    }

    @Test func forceReplacesTheContentOfWhatTheSymlinkPointsTo() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/real", withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: dir.path + "/real/target"))
        try #require(symlink("real/target", dir.path + "/link") == 0)
        let failure = await runGet([server.url("/bytes/3000").absoluteString, "-o", dir.path + "/link", "--force"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(FileKind.of(dir.path + "/link", following: false) == S_IFLNK, "the link is still a link")
        #expect(readLink(dir.path + "/link") == "real/target")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/real/target"), count: 3000))
        #expect(dir.entries == ["link", "real"])
        #expect(Scratch.entries(dir.path + "/real") == ["target"])
    }

    @Test func aDanglingSymlinkGetsItsTargetCreated() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try #require(symlink("new.bin", dir.path + "/link") == 0)
        let failure = await runGet([server.url("/bytes/3000").absoluteString, "-o", dir.path + "/link"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(readLink(dir.path + "/link") == "new.bin")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/new.bin"), count: 3000))
    }

    // MARK: Directories: a clear error that names the option that saves inside one

    @Test func aDirectoryIsAClearError() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/out", withIntermediateDirectories: false)
        try #require(symlink("out", dir.path + "/link") == 0)
        for target in ["out", "out/", "link"] {
            let failure = await runGet([server.url("/bytes/100").absoluteString, "-o", dir.path + "/" + target])
            #expect(failure?.code == 1, "\(target)")
            #expect(failure?.message.contains("is a directory") == true, "\(target): \(failure?.message ?? "")")
            #expect(failure?.message.contains("--output-dir") == true, "\(target): \(failure?.message ?? "")")
        }
        #expect(Scratch.entries(dir.path + "/out") == [])
        #expect(dir.entries == ["link", "out"])
    }

    /// A missing --output-dir is named as such, with the flag that makes it: the message named a file `DIR/x`
    /// that no download would have had.
    @Test func aMissingOutputDirectoryIsNamedWithTheFlagThatMakesIt() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let missing = dir.path + "/nodir"
        let failure = await runGet([server.url("/bytes/100").absoluteString, "--output-dir", missing])
        #expect(failure?.code == 1)
        #expect(failure?.message == "cannot write the downloads: the directory \(missing) does not exist (--create-dirs makes it)",
                "\(failure?.message ?? "")")
        #expect(dir.entries == [])
    }

    /// `--output-dir DIR -o FILE URL` saves DIR/FILE, as curl does; it was refused as "-o takes one URL".
    @Test func minusOGoesInsideTheOutputDirectory() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/ex", withIntermediateDirectories: false)
        let failure = await runGet([server.url("/bytes/100").absoluteString, "--output-dir", dir.path + "/ex", "-o", "a.bin"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/ex/a.bin") ?? Data(), count: 100))
        #expect(GetCommand.output("/abs/f", in: "d") == "/abs/f" && GetCommand.output("-", in: "d") == "-")
        #expect(GetCommand.output(nil, in: "d") == nil && GetCommand.output("f", in: nil) == "f")
    }

    /// `-o a URL1 -o b URL2`: each URL into its own file, paired in order, as curl pairs them (refused before).
    @Test func severalMinusOPairWithTheURLsInOrder() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet(["-o", dir.path + "/a", server.url("/bytes/100").absoluteString,
                                    "-o", dir.path + "/b", server.url("/bytes/200").absoluteString])
        #expect(failure == nil, "\(failure?.message ?? "")")
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/a"), count: 100))
        #expect(isPattern(FileManager.default.contents(atPath: dir.path + "/b"), count: 200))
        let mismatch = await runGet(["-o", dir.path + "/c", "-o", dir.path + "/d", server.url("/bytes/1").absoluteString])
        #expect(mismatch?.code == 2 && mismatch?.message.contains("2 -o for 1 URLs") == true, "\(mismatch?.message ?? "")")
        #expect(dir.entries == ["a", "b"])
    }

    /// A saved file keeps the bytes as sent, as curl -o and wget save them: a server that labels a .tar.gz
    /// Content-Encoding gzip gives the .tar.gz, not the tar inside (nor a file a resume could not continue).
    @Test func aSavedFileKeepsTheBytesAsSent() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet([server.url("/encoded/gzip").absoluteString, "-o", dir.path + "/t.tar.gz"])
        #expect(failure == nil, "\(failure?.message ?? "")")
        let saved = FileManager.default.contents(atPath: dir.path + "/t.tar.gz") ?? Data()
        #expect(saved.prefix(2) == Data([0x1F, 0x8B]) && saved.count < EncodedBodies.text.utf8.count, "\(saved.count) bytes")
        #expect(await runGet([server.url("/headers").absoluteString, "-o", dir.path + "/h"]) == nil)
        let sent = String(decoding: FileManager.default.contents(atPath: dir.path + "/h") ?? Data(), as: UTF8.self)
        #expect(!sent.lowercased().contains("accept-encoding"), "nothing asked for compressed: \(sent)")
    }

    // MARK: Classification without a transfer

    @Test func dashAndDevStdoutAreOpenDescriptors() async throws {
        for (path, expected) in [("-", Int32(1)), ("/dev/stdout", 1), ("/dev/stderr", 2), ("/dev/fd/2", 2), ("/proc/self/fd/1", 1)] {
            guard case .descriptor(let fd) = try OutputTarget.classify(path, force: false) else {
                Issue.record("\(path) is not an open descriptor")
                continue
            }
            #expect(fd == expected, "\(path)")
        }
    }

    @Test func aSymlinkLoopIsAClearError() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try #require(symlink("b", dir.path + "/a") == 0 && symlink("a", dir.path + "/b") == 0)
        #expect(throws: CLIFailure.self) { try OutputTarget.classify(dir.path + "/a", force: true) }
        #expect(dir.entries == ["a", "b"])
    }
}

/// Runs `sluice get ARGS` in this process; the failure it ended with, or nil on success.
/// Runs `sluice get` in-process on a thread of its own: it blocks until the transfer ends, and a blocked test
/// must not hold one of the few threads of Swift's concurrency pool, which every other test needs.
func runGet(_ arguments: [String]) async -> CLIFailure? {
    await offThePool { runGetBlocking(arguments) }
}

func runGetBlocking(_ arguments: [String]) -> CLIFailure? {
    do {
        var command = try GetCommand.parse(arguments)
        try command.run()
        return nil
    } catch let failure as CLIFailure {
        return failure
    } catch {
        return CLIFailure(code: -1, message: "not a CLIFailure: \(error)")
    }
}

func readLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    return n < 0 ? nil : String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Whether `data` is the first `count` bytes of the scenario pattern (a Bool, so a failure prints no byte diff).
func isPattern(_ data: Data?, count: Int) -> Bool {
    data == Data(ScenarioPattern.bytes(offset: 0, count: count))
}
