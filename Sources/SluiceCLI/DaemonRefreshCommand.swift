// `sluice refresh ID URL`: a stopped, failed or queued download of the daemon goes on from a new URL (an expired
// link replaced), keeping its bytes when the new URL serves the same file; otherwise it says what differs.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceDaemon
import SluiceViewModel

struct DaemonRefreshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Give a daemon's stopped, failed or queued download a new URL, keeping its bytes when it is the same file.",
        discussion: "The bytes are kept only when the new URL's file has the same size and the same ETag or Last-Modified; when the first response had neither, only with --force. Anything else is refused, and nothing changes."
    )

    @Argument(help: "The task's id, as sluice ls shows it.") var id: Int
    @Argument(help: "The new URL.") var url: String
    @Flag(help: "Go on even though nothing proves the new URL serves the same file (the first response had no validator).")
    var force = false
    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        guard ParsedURL.parse(url) != nil else { throw URLTargets.refused(url) }
        let paths = try daemon.paths()
        let client = DaemonClient(socketPath: paths.socket)
        guard client.isAnswering else { throw CLIFailure(code: 1, message: "no sluice daemon is running for \(paths.identifier)") }
        let body = "{\"url\":" + JSONText.quote(url) + ",\"force\":" + (force ? "true" : "false") + "}"
        let reply: DaemonResponse
        do throws(DaemonFailure) {
            reply = try client.send("POST", "/tasks/\(id)/refresh", body: body, timeout: 60)
        } catch {
            throw CLIFailure(code: 1, message: error.message)
        }
        _ = try DaemonOptions.checked(reply)
        StandardStreams.output("#\(id) goes on from \(Sanitized.text(url))\n")
    }
}
