// `sluice get` with several URLs: at most N at once, bodies to standard output in the order given (a task that
// finishes early waits in memory for its turn), or each to its own file in --output-dir.
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
import SluiceTUI
import SluiceViewModel

final class BatchDelegate: SessionDataDelegate, SessionDownloadDelegate, @unchecked Sendable {
    private let targets: URLTargets
    private let prepared: PreparedRequest
    private let concurrency: Int
    private let outputDirectory: String?
    /// The downloads' partial files and checkpoints, with --output-dir.
    private let partials: BatchPartials?
    private let sink: FileDescriptorSink
    private let finished = DispatchSemaphore(value: 0)
    private weak var session: Session?

    // Delegate queue only (and the starting thread before the first resume; the waiting thread reads the results
    // after `finished`). So no two accesses can meet, and these fields, touched several times for every URL, are
    // `@exclusivity(unchecked)`: a dynamic check is about 80 instructions (docs/decisions.md), and no method of
    // theirs calls back into this class.
    @exclusivity(unchecked) private var next = 0
    @exclusivity(unchecked) private var running = 0
    @exclusivity(unchecked) private var indexOf: [Int: Int] = [:]   // task identifier -> position in `targets`
    /// By position: the URL, parsed when its first attempt starts (see URLTargets).
    @exclusivity(unchecked) private var urls: [URL?]
    @exclusivity(unchecked) private var head = 0                    // the position whose body goes to stdout now
    /// By position: the body kept until its turn, and its size.
    @exclusivity(unchecked) private var waiting: [Int: Waiting] = [:]
    private struct Waiting {
        var chunks: [Data] = []
        var bytes = 0
        /// Keeps `data`; the bytes kept now.
        mutating func keep(_ data: Data) -> Int {
            chunks.append(data)
            bytes += data.count
            return bytes
        }
    }
    /// By position: the tasks suspended because more than `waitLimit` of their body waited (resumed when their turn
    /// comes). `sluice get a.iso b.iso | consumer` kept all of b.iso in memory while a.iso went out (found by a
    /// tester: 1 GB of resident memory).
    @exclusivity(unchecked) private var heldBack: [Int: SessionTask] = [:]
    /// The most bytes that waited for their turn at once, and whether a task is held back now (for tests; the
    /// latter on the delegate queue).
    @exclusivity(unchecked) private(set) var mostWaiting = 0
    var isHoldingBack: Bool { !heldBack.isEmpty }
    static let waitLimit = 8 << 20
    /// Whether later bodies may be held back; set before `run`. Not with -m: the resource timeout runs on while a
    /// task is suspended, and a held body would be cut at its end (found in review).
    var holdsBack = true
    /// How many tasks may be held back at once: a suspended task keeps its place, and one place stays for the head
    /// (or its retry), which would otherwise wait for ever behind them (found in review).
    private var holdLimit: Int { concurrency - 1 }
    /// By position: the URL has completed (an array, not a set: positions are 0..<targets.count).
    @exclusivity(unchecked) private var done: [Bool]
    /// Per file name, the first `name.N` not tried yet in the output directory (see `DownloadPlacement.link`).
    @exclusivity(unchecked) private var nextNameAttempt: [String: Int] = [:]
    @exclusivity(unchecked) private(set) var failures: [String] = []
    @exclusivity(unchecked) private(set) var httpErrors = 0
    @exclusivity(unchecked) private(set) var outputFailure: String?
    /// -I: each response's head goes out in the body's place, in order; set before `run`. `protocols`: by task,
    /// the last request's protocol for the status line.
    var printsHead = false
    /// -o /dev/null: no body goes out, -w's lines still do, in order; set before `run`.
    var discardsBodies = false
    @exclusivity(unchecked) private var protocols: [Int: String] = [:]
    /// -w: each URL's text after its body (in order on standard output), or as each file is saved; set before
    /// `run`. `saved`: by task, where its file went.
    var writeOut: WriteOut?
    @exclusivity(unchecked) private var saved: [Int: String] = [:]
    /// Each URL's retries (BatchRetries.swift); delegate queue only.
    @exclusivity(unchecked) var retries = BatchRetries(loop: RetryLoop(policy: RetryPolicy(maximumRetries: 0), method: "GET"))

    /// `sink`: where the bodies go, in order (standard output; several URLs, so no -o - names it).
    init(targets: URLTargets, prepared: PreparedRequest, concurrency: Int, outputDirectory: String?,
         sink: FileDescriptorSink = .standardOutput(named: false)) {
        self.sink = sink
        self.targets = targets
        self.prepared = prepared
        self.concurrency = max(1, concurrency)
        self.outputDirectory = outputDirectory
        partials = outputDirectory.map { BatchPartials(directory: $0, count: targets.count) }
        done = Array(repeating: false, count: targets.count)
        urls = Array(repeating: nil, count: targets.count)
        if prepared.entersCredentials {
            for position in 0..<targets.count {
                urls[position] = targets.url(at: position)
                if let url = urls[position] { _ = prepared.request(for: url) }
            }
        }
    }

