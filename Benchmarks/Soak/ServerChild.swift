// The scenario server in a child process of its own (this same program with --serve), so that the soak's
// descriptors, threads and memory are the Session's alone. The child ends when its standard input closes.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceScenarioServer

struct ServerChild {
    let pid: pid_t
    let port: Int
    /// Its standard input: closing it tells the child to stop.
    private let control: Int32

    /// `--serve`: the child's side. Prints "port N", serves until standard input reaches its end.
    static func serve() -> Never {
        guard let server = try? ScenarioServer.start() else {
            _ = "sluice-soak: the scenario server did not start\n".withCString { write(2, $0, strlen($0)) }
            exit(1)
        }
        let line = "port \(server.port)\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
        var byte: UInt8 = 0
        while true {
            let n = read(0, &byte, 1)
            if n == 0 || (n < 0 && errno != EINTR) { break }
        }
        server.shutdown()
        exit(0)
    }

    static func start() -> ServerChild? {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { return nil }
        // Only the ends dup2'ed into the child cross over; dup2 clears close-on-exec for those.
        for fd in toChild + fromChild { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        let program = "/proc/self/exe"
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("sluice-soak"), strdup("--serve"), nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            return nil
        }
        var text: [UInt8] = []
        var byte: UInt8 = 0
        while text.last != 10 {
            let n = read(fromChild[0], &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            text.append(byte)
        }
        close(fromChild[0])
        let words = String(decoding: text, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard words.count == 2, words[0] == "port", let port = Int(words[1]) else {
            close(toChild[1])
            return nil
        }
        return ServerChild(pid: pid, port: port, control: toChild[1])
    }

    func stop() {
        close(control)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
