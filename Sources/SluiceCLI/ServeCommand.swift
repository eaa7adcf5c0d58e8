// `sluice serve`: the scenario server on its own, for trying the engine and for benchmarks.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceScenarioServer

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the scenario test server on 127.0.0.1 until interrupted."
    )

    @Option(help: "Port to listen on; 0 lets the system choose.")
    var port: Int = 0

    mutating func run() throws {
        let server = try ScenarioServer.start(port: port)
        let line = "serving scenarios on \(server.baseURL.absoluteString)  (bytes that are not HTTP on port \(server.garbagePort))\n"
        StandardStreams.output(line)
        while true { sleep(3600) }
    }
}