    /// Starts the first tasks and waits until every URL has completed. Twice `concurrency` are resumed at a time:
    /// the session runs `concurrency` of them (GetCommand.batch sets its `maximumConcurrentTasks`) and starts the
    /// next on its own thread the moment one ends, so an HTTP/2 connection never waits for this queue to refill.
    func run(on session: Session) {
        self.session = session
        let first = min(concurrency, targets.count)  // before doubling: -j has no upper bound
        let window = session.configuration.maximumConcurrentTasks > 0 ? min(2 * first, targets.count) : first
        session.delegateQueue.sync { for _ in 0..<window { startNext() } }
        if targets.count > 0 { finished.wait() }
    }

    private func startNext() {
        guard next < targets.count else { return }
        let position = next
        next += 1
        running += 1
        start(position, resumeData: nil)
    }

    /// A URL's first attempt, or a retry (a download resumes from what the last attempt kept, when it could).
    /// A retry starts before the URLs still waiting for their first attempt: its body may be the one the output
    /// waits for, while theirs pile up in memory.
    private func start(_ position: Int, resumeData: Data?, retry: Bool = false) {
        guard let session else { return }
        if urls[position] == nil { urls[position] = targets.url(at: position) }
        guard let url = urls[position] else {
            // The check vouched for it and the parser refused it: this URL fails, the others go on.
            return finishPosition(position, failure: "not a URL sluice can fetch")
        }
        let request = prepared.request(for: url)
        var task: SessionTask?
        // With the request, so that a retry goes on with its -H, -u and -b (resume data names the URL only).
        if let resumeData, let resumed = try? session.downloadTask(with: request, resumeData: resumeData) {
            partials?.resumed(resumed)
            task = resumed
        }
        if task == nil {
            task = outputDirectory == nil ? session.dataTask(with: request)
                : partials?.task(for: position, url: url, request: request, in: session) ?? session.downloadTask(with: request)
        }
        guard let task else { return }
        if retry { task.priority = SessionTask.highPriority }  // read when it waits for a place
        indexOf[task.taskIdentifier] = position
        task.resume()
    }

    /// How many partial files (with their checkpoints) are left for the same command again.
    var keptPartials: Int { partials?.kept ?? 0 }

    /// How many files the list saved in the output directory.
    var savedFiles: Int { partials?.savedCount ?? 0 }

    /// Ctrl-C or SIGTERM: the downloads keep their partial files, and URLs waiting to be retried end now. The first
    /// is waited for (the session cancels what is left next), but 2 s at most: the delegate queue may be stuck
    /// writing -w's lines to a pipe nobody reads.
    func stop() {
        if partials != nil, let session {
            let stopped = DispatchSemaphore(value: 0)
            session.delegateQueue.async { [self] in
                partials?.stopKeepingPartials()
                stopped.signal()
            }
            _ = stopped.wait(timeout: .now() + 2)
        }
        session?.delegateQueue.async { [self] in
            for position in retries.stop() { finishPosition(position, failure: "interrupted", writesOut: false) }
        }
    }

    func urlSession(_ session: Session, dataTask: DataTask, didReceive response: Response,
                    completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        if let position = indexOf[dataTask.taskIdentifier] { retries.responseArrived(response, task: dataTask.taskIdentifier, at: position) }
        completionHandler(.allow)
    }

    // MARK: Data to standard output, in order

    func urlSession(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        guard !printsHead, !discardsBodies, let position = indexOf[dataTask.taskIdentifier],
              !retries.withholds(dataTask.taskIdentifier) else { return }
        emit(data, at: position, from: dataTask)
    }

    func urlSession(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        if printsHead { protocols[task.taskIdentifier] = metrics.transactions.last?.networkProtocol }
    }

    /// Bytes of the URL at `position`: written now if its turn has come, else kept until it does; past `waitLimit`
    /// kept, its `task` is suspended until then.
    private func emit(_ data: Data, at position: Int, from task: SessionTask? = nil) {
        if position == head {
            retries.wrote(position)
            write(data)
        } else {
            let kept = waiting[position, default: Waiting()].keep(data)
            waitingTotal += data.count
            mostWaiting = max(mostWaiting, waitingTotal)
            if kept > Self.waitLimit, holdsBack, let task, heldBack.count < holdLimit, heldBack[position] == nil {
                heldBack[position] = task
                task.suspend()  // the rest comes once the bodies before it have gone out
            }
        }
    }

    /// All the bytes in `waiting`.
    @exclusivity(unchecked) private var waitingTotal = 0

