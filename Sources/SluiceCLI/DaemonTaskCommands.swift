// `sluice pause`, `sluice resume` and `sluice rm`: the daemon's tasks by id (from `sluice ls`), or all of them, as
// the attached UI's s, r, P, R, x, C and X do. They talk to a daemon that runs; none is started for them.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceDaemon
import SluiceViewModel

/// One request per task, or one for all; each reply's message (or error) printed.
private func control(_ daemon: DaemonOptions, ids: [Int], all: Bool, perTask: (Int) -> (String, String), forAll: (String, String)?) throws {
    if all == !ids.isEmpty {  // both, or neither
        throw CLIFailure(code: 2, message: all ? "--all and task ids: give one or the other"
                                                : "which tasks? give their ids (sluice ls)" + (forAll == nil ? "" : " or --all"))
    }
    let paths = try daemon.paths()
    let client = DaemonClient(socketPath: paths.socket)
    guard client.isAnswering else { throw CLIFailure(code: 1, message: "no sluice daemon is running for \(paths.identifier)") }
    let requests = all ? [forAll].compactMap { $0 } : ids.map(perTask)
    var failed = false
    for (method, path) in requests {
        do throws(DaemonFailure) {
            let reply = try client.send(method, path)
            let body = (try? JSONDecoder().decode(Reply.self, from: Data(reply.body.utf8)))
            if (200..<300).contains(reply.status) {
                StandardStreams.output((body?.message ?? "\(path.split(separator: "/").dropFirst().joined(separator: " ")): done") + "\n")
            } else {
                failed = true
                StandardStreams.error("sluice: " + Sanitized.text(body?.error ?? "the daemon answered \(reply.status)") + "\n")
            }
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
    }
    if failed { throw ExitCode(1) }
}

private struct Reply: Decodable {
    let message: String?
    let error: String?
}

struct DaemonPauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Suspend the daemon's tasks (by id, or --all).")

    @Argument(help: "Task ids, as sluice ls shows them.") var ids: [Int] = []
    @Flag(help: "Every running task.") var all = false
    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        try control(daemon, ids: ids, all: all, perTask: { ("POST", "/tasks/\($0)/suspend") }, forAll: ("POST", "/all/suspend"))
    }
}

struct DaemonResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume the daemon's suspended tasks (by id, or --all).")

    @Argument(help: "Task ids, as sluice ls shows them.") var ids: [Int] = []
    @Flag(help: "Every suspended task.") var all = false
    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        try control(daemon, ids: ids, all: all, perTask: { ("POST", "/tasks/\($0)/resume") }, forAll: ("POST", "/all/resume"))
    }
}

/// `sluice cancel ID...`: what `c` does in the UI, for scripts (`rm` refuses a task still under way).
struct DaemonCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Cancel the daemon's tasks by id (a download's partial file is deleted; pause keeps it).")

    @Argument(help: "Task ids, as sluice ls shows them.") var ids: [Int] = []
    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        try control(daemon, ids: ids, all: false, perTask: { ("POST", "/tasks/\($0)/cancel") }, forAll: nil)
    }
}

struct DaemonRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove ended tasks from the daemon's list and history (--purge: delete their files too).")

    @Argument(help: "Task ids, as sluice ls shows them.") var ids: [Int] = []
    @Flag(help: "Every task that has ended (not with --purge: delete files one id at a time).") var finished = false
    @Flag(help: "Delete each task's saved file (and any partial file it left) as well.") var purge = false
    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        if finished && purge { throw CLIFailure(code: 2, message: "--purge deletes files: name the tasks by id, not --finished") }
        let purge = self.purge
        try control(daemon, ids: ids, all: finished, perTask: { ("DELETE", "/tasks/\($0)" + (purge ? "?purge=1" : "")) },
                    forAll: ("POST", "/all/clear"))
    }
}
