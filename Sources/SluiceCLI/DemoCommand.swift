// `sluice demo`: the UI on the embedded scenario server, with a task for each part of the delegate flow.
import ArgumentParser
import SluiceScenarioServer
import SluiceTUI

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Open the UI on a local scenario server (no internet needed) with tasks that show the delegate flow.",
        discussion: """
            Tasks: a slow large file, a multipart/x-mixed-replace stream, a task awaiting its disposition (press r, \
            c or d on it), a server that drops mid-body, a file worth converting to a download (press d), and a file \
            behind two redirects.
            """
    )

    @OptionGroup var interface: InterfaceOptions
    @OptionGroup var configFile: ConfigOption

    /// Paths on the scenario server, in the order the tasks are added; the third waits for the user. Each
    /// response names its file (Content-Disposition), so every row shows a name of its own.
    static let scenarios = [
        "/drip?bytes=40000000&chunk=32768&interval=25&name=slow-large-file.bin",
        "/multipart?parts=60&size=4096&interval=400",
        "/bytes/4000000?name=awaiting-your-answer.bin",
        "/bytes/3000000?drop=1500000&name=drops-halfway.bin",
        "/drip?bytes=16000000&chunk=16384&interval=20&name=worth-converting.bin",
        "/redirect/2?status=301&to=%2Fdrip%3Fbytes%3D8000000%26chunk%3D16384%26interval%3D20%26name%3Dbehind-two-redirects.bin",
    ]

    mutating func run() throws {
        let interactive = InterfaceOptions.isTerminal
        // The file's theme; not its output-dir: the demo's files are samples, kept beside the user (README).
        try configFile.load().applyDefaults(to: &interface, outputDir: false)
        let (directory, theme, useColor) = try interface.prepare(interactive: interactive)
        let server = try ScenarioServer.start()
        defer { server.shutdown() }
        let app = TransferApp(outputDirectory: directory)
        for (index, path) in Self.scenarios.enumerated() {
            app.add(server.url(path).absoluteString, asks: interactive && index == 2)
        }
        try interface.run(app, theme: theme, useColor: useColor, interactive: interactive)
    }
}
