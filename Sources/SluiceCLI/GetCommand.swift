// `sluice get URL`: one transfer without the UI, the body to standard output or (-o) to a file.
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
import SluiceTUI
import SluiceViewModel
import Synchronization

struct GetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Transfer a URL without the UI; the body goes to standard output, or to a file with -o.",
        discussion: """
            With -o FILE, an interrupted download (Ctrl-C, SIGTERM, a lost connection, a full disk) keeps its \
            partial file and FILE.sluice-resume beside it; the same command run again resumes it. An existing file \
            is only replaced with --force.

            -o - is standard output; /dev/stdout, /dev/stderr and /dev/fd/N write to the descriptor they name. A \
            character device, FIFO or socket (-o /dev/null) is written into as it is: no temporary file, no \
            --force, nothing to resume. A block device needs --force. A symlink counts as what it points to and is \
            never replaced itself. A directory is refused: --output-dir DIR saves inside it under the server's name.
            """
    )

    @Argument(help: "The URLs to fetch (http, https, file or data).")
    var urls: [String] = []

    @Option(name: .customShort("i"), parsing: .unconditional, help: "Read more URLs from this file, one per line (- for standard input).")
    var inputFile: String?

    @Option(name: .customShort("j"), parsing: .unconditional, help: "With several URLs: how many transfers run at once (default 6, or the config file's jobs).")
    var jobs: Int?

    @Option(parsing: .unconditional, help: "Save each body in this directory under its server's name (never over an existing file) instead of writing to standard output.")
    var outputDir: String?

    @Option(name: [.customShort("o"), .customLong("output")],
            parsing: .unconditionalSingleValue, help: ArgumentHelp("Save the body to this file with a download task; - is standard output, and a device, FIFO or socket is written into. Several -o pair with the URLs in order, as curl pairs them.", valueName: "output"))
    var outputs: [String] = []

    /// The file -o names (the first, when several pair with several URLs).
    var output: String? {
        get { outputs.first }
        set { outputs = newValue.map { [$0] } ?? [] }
    }

    @Flag(help: "With -o, replace an existing file (or write over a block device).")
    var force = false

    @Option(parsing: .unconditional, help: "What the delegate answers at the response: allow, cancel or becomeDownload.")
    var disposition: DispositionOption = .allow

    @Flag(help: "Write the delegate flow to stderr as JSON lines.")
    var trace = false

    @Option(name: .customLong("timeout"), parsing: .unconditional, help: "Seconds without a byte before giving up (default 60, or the config file's timeout).")
    var timeout: Double?

    @Option(name: [.customShort("m"), .customLong("max-time")], parsing: .unconditional, help: "Give up on each transfer after this many seconds in all (--timeout counts the seconds without a byte).")
    var maxTime: Double?

    @Option(name: [.customShort("r"), .customLong("range")], parsing: .unconditional, help: ArgumentHelp("Ask for these bytes only, as curl's -r: 0-499, 500-, or several joined with commas; the last 500 as -r -500 (standard output only).", valueName: "range"))
    var range: String?

    // curl's everyday flags for a script: `sluice get -fsSL URL | sh` and `sluice get -O URL` as curl users type them.
    @Flag(name: [.customShort("s"), .customLong("silent")], help: "No progress line and no messages on stderr: the exit status tells (-S brings the errors back).")
    var silent = false

    @Flag(name: [.customShort("S"), .customLong("show-error")], help: "With -s, still print errors (not warnings).")
    var showError = false

    @Flag(name: [.customShort("f"), .customLong("fail")], help: "Write nothing of a response of 400 or more (sluice exits 22 on one with or without -f; without, its body goes to standard output, as curl's does; a file of -o, -O or --output-dir never gets an error page, as wget's does not).")
    var fail = false

    @Flag(name: [.customShort("O"), .customLong("remote-name")], help: "Save under the server's name in the current directory (--output-dir .): the Content-Disposition name when given, never over an existing file.")
    var remoteName = false

    @Flag(name: [.customShort("I"), .customLong("head")], help: "Send HEAD and write each response's status line and headers to standard output (after redirects: the last response's).")
    var head = false

    /// curl's -J: the name a server gives in Content-Disposition, which --output-dir (and so -O) always takes.
    @Flag(name: [.customShort("J"), .customLong("remote-header-name")], help: "With -O, take the Content-Disposition name (sluice always does; taken for curl's sake).")
    var remoteHeaderName = false

    @Option(name: [.customShort("C"), .customLong("continue-at")], parsing: .unconditional, help: ArgumentHelp("With -o FILE: continue FILE from where it ends, as curl -C - (a download another program left half done; sluice continues its own partial files anyway). Only - is taken.", valueName: "-"))
    var continueAt: String?

    @Flag(name: [.customShort("v"), .customLong("verbose")], help: "Write what happens on the wire to stderr, as curl -v: libcurl's notes (*), each request head sent (>), each response head received (<).")
    var verbose = false

    @Option(name: [.customShort("w"), .customLong("write-out")], parsing: .unconditional, help: ArgumentHelp("After each transfer, write this with curl's variables filled in: %{http_code}, %{time_total}, %{size_download}, %{url_effective}, %header{name}, %{json}... (@FILE: the text in FILE).", valueName: "format"))
    var writeOut: String?

    @OptionGroup var flowExport: FlowExportOptions
    @OptionGroup(title: "Retries and rate") var retryOptions: RetryOptions
    @OptionGroup(title: "Split downloads") var splitOptions: SplitOptions
    @OptionGroup(title: "Request options (as curl's)") var requestOptions: RequestOptions
    @OptionGroup var shortData: ShortDataOption
    @OptionGroup(title: "A pasted curl command") var curlPaste: CurlPasteOption
    @OptionGroup var glob: GlobOption
    @OptionGroup(title: "More of curl's flags") var curlScript: CurlScriptOptions
    @OptionGroup var configFile: ConfigOption

    mutating func run() throws {
        // Read first and whole, so that a broken file stops before any transfer; the flags given win.
        let config = try configFile.load()
        // A paste counts as typed: its flags go in before the file's defaults fill what is left.
        let paste = try curlPaste.read(typedGet: requestOptions.get, warns: false)
        if let paste { take(paste) }
        // -s, typed or pasted, hides the paste's warning too (it was printed before -s was known; found by a tester).
        if silent { StandardStreams.setQuiet(showError ? .errorsOnly : .all) }
        if let paste { CurlPasteOption.warn(paste) }
        config.applyDefaults(to: &self)
        try SluiceConfig.$inForce.withValue(config) { try runWithConfig(paste: paste) }
    }

    private mutating func runWithConfig(paste: CurlPaste?) throws {
        if fail && curlScript.failWithBody { throw CLIFailure(code: 2, message: "-f writes no error body and --fail-with-body writes it: give one") }
        if jobs == nil, let parallelMax = curlScript.parallelMax {
            guard parallelMax >= 1 else { throw CLIFailure(code: 2, message: "--parallel-max needs at least 1") }
            jobs = parallelMax
        }
        let savesFiles = output != nil || outputDir != nil || remoteName
        if range != nil && savesFiles {
            throw CLIFailure(code: 2, message: "-r writes a part of the body to standard output: it takes no -o, -O or --output-dir (a saved file resumes with its own ranges)")
        }
        if head && savesFiles {
            throw CLIFailure(code: 2, message: "-I writes the headers to standard output: it takes no -o, -O or --output-dir")
        }
        if let continueAt {
            guard continueAt == "-" else {
                throw CLIFailure(code: 2, message: "-C takes - only: sluice continues a file from where it ends")
            }
            guard remoteName || output != nil && output != "-" else {
                throw CLIFailure(code: 2, message: "-C - continues the file -o or -O names")
            }
        }
        // `-C - -O URL`, curl's way to go on with a half-done file: the file is the URL's name, as curl's -O names it
        // (it was refused; found by a tester).
        let given = ArgumentRuns.current.unfold(urls) + curlScript.urls
        if continueAt != nil, remoteName, output == nil {
            guard given.count == 1, inputFile == nil, !given[0].contains(where: { "[]{}".contains($0) }),
                  let name = TaskName.fileName(of: given[0]) else {
                throw CLIFailure(code: 2, message: "-C - -O continues one file, named by its URL: give one URL that ends in a file name")
            }
            output = name
            remoteName = false
        }
        if remoteName {
            guard output == nil else { throw CLIFailure(code: 2, message: "-O and -o both name the file: give one") }
            if outputDir == nil { outputDir = "." }
        }
        // Standard input can be read once: `-i -` and `-d @-` both wanted it, and the body went empty (found by a
        // tester).
        if inputFile == "-", requestOptions.readsStandardInput(shortData: shortData.values) {
            throw CLIFailure(code: 2, message: "-i - and a body or headers from @- both read standard input: give the URLs or the rest in a file")
        }
        let globbed = try glob.expand(given, output: output)
        var texts = globbed.urls
        let listStart = texts.count
        if let inputFile { texts += try URLList.read(inputFile) }
        if texts.isEmpty, !splitOptions.mirrors.isEmpty {  // `sluice get -o FILE --mirrors A --mirrors B`: A leads
            texts = [splitOptions.mirrors.removeFirst()]
            splitOptions.splitGiven = splitOptions.splitGiven ?? min(SplitOptions.maximum, 1 + splitOptions.mirrors.count)
        }
        guard !texts.isEmpty else { throw CLIFailure(code: 2, message: "no URL given (arguments or -i FILE)") }
        let targets = try URLTargets(texts, list: inputFile, listStart: listStart)
        guard (jobs ?? 1) >= 1 else { throw CLIFailure(code: 2, message: "-j needs at least 1") }
        if (splitOptions.split > 1 || splitOptions.checksum != nil || !splitOptions.mirrors.isEmpty) && output == nil {
            throw CLIFailure(code: 2, message: "--split, --mirrors and --checksum need -o FILE")
        }
        let format = try WriteOut.option(writeOut)
        let recorder = try flowExport.recorder(urls: targets.count)
        do {
            try FlowRecorder.$current.withValue(recorder) {
                if self.outputs.count > 1 {
                    guard self.outputs.count == targets.count, globbed.outputs == nil else {
                        throw CLIFailure(code: 2, message: "\(self.outputs.count) -o for \(targets.count) URLs: give one -o per URL, in the same order (or --output-dir for all)")
                    }
                    try transferEach(try targets.all(), to: self.outputs, paste: paste, format: format)
                } else if let outputs = globbed.outputs, outputs.count == targets.count {
                    try transferEach(try targets.all(), to: outputs, paste: paste, format: format)
                } else {
                    try transfer(targets, paste: paste, format: format)
                }
            }
        } catch {
            recorder?.writeAfterFailure()
            throw error
        }
        try recorder?.write()
    }

    /// The transfers themselves; `--mermaid` and `--har` record them through `FlowRecorder.current`. `format`: -w's,
    /// written after each URL.
    private func transfer(_ targets: URLTargets, paste: CurlPaste?, format: WriteOut?) throws {
        var prepared = try requestOptions.prepare(shortData: shortData.values)
        paste?.fillBody(&prepared, methodGiven: requestOptions.method != nil)
        if let range, prepared.headers["Range"] == nil {  // an -H Range wins, as in curl
            guard !range.isEmpty, range.utf8.allSatisfy({ (48...57).contains($0) || $0 == 45 || $0 == 44 }) else {
                throw CLIFailure(code: 2, message: "-r: not a byte range (0-499, 500-, -500, or several with commas): \(Sanitized.text(range))")
            }
            try prepared.addHeader("Range: bytes=" + range, flag: "-r")
        }
        if head {
            guard prepared.body == nil else { throw CLIFailure(code: 2, message: "-I sends HEAD, which carries no -d body") }
            if requestOptions.method == nil { prepared.method = "HEAD" }
        }
        defer { prepared.saveCookieJar() }
        var configuration = try prepared.configure(.default)
        configuration.timeoutIntervalForRequest = try RequestOptions.inactivityTimeout(timeout) ?? SluiceConfig.inForce.timeout.value
        if verbose { configuration.wireMonitor = VerboseLog.monitor() }
        if let maxTime {
            guard maxTime >= 0, maxTime.isFinite else { throw CLIFailure(code: 2, message: "-m needs a number of seconds (0: no limit)") }
            // Each attempt's, as curl's -m (0: none, as curl's); --retry-max-time bounds them all.
            if maxTime > 0 { configuration.timeoutIntervalForResource = maxTime }
        }
        if SluiceConfig.inForce.perHost.source != .defaultValue {
            configuration.httpMaximumConnectionsPerHost = SluiceConfig.inForce.perHost.value
        }
        prepared.hostRules = HostRulesApplied(SluiceConfig.inForce)
        configuration.maximumBytesPerSecond = try retryOptions.rateLimit()
        let traceStart = trace ? uptimeNanoseconds() : nil
        let monitor = FlowRecorder.monitor(then: trace ? TraceEncoder.monitor() : nil)
        let retryOptions = self.retryOptions.bounded(byMaxTime: maxTime)
        let retries = RetryLoop(policy: try retryOptions.policy(savesFiles: false), method: prepared.method, traceStart: traceStart)
        let downloadRetries = RetryLoop(policy: try retryOptions.policy(savesFiles: true), method: prepared.method,
                                        traceStart: traceStart)
        let output = Self.output(output, in: outputDir)
        if targets.count > 1 || outputDir != nil && output == nil {
            // -o /dev/null with a glob or several URLs (a status check: `-s -o /dev/null -w '%{http_code}\n' URL[1-5]`):
            // every body goes there, as curl gives each URL of a glob the same -o; -w's lines still come in order.
            let discards = outputDir == nil && output.map(OutputTarget.isNullDevice) == true
            if output != nil && !discards { throw CLIFailure(code: 2, message: "-o takes one URL; use --output-dir for several") }
            let batchRetries = outputDir == nil ? retries : downloadRetries
            return try batch(targets, prepared, configuration: configuration, monitor: monitor, retries: batchRetries,
                             format: format, discardsBodies: discards)
        }
        var facts = WriteOutFacts(url: targets.texts[0], method: prepared.method)
        facts.filename = output == "-" ? nil : output
        try WriteOut.reporting(format, facts) { facts in
            guard let target = targets.url(at: 0) else { throw URLTargets.refused(targets.texts[0]) }
            guard let output else {
                return try fetch(prepared.request(for: target), into: .standardOutput(named: false), named: "standard output",
                                 configuration: configuration, monitor: monitor, retries: retries, facts: &facts)
            }
            try curlScript.makeParent(of: output)
            switch try OutputTarget.classify(output, force: force) {
            case .descriptor(let fd):
                let name = fd == 1 ? "standard output" : Sanitized.text(output)
                try fetch(prepared.request(for: target), into: FileDescriptorSink(fd: fd), named: name, configuration: configuration, monitor: monitor,
                          retries: retries, facts: &facts)
            case .stream(let path, let isSocket):
                let fd = try OutputTarget.openStream(path, isSocket: isSocket, shownAs: output)
                defer { close(fd) }
                try fetch(prepared.request(for: target), into: FileDescriptorSink(fd: fd), named: Sanitized.text(output), configuration: configuration,
                          monitor: monitor, retries: retries, facts: &facts)
            case .file(let file):
                try downloadRetries.run { retriesMade in
                    try download(prepared.request(for: target), to: file,
                                 configuration: configuration, monitor: monitor, retriesMade: retriesMade, facts: &facts)
                }
            }
        }
    }

    /// -o's file inside --output-dir, as curl places it: a relative name goes there; an absolute one and `-` stand
    /// as given.
    static func output(_ output: String?, in directory: String?) -> String? {
        guard let output, let directory, output != "-", !output.hasPrefix("/") else { return output }
        return directory + "/" + output
    }

    /// A globbed URL with -o naming #1, #2...: each URL into its own file, one after another as curl does; a
    /// failure is said and the rest go on, and the command fails at the end if any did.
    private func transferEach(_ targets: [URL], to outputs: [String], paste: CurlPaste?, format: WriteOut?) throws {
        var failed = 0
        var last: CLIFailure?
        for (target, name) in zip(targets, outputs) {
            var one = self
            one.output = name
            do {
                try one.transfer(URLTargets(urls: [target]), paste: paste, format: format)
            } catch let failure as CLIFailure {
                if failure.code > 128 { throw failure }  // interrupted: stop here, as curl
                StandardStreams.error("sluice: \(Sanitized.text(target.absoluteString)): \(failure.message)\n")
                failed += 1
                last = failure
            }
        }
        if let last {
            throw CLIFailure(code: last.code, message: "\(failed) of \(targets.count) transfers failed")
        }
    }

    /// The body through a data task into an open descriptor: standard output, a device, a FIFO or a socket.
    /// A retry here starts the body again, so it is made only while nothing of it was written: an error status the
    /// policy retries is not written at all while retries remain, and a transfer that failed after its first byte
    /// went out is not retried (those bytes cannot be taken back from a pipe).
    private func fetch(_ request: Request, into sink: FileDescriptorSink, named destination: String, configuration: SessionConfiguration,
                       monitor: TaskEventMonitor?, retries: RetryLoop, facts: inout WriteOutFacts) throws {
        try retries.run { retriesMade in
            let delegate = GetDelegate(disposition: disposition.value, sink: sink,
                                       progress: progressLine, destination: destination)
            let policy = retries.policy
            let retriesLeft = retriesMade < policy.maximumRetries
                && (policy.retriesNonIdempotentMethods || RetryPolicy.idempotentMethods.contains(request.method.uppercased()))
            delegate.printsHead = head
            let failHides = fail  // -f: an error status's body is never written
            if retriesLeft || failHides {
                delegate.withholdsBody = { response in
                    guard let status = response.statusCode else { return false }
                    return (failHides && status >= 400) || (retriesLeft && policy.isRetried(.status(status, retryAfter: nil)))
                }
            }
            let session = Session(configuration: configuration, delegate: delegate, eventMonitor: monitor)
            let task = FlowRecorder.observe(session.dataTask(with: request))
            defer { facts.take(task) }
            do {
                try delegate.run(task, in: session, target: request.url) { task in
                    task.countOfBytesReceived > 0 ? "\(task.countOfBytesReceived) bytes received" : nil
                }
            } catch let failure as CLIFailure {
                // A status's body is written only once no retry is left to make; the policy then says why.
                let nothingWritten = delegate.withheldBody || task.countOfBytesReceived == 0 || delegate.error == nil
                let failed = RetryPolicy.Failure.of(error: delegate.error, response: delegate.response)
                if !nothingWritten, delegate.outputFailure == nil, retriesLeft, let failed, policy.isRetried(failed) {
                    // Asked for, and not made: say why rather than leave --retry looking ignored.
                    throw AttemptFailure(failure: CLIFailure(code: failure.code, message: failure.message
                                                             + " (not retried: its first bytes are already written)"), cause: nil)
                }
                throw AttemptFailure(failure: failure, cause: delegate.outputFailure == nil && nothingWritten ? failed : nil)
            }
        }
    }

    /// The body to a file through a download task (or a data task that becomes one), resumable.
    /// One attempt; a retry (`retriesMade` > 0) resumes from the partial file the last one kept.
    private func download(_ request: Request, to file: OutputFile, configuration: SessionConfiguration,
                          monitor: TaskEventMonitor?, retriesMade: Int = 0, facts: inout WriteOutFacts) throws {
        let target = request.url
        // Another sluice writing the same -o: its partial file, checkpoint and result are its own, even with --force.
        if PartialFileLock.isHeldElsewhere(file.partialPath, patience: 200) {
            throw CLIFailure(code: 1, message: "\(file.partialShown) is being written by another download; wait for it to end, or choose another -o")
        }
        // A GET goes on from its partial file with the same request, its -H, -u and -b included; a POST (-d, -X) is
        // never sent again to fetch the rest of an answer.
        let resumable = request.method == "GET" && request.body == nil
        var continuesUsersFile = false
        if continueAt != nil, !force, file.exists {
            switch try continueForeign(file, request: request, resumable: resumable, configuration: configuration) {
            case .complete: return
            case .adopted: continuesUsersFile = true
            case .notForeign: break
            }
        }
        if file.exists && !force {
            throw CLIFailure(code: 1, message: "\(file.name) already exists; use --force to replace it")
        }
        if retriesMade > 0 && !resumable {
            file.removeResume()  // a POST is not continued (below): this retry starts over
        }
        var resumeData: Data?
        switch try file.leftOver(for: request.url) {
        case .none: break
        case .sameURL where !resumable, .otherURL where !resumable:
            // Refused before any probe, the checkpoint as it was.
            throw CLIFailure(code: 1, message: "\(file.name) has a partial download to resume, and a \(Sanitized.text(request.method)) is not sent again to continue one; run it as a GET, or remove \(file.resumeShown) to start over")
        case .sameURL(let data): resumeData = data
        case .otherURL(let old): resumeData = try Self.continuation(of: old, from: request, file: file, configuration: configuration)
        }
        // A retry, or the same command after a stop, continues a file `-C -` took over from the user: the checkpoint
        // says so (the file is gone from its name by then).
        if resumeData.flatMap(ResumeData.decode)?.adoptedBytes != nil { continuesUsersFile = true }
        var configuration = configuration
        configuration.downloadDirectory = file.directory  // so that the finished file is renamed, not copied
        let delegate = DownloadDelegate(disposition: disposition.value, output: file, force: force,
                                        progress: progressLine)
        delegate.keepsWhatItVerifies = continuesUsersFile
        let mirrors = try splitOptions.mirrorURLs()
        let notes = mirrors.isEmpty ? nil : MirrorNotes()
        let session = Session(configuration: configuration, delegate: delegate,
                              eventMonitor: notes.map { $0.monitor(then: monitor) } ?? monitor)
        let task: SessionTask
        if let resumeData, disposition == .allow {
            // With this command's request: resume data records the URL only, and the headers, credentials and
            // cookies typed again go with the rest (found by a tester: "run the same command again" was refused).
            task = try session.downloadTask(with: request, resumeData: resumeData)
        } else if disposition == .allow {
            task = session.downloadTask(with: request, partialFile: file.partialPath)
        } else {
            task = session.dataTask(with: request)  // the disposition decides at the response
        }
        splitOptions.apply(to: task, mirrors: mirrors)
        if let checksum = splitOptions.checksum { delegate.verify = checksum.mismatch(at:) }
        FlowRecorder.observe(task)
        let interrupted = SignalTrap.run(stoppingWith: { _ in task.stopKeepingResumeData() }) {
            task.resume()
            delegate.wait()
        }
        session.finishTasksAndInvalidate()
        notes?.report()
        facts.take(task)

        let name = file.name
        // A link that no longer serves the file (a signed URL that expired) is refused again on every rerun: the
        // way on is the same command with a fresh URL of the same file, which continues the partial file.
        let linkGone = [401, 403, 404, 410].contains(task.response?.statusCode ?? 0)
        let resumeHint = delegate.keptPartial.map {
            "; the partial file is kept (\(Sanitized.text($0))), " + (linkGone
                ? "and this URL no longer gives the file (an expired link?): run the same command with a fresh URL of the same file to go on from there"
                : "run the same command again to resume")
        } ?? ""
        if let signal = interrupted {
            throw CLIFailure(code: 128 + signal, message: "interrupted" + resumeHint)
        }
        if let error = delegate.error {
            // An error status refusing to resume (an expired link's 403) is an error status, as for a first request.
            let code: Int32 = (task.response?.statusCode ?? 0) >= 400 ? 22 : 1
            throw AttemptFailure(failure: CLIFailure(code: code, message: Sanitized.text(ErrorText.describe(error, url: target)) + resumeHint),
                                 cause: .of(error: error, response: task.response))
        }
        do {
            try CLIFailure.checkStatus(delegate.response, target)
        } catch {
            throw AttemptFailure(failure: error, cause: .of(error: nil, response: delegate.response))
        }
        if let failure = delegate.verifyFailure {
            let kept = delegate.saved ? "; it is kept, with the bytes it held before this run" : " not saved"
            throw CLIFailure(code: 1, message: "\(name)\(kept): \(failure)")
        }
        if let failure = delegate.moveFailure {
            throw CLIFailure(code: 1, message: "cannot save \(name): \(failure)")
        }
    }

    /// The progress line on a terminal's stderr, unless --trace or -v write there, or -I asks for the head only.
    private var progressLine: ProgressLine? { trace || verbose || head || curlScript.noProgressMeter ? nil : ProgressLine.ifTerminal() }

    /// -C -: `file` exists. When sluice has no checkpoint beside it, it is another program's half-done download, to be
    /// continued from its end (`ContinueAt`), or complete already, and nothing is to be done. A file that is also the
    /// partial file (a run stopped between the two names) keeps only the partial name.
    private func continueForeign(_ file: OutputFile, request: Request, resumable: Bool,
                                 configuration: SessionConfiguration) throws -> ForeignFile {
        var whole = stat()
        var partial = stat()
        if lstat(file.path, &whole) == 0, lstat(file.partialPath, &partial) == 0 {
            guard whole.st_ino == partial.st_ino, whole.st_dev == partial.st_dev else { return .notForeign }  // "exists": said below
            unlink(file.path)
            return .notForeign
        }
        guard case .none = try file.leftOver(for: request.url) else { return .notForeign }
        guard resumable else {
            throw CLIFailure(code: 1, message: "-C -: a \(Sanitized.text(request.method)) is not sent again to continue a file; \(file.name) is left as it was")
        }
        switch try ContinueAt.adopt(file, request: request, configuration: configuration) {
        case .complete(let size):
            // Complete already is no reason to skip --checksum: the file is what it promises, or the command fails.
            if let failure = splitOptions.checksum?.mismatch(at: file.path) {
                throw CLIFailure(code: 1, message: "\(file.name) is complete already (\(size) bytes), and left as it was: \(failure)")
            }
            StandardStreams.error("sluice: \(file.name) is complete already (\(size) bytes): nothing to fetch\n")
            return .complete
        case .adopted:
            return .adopted
        }
    }

    /// What `-C -` made of a file it found.
    private enum ForeignFile {
        /// Nothing is left to fetch.
        case complete
        /// The user's file is now the partial file, continued from its end.
        case adopted
        /// Not another program's file to continue (sluice's own partial file, or none).
        case notForeign
    }

    /// A partial file of another URL (an expired link given again fresh, a mirror): its resume data moved to
    /// `request`'s URL when that URL serves the same file (the same size and validator, as `sluice refresh` asks),
    /// as curl -C - and wget -c continue whatever file they find; otherwise an error that says what differs, and
    /// the partial file stays as it is.
    static func continuation(of old: ResumeData, from request: Request, file: OutputFile,
                             configuration: SessionConfiguration) throws(CLIFailure) -> Data {
        let kept = "\(file.partialShown) holds \(old.bytesOnDisk) bytes of \(Sanitized.text(old.url))"
        let advice = "remove \(file.partialShown) and \(file.resumeShown) to start over, or choose another -o"
        let new: RefreshCheck.New
        switch URLProbe.answer(request, configuration: configuration) {
        case .success(let answer): new = answer
        case .failure(let error):
            throw CLIFailure(code: 1, message: "\(kept); asking the new URL whether it is the same file failed: \(Sanitized.text(error.message))")
        }
        let decision = RefreshCheck.decide(old: RefreshCheck.Old(size: old.expectedLength, etag: old.etag, lastModified: old.lastModified),
                                           new: new, force: false, forceHint: nil)  // get's --force replaces files
        if case .refuse(let why) = decision {
            throw CLIFailure(code: 1, message: "\(kept), and the new URL is not provably the same file (\(Sanitized.text(why))); \(advice)")
        }
        var moved = old
        moved.url = request.url.absoluteString
        let data = moved.encoded()
        _ = file.saveResume(data)  // a crash from here on resumes from the new URL
        return data
    }

    /// Several URLs, at most `jobs` at once.
    private func batch(_ targets: URLTargets, _ prepared: PreparedRequest, configuration: SessionConfiguration,
                       monitor: TaskEventMonitor?, retries: RetryLoop, format: WriteOut?, discardsBodies: Bool = false) throws {
        var configuration = configuration
        configuration.httpMaximumConnectionsPerHost = max(jobs ?? SluiceConfig.inForce.jobs.value, configuration.httpMaximumConnectionsPerHost)
        if let limit = SluiceConfig.inForce.sharedConnections(of: targets) { configuration.httpMaximumConnectionsPerHost = limit }
        var directory: String?
        if let outputDir {
            if curlScript.createDirs { try CurlScriptOptions.makeDirectories(outputDir) }
            let resolved = try OutputFile.checkedDirectory(outputDir, writing: "the downloads")  // as -o's directory
            configuration.downloadDirectory = resolved
            directory = resolved
        }
        let concurrency = max(1, jobs ?? SluiceConfig.inForce.jobs.value)
        configuration.maximumConcurrentTasks = concurrency  // BatchDelegate keeps more resumed (see its run)
        let delegate = BatchDelegate(targets: targets, prepared: prepared, concurrency: concurrency, outputDirectory: directory)
        delegate.printsHead = head
        delegate.discardsBodies = discardsBodies
        delegate.holdsBack = (maxTime ?? 0) == 0
        delegate.writeOut = format
        delegate.retries = BatchRetries(loop: retries, hidesErrorBodies: fail)
        let session = Session(configuration: configuration, delegate: delegate, eventMonitor: monitor)
        let interrupted = SignalTrap.run(stoppingWith: { _ in
            delegate.stop()
            session.invalidateAndCancel()
        }) { delegate.run(on: session) }
        session.finishTasksAndInvalidate()
        if let signal = interrupted {
            throw CLIFailure(code: 128 + signal, message: InterruptedList.message(kept: delegate.keptPartials, saved: delegate.savedFiles))
        }
        if let failure = delegate.outputFailure {
            throw CLIFailure(code: 1, message: FileDescriptorSink.failureMessage(failure, writing: "the bodies to standard output"))
        }
        for line in delegate.failures.prefix(20) { StandardStreams.error("sluice: \(line)\n") }
        if delegate.failures.count > 20 { StandardStreams.error("sluice: ... and \(delegate.failures.count - 20) more\n") }
        if !delegate.failures.isEmpty {
            let failed = delegate.failures.count
            throw CLIFailure(code: delegate.httpErrors == failed ? 22 : 1, message: "\(failed) of \(targets.count) transfers failed")
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
