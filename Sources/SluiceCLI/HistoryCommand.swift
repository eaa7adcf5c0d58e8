// `sluice history [--json] [TEXT]`: past tasks from the store, newest first, searchable by URL or saved path.
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
import SluiceStore
import SluiceViewModel

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Print past tasks, newest first: id, when, outcome, size, URL and where saved.",
        discussion: "The store is $XDG_STATE_HOME/sluice/sluice.db (~/.local/state/sluice/ when XDG_STATE_HOME is unset)."
    )

    @Flag(help: "One JSON object per line, with every stored field (credentials and cookies redacted).")
    var json = false

    @Option(name: .customLong("limit"), help: "At most this many tasks, the newest.")
    var limit: Int?

    @Argument(help: "Only tasks whose URL or saved path contains this text (ASCII letters in any case).")
    var text: String?

    /// The daemon keeps a store of its own (two processes must never resume the same downloads).
    @Option(name: .customLong("id"), help: ArgumentHelp("The background daemon's tasks (sluice add, attach) instead of the UI's: the daemon of this identifier (default: default).", valueName: "id"))
    var daemonID: String?

    mutating func run() throws {
        let report = try report(environment: ProcessInfo.processInfo.environment)
        for note in report.notes { StandardStreams.error("sluice: \(note)\n") }
        if !report.lines.isEmpty { StandardStreams.output(report.lines.joined(separator: "\n") + "\n") }
    }

    /// The lines for standard output and the notes for standard error, for the store `environment` names.
    func report(environment: [String: String]) throws -> (lines: [String], notes: [String]) {
        if let limit, limit < 0 { throw CLIFailure(code: 2, message: "--limit must be 0 or more") }
        let directory: String
        if let daemonID {
            do {
                directory = try DaemonPaths(identifier: daemonID, environment: environment).store
            } catch {
                throw CLIFailure(code: 2, message: error.message)
            }
        } else {
            directory = TaskStore.defaultDirectory(environment: environment)
        }
        // A listing makes nothing: no store yet means no history, not a new empty file.
        guard access(directory + "/sluice.db", F_OK) == 0 else {
            var note = "no history yet (\(Sanitized.text(directory))/sluice.db does not exist)"
            if daemonID == nil, let paths = try? DaemonPaths(identifier: DaemonPaths.defaultIdentifier, environment: environment),
               access(paths.store + "/sluice.db", F_OK) == 0 {
                note += "; the daemon's tasks: sluice history --id \(paths.identifier)"
            }
            return ([], json ? [] : [note])
        }
        let store: TaskStore
        let tasks: [StoredTask]
        do {
            store = try TaskStore(directory: directory)
            tasks = try store.search(text, limit: limit)
        } catch {
            throw CLIFailure(code: 1, message: Sanitized.text("\(error)"))
        }
        var notes = store.notice.map { [Sanitized.text($0)] } ?? []
        // A search that finds nothing says so (it printed nothing at all, like a broken command; found by a tester).
        if tasks.isEmpty, !json, let text, !text.isEmpty { notes.append("no task's URL or saved path contains \(Sanitized.text(text))") }
        return (json ? tasks.map(HistoryLine.json) : HistoryLine.table(tasks), notes)
    }
}
