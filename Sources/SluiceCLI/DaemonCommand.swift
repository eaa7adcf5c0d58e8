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

    @Option(name: .customShort("j"), help: ArgumentHelp("How many tasks transfer at once (default: the config file's jobs, else 6).", valueName: "n"))
    var jobs: Int?

    @Option(name: .customLong("limit-rate"), parsing: .unconditional,
            help: ArgumentHelp("At most this many bytes per second for all its transfers together; k, m, g (1024-based) as curl's.", valueName: "speed"))
    var limitRate: String?

    @Flag(help: "Write a systemd user unit (no root) that runs this daemon, and say how to enable it.")
    var installUserService = false

    @Flag(help: "Remove the systemd user unit that --install-user-service wrote.")
    var uninstallUserService = false

    @OptionGroup var daemon: DaemonOptions
    @OptionGroup(title: "When tasks end") var hookOptions: HookOptions
    @OptionGroup var configFile: ConfigOption

    mutating func run() throws {
        if let jobs, jobs < 1 { throw CLIFailure(code: 2, message: "-j needs at least 1") }
        let paths = try daemon.paths()
        let config = try configFile.load()
        config.applyDefaults(to: &self)  // the file's jobs, limit-rate and hooks, unless given here
        let jobs = self.jobs ?? config.jobs.value
        let rate = try RetryOptions.rateLimit(limitRate)
        let directory = DaemonOptions.absolute(outputDir)
        if installUserService || uninstallUserService { return try userService(directory: directory, jobs: jobs) }
        guard !foreground && !detached else {
            // Detached, it keeps no directory busy (a file system it sat in could not be unmounted); every path
            // it uses is absolute.
            if detached { _ = chdir("/") }
            var settings = DaemonSettings(paths: paths, outputDirectory: directory, jobs: jobs, echoLog: foreground, hooks: try hookOptions.hooks(),
                                          hostLimit: { config.connections(forHost: $0) }, requestTimeout: config.requestTimeout)
            settings.maximumBytesPerSecond = rate
            if config.perHost.source != .defaultValue { settings.perHost = config.perHost.value }
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
                                                                          "--output-dir", directory] + (self.jobs.map { ["-j", String($0)] } ?? [])
                                                           + hookArguments)
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
        StandardStreams.output(started ? "sluice daemon started: \(paths.socket)\n" : "sluice daemon already running: \(paths.socket)\n")
    }

    /// `--install-user-service` / `--uninstall-user-service`: the unit, and what to type next.
    private func userService(directory: String, jobs: Int) throws {
        if installUserService && uninstallUserService { throw CLIFailure(code: 2, message: "install or uninstall, not both") }
        guard let folder = UserService.directory(environment: ProcessInfo.processInfo.environment) else {
            throw CLIFailure(code: 1, message: "neither XDG_CONFIG_HOME nor HOME says where user units go")
        }
        let name = UserService.unitName(identifier: daemon.identifier)
        let path = folder + "/" + name
        do throws(DaemonFailure) {
            if uninstallUserService {
                _ = try UserService.uninstall(at: path)
                StandardStreams.output("removed \(path)\nif it was enabled: systemctl --user disable --now \(name)\n")
                return
            }
            guard let executable = UserService.executable else { throw DaemonFailure("cannot find this program's executable in /proc/self/exe") }
            let text = UserService.unit(executable: executable, identifier: daemon.identifier, outputDirectory: directory, jobs: jobs)
            switch try UserService.install(text, at: path) {
            case .unchanged: StandardStreams.output("\(path) is already installed, unchanged\n")
            default: StandardStreams.output("wrote \(path)\n")
            }
            StandardStreams.output("""
                enable it:  systemctl --user daemon-reload && systemctl --user enable --now \(name)
                keep it running after you log out:  loginctl enable-linger $USER

                """)
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
    }

    /// The hook flags again, for the detached daemon this starts.
    private var hookArguments: [String] {
        var words: [String] = []
        for (flag, value) in [("--on-complete", hookOptions.onComplete), ("--on-error", hookOptions.onError),
                              ("--on-queue-empty", hookOptions.onQueueEmpty)] {
            if let value { words += [flag, value] }
        }
        if hookOptions.notify { words.append("--notify") }
        if let limitRate { words += ["--limit-rate", limitRate] }  // checked above
        return words + ["--hook-timeout", String(hookOptions.hookTimeout)]
    }
}
