// `sluice [open] URL...`: the UI with those URLs as data tasks, so the disposition and conversion can be seen.
import ArgumentParser
import SluiceTUI
import SluiceViewModel

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open the UI with URLs as data tasks (the default: sluice URL... is sluice open URL...)."
    )

    @Argument(help: "URLs to open as data tasks (http, https, file or data).")
    var urls: [String] = []

    @Flag(help: "Hold every response until you answer it: r allow, c cancel, d become a download.")
    var ask = false

    @OptionGroup var interface: InterfaceOptions

    mutating func run() throws {
        let interactive = InterfaceOptions.isTerminal
        if urls.isEmpty && !interactive { throw CleanExit.helpRequest(self) }
        for url in urls where ParsedURL.parse(url) == nil {
            throw CLIFailure(code: 2, message: "not a URL sluice can fetch: \(Sanitized.text(url))")
        }
        let (directory, theme, useColor) = try interface.prepare()
        let app = TransferApp(outputDirectory: directory)
        for url in urls { app.add(url, asks: ask && interactive) }
        try interface.run(app, theme: theme, useColor: useColor, interactive: interactive)
    }
}
