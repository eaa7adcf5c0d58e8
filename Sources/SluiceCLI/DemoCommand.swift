// `sluice demo`: the delegate flow of several transfers on the embedded scenario server, told as it happens.
import ArgumentParser
import Dispatch
import SluiceEngine
import SluiceViewModel
import SluiceScenarioServer
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Show the delegate flow of a few transfers on a local scenario server (no internet needed)."
    )

    mutating func run() throws {
        let server = try ScenarioServer.start()
        defer { server.shutdown() }
        StandardStreams.output("Scenario server on \(server.baseURL.absoluteString); each line is one delegate event.\n\n")
        let start = DispatchTime.now().uptimeNanoseconds
        let printer = TimelinePrinter(start: start)
        let delegate = DemoDelegate()
        let session = Session(delegate: delegate, eventMonitor: { printer.print($0) })

        let scenarios: [(String, String)] = [
            ("a slow drip, suspended for a second and resumed", "/drip?bytes=6000&chunk=1000&interval=150"),
            ("multipart/x-mixed-replace: one response per part", "/multipart?parts=3&size=12&interval=200"),
            ("a response held for a second before the delegate allows it", "/bytes/2048?hold=1"),
            ("a server that drops the connection mid-body", "/drop?after=30000"),
        ]
        for (index, scenario) in scenarios.enumerated() {
            StandardStreams.output("\(index + 1). \(scenario.0)\n")
            let task = session.dataTask(with: server.url(scenario.1))
            task.resume()
            if index == 0 {
                usleep(350_000)
                task.suspend()
                usleep(1_000_000)
                task.resume()
            }
            delegate.waitForCompletion()
            StandardStreams.output("\n")
        }
        session.finishTasksAndInvalidate()
        StandardStreams.output("Try it yourself: sluice get --trace \(server.url("/multipart?parts=2").absoluteString)\n")
    }
}

/// Answers responses (late, for URLs asking for it) and signals each completion.
final class DemoDelegate: SessionDataDelegate, Sendable {
    private let done = DispatchSemaphore(value: 0)

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        if response.url.query?.contains("hold=1") == true {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { completionHandler(.allow) }
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        done.signal()
    }

    func waitForCompletion() { done.wait() }
}

/// One readable line per event: "  0.412s  task 1  didReceiveData 1000 bytes".
final class TimelinePrinter: Sendable {
    private let start: UInt64
    init(start: UInt64) { self.start = start }

    func print(_ record: TaskEventRecord) {
        let time = SecondsText.format(nanoseconds: record.uptimeNanoseconds &- start, decimals: 3)
        var text = record.event.name
        switch record.event {
        case .stateChanged(let state): text += " \(state.rawValue)"
        case .didReceiveResponse(let r):
            text += " \(r.statusCode.map(String.init) ?? "-")"
            if let part = r.part { text += " part \(part)" }
            if let type = r.mimeType { text += " \(type)" }
            if r.expectedContentLength >= 0 { text += ", \(ByteCountText.format(r.expectedContentLength)) expected" }
        case .disposition(let d): text += " \(d.rawValue)"
        case .didReceiveData(let bytes): text += " \(bytes) bytes"
        case .didCompleteWithError(let error): text += error.map { " \($0.code.rawValue): \($0.message)" } ?? " nil"
        case .didBecomeDownloadTask(let id): text += " task \(id)"
        case .didWriteData(_, let total, let expected), .didSendBodyData(_, let total, let expected):
            text += " \(ByteCountText.format(total))" + (expected >= 0 ? " of \(ByteCountText.format(expected))" : "")
        case .didFinishDownloadingTo(let location): text += " \(location.path)"
        case .didResumeAtOffset(let offset, _): text += " \(ByteCountText.format(offset))"
        }
        StandardStreams.output("  \(time)s  task \(record.taskIdentifier)  \(Sanitized.text(text))\n")
    }
}
