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

    @Option(name: .customShort("i"),
            help: ArgumentHelp("Read more URLs from this file, one per line (- for standard input).", valueName: "file"))
    var inputFile: String?

    @Option(name: .customShort("j"), help: ArgumentHelp("How many tasks transfer at once; the others wait their turn.", valueName: "n"))
    var jobs: Int = 6

    @Flag(help: "Hold every response until you answer it: r allow, c cancel, d become a download.")
    var ask = false

    @OptionGroup var interface: InterfaceOptions

    mutating func run() throws {
        let interactive = InterfaceOptions.isTerminal
        var texts = urls
        if let inputFile { texts += try URLList.read(inputFile) }
        if texts.isEmpty && !interactive { throw CleanExit.helpRequest(self) }
        for url in texts where ParsedURL.parse(url) == nil {
            throw CLIFailure(code: 2, message: "not a URL sluice can fetch: \(Sanitized.text(url))")
        }
        guard jobs >= 1 else { throw CLIFailure(code: 2, message: "-j needs at least 1") }
        let (directory, theme, useColor) = try interface.prepare(interactive: interactive)
        let app = TransferApp(outputDirectory: directory, concurrency: jobs)
        for url in texts { app.add(url, asks: ask && interactive) }
        try interface.run(app, theme: theme, useColor: useColor, interactive: interactive)
    }
}