    /// Position `position`'s kept bytes are gone (written, or dropped for a retry); its task goes on if held back.
    private func dropWaiting(_ position: Int) -> [Data]? {
        guard let gone = waiting.removeValue(forKey: position) else { return nil }
        waitingTotal -= gone.bytes
        if !heldBack.isEmpty { heldBack.removeValue(forKey: position)?.resume() }
        return gone.chunks
    }

    private func write(_ data: Data) {
        guard outputFailure == nil else { return }
        if !sink.write(data) { outputFailure = sink.failure }
    }

    /// The head is done: the next ones' buffered bodies follow, and the first unfinished one streams from now on.
    private func advanceHead() {
        while head < done.count, done[head] {
            head += 1
            guard !waiting.isEmpty, let chunks = dropWaiting(head) else { continue }  // no hashing when none wait
            for chunk in chunks {
                retries.wrote(head)
                write(chunk)
            }
        }
    }

    // MARK: Files in the output directory

    func urlSession(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                    totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        if let partials, let position = indexOf[downloadTask.taskIdentifier] { partials.wrote(downloadTask, at: position) }
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64) {
        guard fileOffset > 0, let position = indexOf[downloadTask.taskIdentifier] else { return }
        StandardStreams.error("sluice: resuming \(Sanitized.text(targets.texts[position])) at \(ByteCountText.format(fileOffset))\n")
    }

    func urlSession(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        guard let directory = outputDirectory else { return }
        if let status = downloadTask.response?.statusCode, status >= 400 { return }  // no error page saved as the file
        let suggested = downloadTask.response?.suggestedFilename
        let key = SafeFileName.sanitize(suggested)
        let position = indexOf[downloadTask.taskIdentifier]
        // The name its partial file was claimed for, when the server named it so too: a rerun after a kill -9 finds
        // the files of same-named downloads where it claims them, whichever ended first (found in review).
        if let position, let placed = partials?.companions(of: position),
           key == SafeFileName.sanitize(TaskName.fileName(of: urls[position]?.absoluteString ?? "")) {
            switch placed.linkIn(from: location.path) {
            case .success(let path):
                if writeOut != nil { saved[downloadTask.taskIdentifier] = path }
                partials?.saved(position)
            case .failure(let problem): lost(downloadTask, problem.message)
            }
            return
        }
        switch DownloadPlacement.link(location.path, into: directory, suggested: suggested, from: nextNameAttempt[key] ?? 0) {
        case .success(let placed):
            nextNameAttempt[key] = placed.attempt + 1
            if writeOut != nil { saved[downloadTask.taskIdentifier] = placed.path }
            if let position = indexOf[downloadTask.taskIdentifier] { partials?.saved(position) }
        case .failure(let problem): lost(downloadTask, problem.message)
        }
    }

    /// The file could not be kept (its directory gone, a full disk): the task completes with that error, so that
    /// -w, the tally and the exit status all say the URL failed (-w had said it succeeded, with no file).
    private func lost(_ downloadTask: DownloadTask, _ message: String) {
        downloadTask.keepingFailed = TransferError(.cannotWriteToFile, message, failingURL: downloadTask.originalRequest.url)
    }

    // MARK: Completion

    func urlSession(_ session: Session, task: SessionTask, didCompleteWithError error: TransferError?) {
        guard let position = indexOf.removeValue(forKey: task.taskIdentifier) else { return }
        partials?.ended(task, at: position, error: error)
        let bodyHidden = retries.withholds(task.taskIdentifier)  // -f's error page (or a retried one): no head either
        let networkProtocol = printsHead ? protocols.removeValue(forKey: task.taskIdentifier) : nil
        guard let url = urls[position] else { return }  // set when the attempt started
        switch retries.attemptEnded(task, at: position, error: error, url: url, keepsFiles: outputDirectory != nil) {
        case .retry(let delay, let resumeData):
            _ = dropWaiting(position)  // the next attempt sends its body from the start
            session.delegateQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(min(delay, 1e6) * 1e9))) { [self] in
                guard retries.retryIsDue(position) else { return }  // stopped meanwhile
                start(position, resumeData: resumeData, retry: true)
            }
            return
        case .finished(let giveUp):
            partials?.finished(position)
            if printsHead, error == nil, !bodyHidden, let response = task.response {
                emit(Data(ResponseHead.text(of: response, networkProtocol: networkProtocol).utf8), at: position)
            }
            let why = giveUp.map { " (\($0))" } ?? ""
            var failure: CLIFailure?
            if let error {
                failure = CLIFailure(code: 1, message: Sanitized.text(ErrorText.describe(error, url: url)) + why)
            } else if let status = task.response?.statusCode, status >= 400 {
                httpErrors += 1
                failure = CLIFailure(code: 22, message: CLIFailure.statusMessage(status, for: url) + why)
            }
            if let failure { failures.append(failure.message) }
            report(position, task: task, failure: failure)
        }
        finishPosition(position, failure: nil)
    }

    /// -w's text for the URL at `position`, which ended with `task` (nil: it never started).
    private func report(_ position: Int, task: SessionTask?, failure: CLIFailure?) {
        guard let writeOut else { return }
        var facts = WriteOutFacts(url: targets.texts[position], urlNumber: position, method: prepared.method)
        if let task {
            facts.take(task)
            facts.filename = saved.removeValue(forKey: task.taskIdentifier)
        }
        if let failure { facts.failed(failure) }
        writeOut.emit(facts) { text in
            // After the body on standard output; files are saved in any order, so their lines go out as they end.
            if outputDirectory == nil { emit(Data(text.utf8), at: position) } else { write(Data(text.utf8)) }
        }
    }

    /// `writesOut`: false on Ctrl-C or SIGTERM, after which -w writes nothing more (as curl).
    private func finishPosition(_ position: Int, failure: String?, writesOut: Bool = true) {
        if let failure {
            failures.append(Sanitized.text(targets.texts[position]) + ": " + failure)
            if writesOut { report(position, task: nil, failure: CLIFailure(code: 1, message: failure)) }
        }
        done[position] = true
        if outputDirectory == nil { advanceHead() }
        running -= 1
        if !retries.isStopped { startNext() }  // once stopped, a new task could outlive the session's delegate
        if running == 0 && (next == targets.count || retries.isStopped) { finished.signal() }
    }
}

