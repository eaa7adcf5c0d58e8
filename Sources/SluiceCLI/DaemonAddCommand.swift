// `sluice add URL...`: hands downloads to the daemon (starting it when absent) and returns at once.
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
import SluiceViewModel

struct DaemonAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add downloads to the background daemon (started when absent); they go on after this returns.",
        discussion: "Each URL is saved in --output-dir (the current directory by default) under its name, never over an existing file, or with -o at exactly that path."
    )

    @Argument(help: "URLs to download.")
    var urls: [String] = []

    @Option(name: .shortAndLong, parsing: .unconditional, help: ArgumentHelp("Save the (single) URL at this path.", valueName: "file"))
    var output: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Save the URLs in this directory.", valueName: "dir"))
    var outputDir: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Fetch each file as N ranges over N connections when its server accepts ranges.", valueName: "N"))
    var split: Int?

    @Option(name: .customLong("limit-rate"), parsing: .unconditional,
            help: ArgumentHelp("Each added task at most this many bytes per second (k, m, g as curl's); the daemon's own limit, if any, still holds.", valueName: "speed"))
    var limitRate: String?

    // Not --data: that is curl's request body, which `add` takes as curl does.
    @Flag(name: .customLong("data-task"), help: "Add them as data tasks (their bodies are not saved; for watching the flow with sluice attach).")
    var data = false

    @Flag(help: "With --data-task: hold each response until it is answered in sluice attach (r allow, c cancel, d become a download).")
    var ask = false

    @OptionGroup var daemon: DaemonOptions
    @OptionGroup(title: "Request options (as curl's)") var requestOptions: RequestOptions
    @OptionGroup var shortData: ShortDataOption
    @OptionGroup(title: "A pasted curl command") var curlPaste: CurlPasteOption
    @OptionGroup var glob: GlobOption
    @OptionGroup var configFile: ConfigOption

    @Option(name: .customShort("i"),
            parsing: .unconditional, help: ArgumentHelp("Read more URLs from this file, one per line (- for standard input); not globbed, as curl.", valueName: "file"))
    var inputFile: String?

    mutating func run() throws {
        // Only output-dir, split and the host rules' headers apply: the daemon's session-wide settings are its own.
        let config = try configFile.load()
        var urls = ArgumentRuns.current.unfold(self.urls)
        let paste = try curlPaste.read(typedGet: requestOptions.get)
        if var paste {
            if let unused = paste.limits.unused {
                StandardStreams.warning("--curl: the paste's \(unused): not used (the daemon's session sets its own timeouts, redirects and retries)")
            }
            paste.limits = CurlPaste.Limits()
            var (options, file, globOff) = (requestOptions, output, false)
            paste.fold(into: &options, urls: &urls, output: &file, globOff: &globOff)
            (requestOptions, output) = (options, file)
            if requestOptions.http1_1 || requestOptions.http2 {
                // A browser's --http2 says how it talked, not a need: the daemon's session picks the version.
                StandardStreams.warning("--curl: the daemon's session chooses the HTTP version; the paste's is not used")
                requestOptions.http1_1 = false
                requestOptions.http2 = false
            }
        }
        // URL arguments are globbed as curl globs them (-o '#1.txt' names each); -i's lines are taken as they are.
        let (expanded, outputs) = try glob.expand(urls, output: output)
        urls = expanded
        let listStart = urls.count
        if let inputFile { urls += try URLList.read(inputFile) }
        guard !urls.isEmpty else { throw CLIFailure(code: 2, message: "nothing to add: give one or more URLs") }
        if output != nil && outputDir != nil { throw CLIFailure(code: 2, message: "give -o or --output-dir, not both") }
        if output != nil && urls.count > (outputs?.count ?? 1) {
            throw CLIFailure(code: 2, message: "-o names one file: give one URL (or a pattern with #1 in -o), or use --output-dir")
        }
        if let split, !(1...SplitOptions.maximum).contains(split) {
            throw CLIFailure(code: 2, message: "--split takes 1 to \(SplitOptions.maximum) connections")
        }
        if data && (output != nil || outputDir != nil) { throw CLIFailure(code: 2, message: "a data task saves nothing: -o and --output-dir are for downloads") }
        if ask && !data { throw CLIFailure(code: 2, message: "--ask holds a data task's response: add --data-task") }
        var parsed: [URL] = []
        for (position, url) in urls.enumerated() {
            guard let valid = ParsedURL.parse(url) else { throw URLTargets.refused(url, inList: position >= listStart ? inputFile : nil) }
            parsed.append(valid)
        }
        let rate = try RetryOptions.rateLimit(limitRate)
        let request = try DaemonRequestFields(requestOptions, shortData: shortData.values, paste: paste, hostRules: HostRulesApplied(config))
        let directory = DaemonOptions.absolute(outputDir ?? config.outputDir.value ?? ".")
        if !data && output == nil { try InterfaceOptions.makeOutputDirectory(directory) }
        let client = try daemon.client(startingIn: DaemonOptions.currentDirectory())
        for (index, (url, valid)) in zip(urls, parsed).enumerated() {
            let output = outputs?[index] ?? self.output
            var fields = [("url", JSONText.quote(url)), ("kind", data ? "\"data\"" : "\"download\"")]
            if let split = split ?? (data ? nil : config.split(forURL: url)) { fields.append(("split", String(split))) }
            if ask { fields.append(("ask", "true")) }
            if let rate { fields.append(("bytesPerSecond", String(rate))) }
            fields += request.fields(for: valid)
            if let output { fields.append(("output", JSONText.quote(DaemonOptions.absolute(output)))) }
            else if !data { fields.append(("directory", JSONText.quote(directory))) }
            let body = "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
            let reply: DaemonResponse
            do {
                reply = try client.send("POST", "/tasks", body: body)
            } catch {
                throw CLIFailure(code: 1, message: error.message)
            }
            let text = try DaemonOptions.checked(reply)
            let id = (try? JSONDecoder().decode(Added.self, from: Data(text.utf8)))?.id
            StandardStreams.output("#\(id.map(String.init) ?? "?")  \(Sanitized.text(url))\n")
        }
    }

    private struct Added: Decodable { let id: Int }
}
