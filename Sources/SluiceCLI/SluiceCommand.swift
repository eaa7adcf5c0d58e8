// The `sluice` command: its subcommands and how failures become one line on stderr and an exit status.
import ArgumentParser
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
        discussion: "sluice URL... opens the UI with those URLs as data tasks; press ? in it for the keys.",
        subcommands: [OpenCommand.self, DemoCommand.self, GetCommand.self, PutCommand.self, HistoryCommand.self, ServeCommand.self],
        defaultSubcommand: OpenCommand.self
    )

    public init() {}

    /// Runs the command line and exits; failures print `sluice: message` and exit non-zero.
    public static func runMain() -> Never {
        MallocTuning.apply()
        do {
            var command = try parseAsRoot()
            try command.run()
            Glibc.exit(0)
        } catch let failure as CLIFailure {
            StandardStreams.error("sluice: \(failure.message)\n")
            Glibc.exit(failure.code)
        } catch {
            exit(withError: error)
        }
    }
}
