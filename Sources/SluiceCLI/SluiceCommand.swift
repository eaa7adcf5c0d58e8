// The `sluice` command: its subcommands and how failures become one line on stderr and an exit status.
import ArgumentParser
import SluiceEngine
import SluiceViewModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public struct SluiceCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "A terminal transfer manager with URLSession's delegate flow, on libcurl.",
        discussion: "sluice URL... opens the UI with those URLs as data tasks, sluice -d URL... as downloads, and sluice alone with the history and the unfinished downloads of the last run; press ? in it for the keys. sluice add URL... hands downloads to a background daemon that goes on when the terminal closes.",
        version: SluiceVersion.number,
        subcommands: [OpenCommand.self, DemoCommand.self, GetCommand.self, PutCommand.self, HistoryCommand.self, ServeCommand.self,
                      DaemonAddCommand.self, AttachCommand.self, DaemonListCommand.self, DaemonPauseCommand.self, DaemonResumeCommand.self,
                      DaemonCancelCommand.self, DaemonRemoveCommand.self, DaemonRefreshCommand.self, DaemonStopCommand.self, DaemonCommand.self,
                      ConfigCommand.self],
        defaultSubcommand: OpenCommand.self
    )

    /// What `--version` prints: the number, libcurl and its libraries. Not the configuration's `version`, which
    /// is read at every start and would ask libcurl each time; it only puts `--version` in the help.
    static let versionFlags = ["--version", "-V"]

    public init() {}

    /// Runs the command line and exits; failures print `sluice: message` and exit non-zero.
    public static func runMain() -> Never {
        MallocTuning.apply()
        do {
            var arguments = Array(CommandLine.arguments.dropFirst())
            // `sluice --version`, and `sluice get --version` as a curl user types it.
            if let flag = arguments.last, versionFlags.contains(flag),
               arguments.count == 1 || (arguments.count == 2 && configuration.subcommands.contains { $0._commandName == arguments[0] }) {
                StandardStreams.output(SluiceVersion.line + "\n")
                Glibc.exit(0)
            }
            // Only the commands that take URL lists unfold them (`sluice URL...` is `open`).
            let names = configuration.subcommands.map { $0._commandName }
            let others = names.filter { !["get", "open", "add"].contains($0) }
            if let first = arguments.first, !others.contains(first) {
                let folded = ArgumentRuns.fold(arguments)
                arguments = folded.arguments
                ArgumentRuns.current = folded.runs
            }
            var command = try DirectParse.command(arguments)
                ?? OpenFastParse.command(arguments, subcommands: names.filter { $0 != "open" }) ?? parseAsRoot(arguments)
            try command.run()
            Glibc.exit(0)
        } catch let failure as CLIFailure {
            // A usage error is printed under -s too, as curl's are: the exit status alone does not say what to fix
            // (found by a tester: `get -s --limit-rate abc URL` printed nothing).
            if failure.code == 2 {
                StandardStreams.errorAsked("sluice: \(failure.message)\n")
            } else {
                StandardStreams.error("sluice: \(failure.message)\n")
            }
            Glibc.exit(failure.code)
        } catch {
            // A usage error exits 2, as curl's and wget's do, whether ArgumentParser found it (its own code is 64,
            // EX_USAGE) or one of sluice's checks did.
            if exitCode(for: error) == .validationFailure {
                // The message quotes what was typed: an escape sequence in it is shown, not sent to the terminal.
                let lines = fullMessage(for: error).split(separator: "\n", omittingEmptySubsequences: false)
                StandardStreams.error(lines.map { Sanitized.text(String($0)) }.joined(separator: "\n") + "\n")
                Glibc.exit(2)
            }
            exit(withError: error)
        }
    }
}
