// Where a daemon of one identifier keeps its socket and lock (the runtime directory) and its store and log (the
// state directory).
#if canImport(Glibc)
import Glibc
#endif
import SluiceStore

public struct DaemonFailure: Error, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
}

public struct DaemonPaths: Sendable, Equatable {
    public let identifier: String
    /// `$XDG_RUNTIME_DIR/sluice`, else `/tmp/sluice-UID`: 0700, ours.
    public let runtimeDirectory: String
    /// `$XDG_STATE_HOME/sluice` (see TaskStore.defaultDirectory).
    public let stateDirectory: String

    public var socket: String { runtimeDirectory + "/" + identifier + ".sock" }
    public var lock: String { runtimeDirectory + "/" + identifier + ".lock" }
    /// The daemon's own store, apart from the UI's: two processes must never resume the same downloads.
    public var store: String { stateDirectory + "/daemon-" + identifier }
    public var log: String { stateDirectory + "/daemon-" + identifier + ".log" }

    public static let defaultIdentifier = "default"

    public init(identifier: String, environment: [String: String]) throws(DaemonFailure) {
        guard Self.isValid(identifier) else {
            throw DaemonFailure("a daemon identifier is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'")
        }
        self.identifier = identifier
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            runtimeDirectory = Self.trimmed(runtime) + "/sluice"
        } else {
            runtimeDirectory = "/tmp/sluice-\(getuid())"
        }
        stateDirectory = TaskStore.defaultDirectory(environment: environment)
        guard !stateDirectory.isEmpty else { throw DaemonFailure("no home directory: set XDG_STATE_HOME or HOME") }
        // sun_path holds 108 bytes with its terminating zero.
        guard socket.utf8.count < 108 else {
            throw DaemonFailure("the socket path \(socket) is too long for a Unix socket (107 bytes at most)")
        }
    }

    static func isValid(_ identifier: String) -> Bool {
        guard (1...64).contains(identifier.utf8.count), !identifier.hasPrefix(".") else { return false }
        return identifier.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2E || c == 0x5F || c == 0x2D
        }
    }

    /// Makes the runtime directory 0700 (its parent, from XDG_RUNTIME_DIR, must exist) and checks that it is a
    /// directory of ours that nobody else can enter: in /tmp another user could have made it first.
    public func prepareRuntimeDirectory() throws(DaemonFailure) {
        if mkdir(runtimeDirectory, 0o700) != 0 && errno != EEXIST {
            throw DaemonFailure("cannot make \(runtimeDirectory): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(runtimeDirectory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DaemonFailure("\(runtimeDirectory) is not a directory")
        }
        guard info.st_uid == getuid() else {
            throw DaemonFailure("\(runtimeDirectory) belongs to another user (uid \(info.st_uid)); refusing to use it")
        }
        if info.st_mode & 0o077 != 0 && chmod(runtimeDirectory, 0o700) != 0 {
            throw DaemonFailure("cannot make \(runtimeDirectory) private: \(String(cString: strerror(errno)))")
        }
    }

    private static func trimmed(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }
}