/// The URLs of `-i FILE`: one per line; blank lines and lines starting with # are skipped.
enum URLList {
    static func read(_ path: String) throws -> [String] {
        // wget -i - waits without a word; someone who typed it at a prompt should know what it waits for.
        if path == "-", isatty(0) == 1, StandardStreams.quiet == .no {
            StandardStreams.error("sluice: reading URLs from the terminal, one a line; Ctrl-D ends the list\n")
        }
        switch WholeFile.read(path) {
        case .success(let data):
            let (urls, options) = scan(data)
            if options > 0 {
                StandardStreams.warning("\(Sanitized.text(path)): \(options) indented option line\(options == 1 ? "" : "s") (aria2's out=, dir=...) not read: sluice takes the URLs only")
            }
            return urls
        case .failure(let failure):
            throw CLIFailure(code: 1, message: "cannot read the URL list \(Sanitized.text(path)): \(failure.reason)")
        }
    }

    /// Each line's first word (blanks are spaces and tabs), lines ending in LF, CR or CRLF. Scanned in one pass
    /// over the raw bytes: `split` on Data made two Data slices a line, 13,000 instructions a URL (a small
    /// HTTP/2 request costs 290,000 in all, TLS included).
    static func urls(in data: Data) -> [String] { scan(data).urls }

    /// The URLs, and how many indented `name=value` lines were passed over: aria2's per-URL options (`  out=f.iso`),
    /// which would otherwise be refused as URLs.
    static func scan(_ data: Data) -> (urls: [String], options: Int) {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> ([String], Int) in
            var urls: [String] = []
            var options = 0
            var i = 0
            let end = bytes.count
            while i < end {
                while i < end, bytes[i] == 10 || bytes[i] == 13 { i += 1 }
                let lineStart = i
                while i < end, bytes[i] == 32 || bytes[i] == 9 { i += 1 }
                let start = i
                var equals = false
                while i < end, bytes[i] != 32, bytes[i] != 9, bytes[i] != 10, bytes[i] != 13 {
                    if bytes[i] == 61 { equals = true }  // "="
                    i += 1
                }
                let word = UnsafeRawBufferPointer(rebasing: bytes[start..<i])
                if i > start, bytes[start] != 35 {  // "#": a comment line
                    if start > lineStart, equals, !isURL(word) {
                        options += 1
                    } else {
                        urls.append(String(decoding: word, as: UTF8.self))
                    }
                }
                while i < end, bytes[i] != 10, bytes[i] != 13 { i += 1 }  // the rest of the line
            }
            return (urls, options)
        }
    }

    /// Whether the word has a scheme's `://` (an indented URL with a query is a URL, not an option).
    private static func isURL(_ word: UnsafeRawBufferPointer) -> Bool {
        guard word.count >= 3 else { return false }
        for k in 0..<(word.count - 2) where word[k] == 58 && word[k + 1] == 47 && word[k + 2] == 47 { return true }
        return false
    }

    /// The number (from 1) and text, blanks trimmed, of the first line of the file whose first word is `word`.
    static func line(startingWith word: String, in path: String) -> (Int, String)? {
        guard case .success(let data) = WholeFile.read(path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingBlanks()
            if trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) == word { return (index + 1, trimmed) }
        }
        return nil
    }
}
