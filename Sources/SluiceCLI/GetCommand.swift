// `sluice get URL`: one transfer without the UI, the body to standard output, the delegate flow on request.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Transfer a URL without the UI and write the body to standard output."
    )

    @Argument(help: "The URL to fetch (http, https, file or data).")
    var url: String

    @Option(help: "What the delegate answers at the response: allow, cancel or becomeDownload.")
    var disposition: DispositionOption = .allow

    @Flag(help: "Write the delegate flow to stderr as JSON lines.")
    var trace = false

    @Option(name: .customLong("timeout"), help: "Seconds without a byte before giving up.")
    var timeout: Double = 60

    mutating func run() throws {
        guard let target = ParsedURL.parse(url) else {
            throw CLIFailure(code: 2, message: "not a URL sluice can fetch: \(Sanitized.text(url))")
        }
        var configuration = SessionConfiguration.default
        configuration.timeoutIntervalForRequest = timeout
        let start = DispatchTime.now().uptimeNanoseconds
        var monitor: TaskEventMonitor?
        if trace {
            monitor = { @Sendable record in
                StandardStreams.error((TraceEncoder.line(for: record, start: start) + "\n"))
            }
        }
        let delegate = GetDelegate(disposition: disposition.value, sink: FileDescriptorSink(fd: 1),
                                   progress: trace ? nil : ProgressLine.ifTerminal())
        let session = Session(configuration: configuration, delegate: delegate, eventMonitor: monitor)
        let task = session.dataTask(with: target)
        task.resume()
        delegate.wait()
        session.finishTasksAndInvalidate()

        if let failure = delegate.outputFailure {
            throw CLIFailure(code: 1, message: "cannot write the body to standard output: \(failure)")
        }
        if let error = delegate.error {
            let kept = task.countOfBytesReceived > 0 ? " (\(task.countOfBytesReceived) bytes received)" : ""
            throw CLIFailure(code: 1, message: Sanitized.text(ErrorText.describe(error, url: target)) + kept)
        }
        if let status = delegate.response?.statusCode, status >= 400 {
            throw CLIFailure(code: 22, message: "the server answered \(status) for \(Sanitized.text(target.absoluteString))")
        }
    }
}

enum DispositionOption: String, ExpressibleByArgument, CaseIterable {
    case allow, cancel, becomeDownload

    var value: ResponseDisposition {
        switch self {
        case .allow: .allow
        case .cancel: .cancel
        case .becomeDownload: .becomeDownload
        }
    }
}
