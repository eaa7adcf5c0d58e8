// `sluice ls`: the daemon's tasks, one line each, or its JSON as it is (--json).
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceDaemon
import SluiceViewModel

struct DaemonListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the background daemon's tasks; a listing starts nothing (sluice daemon, add or attach start it)."
    )

    @Flag(help: "Print the daemon's JSON (GET /tasks) as it is.")
    var json = false

    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        // A listing changes nothing: starting a daemon here would resume the downloads a `sluice stop` just stopped.
        let paths = try daemon.paths()
        let client = DaemonClient(socketPath: paths.socket)
        guard DaemonLock.isHeld(paths.lock) || client.isAnswering else {
            throw CLIFailure(code: 1, message: "no sluice daemon is running for \(paths.identifier): sluice daemon, add or attach starts it, "
                                               + "and its unfinished downloads go on then")
        }
        let reply: DaemonResponse
        do {
            reply = try client.send("GET", "/tasks")
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
        let body = try DaemonOptions.checked(reply)
        if json { return StandardStreams.output(body.hasSuffix("\n") ? body : body + "\n") }
        guard let rows = try? JSONDecoder().decode([Listed].self, from: Data(body.utf8)) else {
            throw CLIFailure(code: 1, message: "the daemon's list was not what sluice expects")
        }
        for row in rows { StandardStreams.output(Sanitized.text(row.line) + "\n") }
    }

    /// The fields of GET /tasks that a line shows.
    struct Listed: Decodable {
        let id: Int
        let url: String
        let state: String
        let bytes: Int64
        let expected: Int64
        let rate: Int64?
        let saved: String?
        let error: String?

        var line: String {
            var size = ByteCountText.format(bytes)
            if expected >= 0 { size += " of " + ByteCountText.format(expected) }
            var parts = ["#\(id)", state, size]
            if let rate { parts.append(ByteCountText.rate(Double(rate))) }
            if let error { parts.append(error) }
            parts.append(url)
            if let saved { parts.append("saved " + saved) }
            return parts.joined(separator: "  ")
        }
    }
}
