// `sluice put FILE URL`: uploads a file, streamed from disk, and writes the response body to standard output.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceViewModel

struct PutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Upload a file with an upload task and write the response body to standard output."
    )

    @Argument(help: "The file to send.")
    var file: String

    @Argument(help: "Where to send it (http or https).")
    var url: String

    @Flag(help: "Write the delegate flow to stderr as JSON lines.")
    var trace = false

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: "Seconds without a byte before giving up.")
    var timeout: Double = 60

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Write what happens on the wire to stderr, as curl -v (as get -v).")
    var verbose = false

    @Option(name: [.customShort("w"), .customLong("write-out")], parsing: .unconditional, help: ArgumentHelp("After the upload, write this with curl's variables filled in, as get -w (%{http_code}, %{size_upload}, %{time_total}...).", valueName: "format"))
    var writeOut: String?

    @OptionGroup(title: "Request options (as curl's)") var requestOptions: RequestOptions
    @OptionGroup var shortData: ShortDataOption

    mutating func run() throws {
        guard let target = ParsedURL.parse(url), ["http", "https"].contains(target.scheme?.lowercased() ?? "") else {
            throw CLIFailure(code: 2, message: "not an http or https URL: \(Sanitized.text(url))")
        }
        guard ReadableFile.check(file) else {
            throw CLIFailure(code: 1, message: "cannot read \(Sanitized.text(file)): not a readable regular file")
        }
        let format = try WriteOut.option(writeOut)
        let prepared = try requestOptions.prepare(defaultMethod: "PUT", takesBody: false, shortData: shortData.values)
        var configuration = try prepared.configure(.default)
        configuration.timeoutIntervalForRequest = try RequestOptions.inactivityTimeout(timeout) ?? timeout
        if verbose { configuration.wireMonitor = VerboseLog.monitor() }
        let delegate = GetDelegate(disposition: .allow, sink: .standardOutput(named: false),
                                   progress: trace || verbose ? nil : ProgressLine.ifTerminal(), ofSending: true)
        let session = Session(configuration: configuration, delegate: delegate,
                              eventMonitor: trace ? TraceEncoder.monitor() : nil)
        let task = session.uploadTask(with: prepared.request(for: target), fromFile: URL(fileURLWithPath: file))
        try WriteOut.reporting(format, WriteOutFacts(url: url, method: prepared.method)) { facts in
            defer { facts.take(task) }
            try delegate.run(task, in: session, target: target) { task in "\(task.countOfBytesSent) bytes sent" }
        }
    }
}

enum ReadableFile {
    static func check(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, R_OK) == 0
    }
}
