// What `sluice daemon`, `add`, `ls` and `stop` share: which daemon (its identifier), where its files are, and
// starting it when a command needs it and none answers.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceDaemon
import SluiceViewModel

struct DaemonOptions: ParsableArguments {
    @Option(name: .customLong("id"), help: ArgumentHelp("Which daemon: its socket is $XDG_RUNTIME_DIR/sluice/ID.sock.", valueName: "id"))
    var identifier: String = DaemonPaths.defaultIdentifier

    func paths() throws(CLIFailure) -> DaemonPaths {
        do {
            return try DaemonPaths(identifier: identifier, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
    }

    /// A client of the daemon, started first when none answers; it saves downloads by default in `directory`.
    func client(startingIn directory: String) throws(CLIFailure) -> DaemonClient {
        let paths = try paths()
        do {
            try DaemonLauncher.ensureRunning(paths, arguments: ["daemon", "--detached", "--id", identifier, "--output-dir", directory])
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
        return DaemonClient(socketPath: paths.socket)
    }

    /// The reply's body, or a failure that says what the daemon said.
    static func checked(_ response: DaemonResponse, expecting: Set<Int> = [200, 201]) throws(CLIFailure) -> String {
        guard expecting.contains(response.status) else {
            let message = (try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body.utf8)))?.error ?? response.body
            throw CLIFailure(code: 1, message: Sanitized.text(message))
        }
        return response.body
    }

    private struct ErrorBody: Decodable { let error: String }

    /// The current directory, made absolute for a daemon that has its own.
    static func currentDirectory() -> String {
        guard let p = getcwd(nil, 0) else { return "/" }
        defer { free(p) }
        return String(cString: p)
    }

    /// `path` made absolute, its directory resolved (no `.`, `..` or links), for a daemon with another directory.
    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
        if let resolved = realpath(full, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        // A file that does not exist yet (-o): its directory resolved, its name kept.
        guard let slash = full.lastIndex(of: "/"), slash != full.startIndex else { return full }
        let directory = String(full[..<slash])
        guard let resolved = realpath(directory, nil) else { return full }
        defer { free(resolved) }
        return String(cString: resolved) + String(full[slash...])
    }
}


