// Shared pieces of the CLI tests: one scenario server, scratch directories, and readers at the far end of a FIFO
// or a Unix socket.
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
import Synchronization
import SluiceLock
import Testing

enum CLIServers {
    /// Started once, on first use, by Swift's own one-time initialisation of a static (which ThreadSanitizer
    /// understands; the Mutex it replaces was reported as a race when several suites started at once).
    private static let started = Result { try ScenarioServer.start() }

    /// The scenario server every CLI test shares.
    static func shared() throws -> ScenarioServer { try started.get() }
}

/// A fresh directory under TMPDIR, removed by the test.
struct Scratch {
    let path: String

    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/sluice-cli-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    /// The names in the directory, sorted, without . and ..
    var entries: [String] { Self.entries(path) }

    static func entries(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Whether this process may make device nodes in a scratch directory, and open them (not on a nodev mount).
    static let canMakeDeviceNodes: Bool = {
        guard let dir = try? Scratch() else { return false }
        defer { dir.remove() }
        let node = dir.path + "/null"
        guard mknod(node, S_IFCHR | 0o666, deviceNumber(1, 3)) == 0 else { return false }
        let fd = open(node, O_WRONLY)
        if fd >= 0 { close(fd) }
        return fd >= 0
    }()
}

enum FileKind {
    /// The S_IFMT bits of what `path` names (of the link itself when `following` is false); 0 when absent.
    static func of(_ path: String, following: Bool = true) -> mode_t {
        var info = stat()
        let result = following ? stat(path, &info) : lstat(path, &info)
        return result == 0 ? info.st_mode & S_IFMT : 0
    }
}

/// Reads everything written into a FIFO or a Unix socket on a thread of its own, as a separate program would.
final class StreamReader: @unchecked Sendable {
    private let body = Locked<Data?>(nil)
    private let unblock: @Sendable () -> Void

    private init(unblock: @escaping @Sendable () -> Void) { self.unblock = unblock }

    /// Opens the FIFO for reading (which waits for a writer) and reads to its end.
    static func fifo(_ path: String) -> StreamReader {
        let reader = StreamReader(unblock: {
            // A writer that opens and closes at once ends a reader still waiting in open(2); when no reader
            // waits, the open fails with ENXIO and nothing happens.
            let fd = open(path, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        })
        Thread.detachNewThread {
            let fd = open(path, O_RDONLY)
            reader.finishReading(fd)
        }
        return reader
    }

    /// Listens on a new Unix socket at `path` and reads the first connection to its end.
    static func socket(_ path: String) -> StreamReader? {
        let listener = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0, bindUnix(listener, path, connect: false), listen(listener, 4) == 0 else { return nil }
        let reader = StreamReader(unblock: {
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            _ = bindUnix(fd, path, connect: true)
            close(fd)
        })
        Thread.detachNewThread {
            let fd = accept(listener, nil, nil)
            close(listener)
            reader.finishReading(fd)
        }
        return reader
    }

    private func finishReading(_ fd: Int32) {
        var data = Data()
        if fd >= 0 {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            close(fd)
        }
        body.withLock { $0 = data }
    }

    /// What the reader got, once the writer is gone; a reader never reached by a writer is released (an empty
    /// body). Gives up after 30 s with a recorded issue rather than hanging the suite.
    func finish(unblocking path: String?) async -> Data {
        await offThePool { self.finishBlocking(unblocking: path) }
    }

    private func finishBlocking(unblocking path: String?) -> Data {
        let deadline = DispatchTime.now().uptimeNanoseconds + 30_000_000_000
        while true {
            if let data = body.withLock({ $0 }) { return data }
            if DispatchTime.now().uptimeNanoseconds > deadline {
                Issue.record("the reader at the far end never finished")
                return Data()
            }
            unblock()
            usleep(1000)
        }
    }
}

/// bind(2) or connect(2) for a Unix socket path.
func bindUnix(_ fd: Int32, _ path: String, connect: Bool) -> Bool {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let length = socklen_t(MemoryLayout<sockaddr_un>.size)
    return withUnsafePointer(to: &address) { a in
        a.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
            connect ? Glibc.connect(fd, p, length) == 0 : bind(fd, p, length) == 0
        }
    }
}

/// Linux's dev_t from a major and minor number (glibc's makedev is a macro Swift cannot import).
func deviceNumber(_ major: UInt64, _ minor: UInt64) -> dev_t {
    dev_t(((major & 0xfffff000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffffff00) << 12) | (minor & 0xff))
}

/// Runs blocking work on a thread of its own, at the lowest priority, and awaits its result. Tens of seconds of
/// CPU on two cores otherwise starved the tests that wait a second for a server (a 1 s inactivity timeout passed
/// with nothing read): with nice 19 this work takes only the CPU the others leave.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)  // Linux: this thread only
            continuation.resume(returning: work())
        }
    }
}

/// A small seeded generator, so that every run tries the same lists.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// Compares a hand-read parse with ArgumentParser's over `count` generated lines: each starts with `first(n)` and
/// has up to six words, option names (most with a value after them) and bare values. Returns how many lines the
/// fast way took and left, and what differed: a line only the fast way takes, another command, or a property left
/// unset (`*definition*`, which stops the program when read).
func compareParses<Command>(count: Int, seed: UInt64, first: (Int) -> [String], names: [String], values: [String],
                            fast: ([String]) -> Command?, tree: ([String]) -> Command?) -> (taken: Int, left: Int, failures: [String]) {
    var random = SplitMix(seed: seed)
    var taken = 0, left = 0
    var failures: [String] = []
    for round in 0..<count {
        var arguments = first(round)
        for _ in 0..<random.next(below: 7) {
            if random.next(below: 3) == 0 {
                arguments.append(values[random.next(below: values.count)])
            } else {
                arguments.append(names[random.next(below: names.count)])
                if random.next(below: 5) != 0 { arguments.append(values[random.next(below: values.count)]) }
            }
        }
        guard let fastCommand = fast(arguments) else {
            left += 1
            continue
        }
        taken += 1
        guard let treeCommand = tree(arguments) else {
            failures.append("\(arguments): only the fast way takes it")
            continue
        }
        let fastText = String(describing: fastCommand)
        if fastText != String(describing: treeCommand) { failures.append("\(arguments): the commands differ") }
        if fastText.contains("*definition*") { failures.append("\(arguments): a property is left unset") }
    }
    return (taken, left, failures)
}
