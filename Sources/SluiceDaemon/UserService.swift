// `sluice daemon --install-user-service`: a systemd user unit (no root) that runs the daemon in the foreground for
// this user, written beside the user's other units. Sluice only ever replaces or removes a unit it wrote itself.
#if canImport(Glibc)
import Glibc
#endif
import SluiceStore

public enum UserService {
    /// The first line of every unit sluice writes: what `--uninstall-user-service` looks for before removing one.
    static let marker = "# Written by sluice daemon --install-user-service; remove with sluice daemon --uninstall-user-service"

    /// `sluice.service` for the default daemon, `sluice-ID.service` for another.
    public static func unitName(identifier: String) -> String {
        identifier == DaemonPaths.defaultIdentifier ? "sluice.service" : "sluice-\(identifier).service"
    }

    /// `$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`).
    public static func directory(environment: [String: String]) -> String? {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/systemd/user" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.config/systemd/user"
    }

    /// The unit's text. systemd stops it with SIGTERM, on which the daemon keeps every download's partial file
    /// and checkpoint, as `sluice stop` does.
    public static func unit(executable: String, identifier: String, outputDirectory: String, jobs: Int) -> String {
        let command = [executable, "daemon", "--foreground", "--id", identifier, "--output-dir", outputDirectory, "-j", String(jobs)]
        return """
            \(marker)
            [Unit]
            Description=Sluice transfer daemon (\(identifier))

            [Service]
            Type=simple
            ExecStart=\(command.map(quoted).joined(separator: " "))
            Restart=on-failure
            TimeoutStopSec=20

            [Install]
            WantedBy=default.target

            """
    }

    /// systemd's quoting of one word of ExecStart: double quotes, backslash before `"` and `\`, `%` doubled, `$`
    /// doubled (no variable is meant).
    static func quoted(_ word: String) -> String {
        var text = "\""
        for c in word {
            switch c {
            case "\"", "\\": text += "\\" + String(c)
            case "%": text += "%%"
            case "$": text += "$$"
            default: text.append(c)
            }
        }
        return text + "\""
    }

    public enum Outcome: Equatable, Sendable {
        case written(String)
        case unchanged(String)
        case removed(String)
    }

    /// Writes the unit at `path`; never over a file sluice did not write, and over its own only when it differs.
    public static func install(_ text: String, at path: String) throws(DaemonFailure) -> Outcome {
        if let existing = read(path) {
            if existing == text { return .unchanged(path) }
            guard existing.hasPrefix(marker) else {
                throw DaemonFailure("\(path) exists and sluice did not write it; it is left as it is")
            }
        }
        let slash = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        if let failure = Directories.make(slash, mode: 0o755) {
            throw DaemonFailure("cannot make \(failure.path): \(failure.reason)")
        }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DaemonFailure("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw DaemonFailure("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        return .written(path)
    }

    /// Removes the unit at `path` when sluice wrote it.
    public static func uninstall(at path: String) throws(DaemonFailure) -> Outcome {
        guard let existing = read(path) else { throw DaemonFailure("no user service at \(path)") }
        guard existing.hasPrefix(marker) else { throw DaemonFailure("\(path) was not written by sluice; it is left as it is") }
        guard unlink(path) == 0 else { throw DaemonFailure("cannot remove \(path): \(String(cString: strerror(errno)))") }
        return .removed(path)
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            data += buffer[0..<n]
            if data.count > 1 << 20 { break }  // not a unit sluice wrote
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// This process's own executable, for ExecStart.
    public static var executable: String? { DaemonLauncher.executablePath() }
}
