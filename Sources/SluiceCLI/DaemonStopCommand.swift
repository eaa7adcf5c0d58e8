// `sluice stop`: asks the daemon to stop; its downloads keep their partial files and resume at its next start.
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import SluiceDaemon

struct DaemonStopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop the background daemon; unfinished downloads resume when it starts again."
    )

    @OptionGroup var daemon: DaemonOptions

    mutating func run() throws {
        let paths = try daemon.paths()
        let client = DaemonClient(socketPath: paths.socket)
        guard client.isAnswering else { return StandardStreams.output("no sluice daemon is running for \(paths.identifier)\n") }
        do {
            _ = try DaemonOptions.checked(try client.send("POST", "/stop"))
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure(code: 1, message: "\(error)")
        }
        // It has stopped when it lets go of its lock (after its downloads wrote their checkpoints).
        for _ in 0..<600 where DaemonLock.isHeld(paths.lock) { usleep(50_000) }
        if DaemonLock.isHeld(paths.lock) { throw CLIFailure(code: 1, message: "the daemon was asked to stop but still runs after 30 s") }
        StandardStreams.output("sluice daemon stopped\n")
    }
}
