// `sluice attach`: the UI on the background daemon's transfers (started when absent). Every key works as in
// `sluice URL...`; `q` detaches and the transfers go on; `Q`, confirmed, stops the daemon.
import ArgumentParser
import SluiceDaemon
import SluiceTUI

struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Open the UI on the background daemon's transfers (started when absent); q detaches, they go on.",
        discussion: "Downloads added with a are saved in --output-dir (the current directory by default), as are the files m, h and H write. Q stops the daemon itself (it asks first)."
    )

    @OptionGroup var interface: InterfaceOptions
    @OptionGroup var daemon: DaemonOptions
    @OptionGroup var configFile: ConfigOption

    mutating func run() throws {
        guard InterfaceOptions.isTerminal else {
            throw CLIFailure(code: 1, message: "sluice attach needs a terminal; sluice ls lists the daemon's tasks")
        }
        try configFile.load().applyDefaults(to: &interface, outputDir: true)
        let (directory, theme, useColor) = try interface.prepare(interactive: true)
        try Self.attach(try daemon.client(startingIn: directory), identifier: daemon.identifier, directory: directory,
                        theme: theme, useColor: useColor)
    }

    /// Runs the UI on the daemon until `q`, `Q` or a signal; the daemon's transfers go on after it.
    static func attach(_ client: DaemonClient, identifier: String, directory: String, theme: Theme, useColor: Bool) throws {
        let driver = AttachedDaemon(client: client, directory: directory)
        var ui = UIState()
        ui.attachedTo = identifier
        ui.addsDownloads = true  // the daemon keeps downloads; a data task there shows bytes nobody sees
        let stop = StopFlag()
        let ending = Ending()
        let interrupted = try SignalTrap.run(stoppingWith: { _ in stop.set() }) {
            Screen.prepareLocale()
            do throws(Screen.StartError) {
                ending.reason = try InterfaceLoop.run(driver, ui: ui, theme: theme, useColor: useColor, stop: stop)
            } catch {
                throw CLIFailure(code: 1, message: error.description)
            }
        }
        driver.detach()
        if let reason = ending.reason { throw CLIFailure(code: 1, message: reason) }
        if let signal = interrupted {
            throw CLIFailure(code: 128 + signal, message: "detached; the daemon's transfers go on (sluice attach shows them again)")
        }
    }

    /// Why the UI's loop ended on its own (set on this thread only).
    private final class Ending {
        var reason: String?
    }
}
