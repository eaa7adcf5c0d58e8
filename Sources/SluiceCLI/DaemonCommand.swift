// `sluice daemon`: the background process that keeps transferring after the terminal closes. Started for you by
// `sluice add` and `sluice ls`; --foreground keeps it attached (systemd, a container).
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

struct DaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon",
        abstract: "Run the background daemon that sluice add, ls and stop talk to (started for you when absent).",
        discussion: """
            It serves HTTP/1.1 with JSON on the Unix socket $XDG_RUNTIME_DIR/sluice/ID.sock (only to its own user; \
            see docs/api.md), keeps its tasks in $XDG_STATE_HOME/sluice/daemon-ID/ and logs to \
            $XDG_STATE_HOME/sluice/daemon-ID.log. Unfinished downloads resume when it starts again.
            """
    )

    @Flag(help: "Stay attached to the terminal and log to standard error too (for systemd or a container).")
    var foreground = false

    /// Set by the launcher on the process it re-executes: already detached, so just run.
    @Flag(help: .hidden)
    var detached = false

    @Option(help: "Where downloads are saved when sluice add names no place (default: the current directory).")
    var outputDir: String = "."

    @Option(name: .customShort("j"), help: ArgumentHelp("How many tasks transfer at once.", valueName: "n"))
    var jobs: Int = 6

    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        guard jobs >= 1 else { throw CLIFailure(code: 2, message: "-j needs at least 1") }
        let paths = try daemon.paths()
        let directory = DaemonOptions.absolute(outputDir)
        guard !foreground && !detached else {
            // Detached, it keeps no directory busy (a file system it sat in could not be unmounted); every path
            // it uses is absolute.
            if detached { _ = chdir("/") }
            let settings = DaemonSettings(paths: paths, outputDirectory: directory, jobs: jobs, echoLog: foreground)
            let ending: DaemonRunner.Ending
            do {
                ending = try DaemonRunner.run(settings, traceLine: TraceEncoder.line(for:start:))
            } catch {
                throw CLIFailure(code: 1, message: error.message)
            }
            if case .alreadyRunning(let pid) = ending {
                throw CLIFailure(code: DaemonRunner.alreadyRunningStatus,
                                 message: "a daemon is already running for \(paths.identifier)" + (pid.map { " (pid \($0))" } ?? ""))
            }
            return
        }
        let started: Bool
        do {
            started = try DaemonLauncher.ensureRunning(paths, arguments: ["daemon", "--detached", "--id", paths.identifier,
                                                                          "--output-dir", directory, "-j", String(jobs)])
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
        StandardStreams.output(started ? "sluice daemon started: \(paths.socket)\n" : "sluice daemon already running: \(paths.socket)\n")
    }
}
