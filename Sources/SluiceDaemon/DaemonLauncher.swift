// Starting the daemon for a command that needs it: re-executes this very binary with posix_spawn in a session of
// its own (setsid), standard input and output on /dev/null and standard error on the log, then waits until its
// socket answers. A fork without exec is unsafe in a process with threads, which every Swift process has.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SluiceStore
import SluiceTUI

public enum DaemonLauncher {
    /// Makes sure a daemon answers on `paths.socket`, starting one when none does. `arguments` are the daemon's
    /// (after the program name), e.g. `["daemon", "--detached", "--id", "default"]`. True when it started one.
    /// `executable`: the `sluice` binary to run; nil: this very process's (the CLI re-executes itself).
    /// `environment`: the daemon's (where XDG_RUNTIME_DIR and XDG_STATE_HOME point); nil: this process's.
    @discardableResult
    public static func ensureRunning(_ paths: DaemonPaths, arguments: [String], executable: String? = nil,
                                     environment: [String: String]? = nil, waitSeconds: Double = 15) throws(DaemonFailure) -> Bool {
        let client = DaemonClient(socketPath: paths.socket)
        if client.isAnswering { return false }
        try paths.prepareRuntimeDirectory()
        try makeDirectory(paths.stateDirectory)
        let pid = try spawn(executable, arguments: arguments, environment: environment, log: paths.log)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(waitSeconds * 1e9)
        var exited = false
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if client.isAnswering { return true }
            if !exited {
                var status: Int32 = 0
                if waitpid(pid, &status, WNOHANG) == pid {
                    exited = true
                    // 75: another daemon won the race for the lock; it will answer soon. Anything else is a failure.
                    let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                    if code != DaemonRunner.alreadyRunningStatus {
                        throw DaemonFailure("the daemon could not start (exit \(code)); see \(paths.log)" + lastLines(of: paths.log))
                    }
                }
            }
            usleep(20_000)  // only while starting: bounded by the deadline
        }
        throw DaemonFailure("the daemon started but does not answer on \(paths.socket) after \(Int(waitSeconds)) s; see \(paths.log)")
    }

    /// This process's own executable, for re-executing it.
    static func executablePath() -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            b.baseAddress.map { p in p.withMemoryRebound(to: CChar.self, capacity: b.count) { readlink("/proc/self/exe", $0, b.count - 1) } } ?? -1
        }
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    private static func spawn(_ named: String?, arguments: [String], environment: [String: String]?, log: String) throws(DaemonFailure) -> pid_t {
        guard let executable = named ?? executablePath() else { throw DaemonFailure("cannot find this program's executable in /proc/self/exe") }
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        // Nothing of the launcher's but what is named here: a pipe it inherited (`sluice add | less`, a test
        // reading its output) held open by the daemon would never reach its end.
        SpawnedDescriptors.closeInherited(&actions)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // A crash's last words (a Swift fatal error, say) land in the log beside its own lines.
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        // A new session: no controlling terminal, so closing the terminal (SIGHUP) does not reach it.
        let signals = SpawnedSignals.reset(&attributes)
        let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26), a macro Swift does not import
        posix_spawnattr_setflags(&attributes, Int16(setsid | signals))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { $0.map { strdup($0.key + "=" + $0.value) } + [nil] }
        defer { envp?.forEach { free($0) } }
        var pid = pid_t()
        let result = envp.map { posix_spawn(&pid, executable, &actions, &attributes, argv, $0) }
            ?? posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw DaemonFailure("cannot start \(executable): \(String(cString: strerror(result)))") }
        return pid
    }

    private static func makeDirectory(_ path: String) throws(DaemonFailure) {
        if let failure = Directories.make(path, mode: 0o700) {
            throw DaemonFailure("cannot make \(failure.path): \(failure.reason)")
        }
    }

    /// The log's last few lines, to show why a start failed.
    static func lastLines(of path: String, count: Int = 5) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        let size = lseek(fd, 0, SEEK_END)
        let from = max(0, size - 4096)
        var buffer = [UInt8](repeating: 0, count: Int(size - from))
        let n = pread(fd, &buffer, buffer.count, from)
        guard n > 0 else { return "" }
        let lines = String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n").suffix(count)
        return lines.isEmpty ? "" : ":\n" + lines.joined(separator: "\n")
    }
}
