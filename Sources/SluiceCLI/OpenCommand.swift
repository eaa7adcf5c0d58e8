// `sluice [open] URL...`: the UI with those URLs as data tasks (so the disposition and conversion can be seen) or,
// with -d, as downloads saved in the output directory.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceStore
import SluiceDaemon
import SluiceTUI
import SluiceViewModel

struct OpenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Open the UI with URLs as data tasks, or as downloads with -d (the default: sluice URL... is sluice open URL...).",
        discussion: """
            With -d, each URL is saved in --output-dir under its name (never over an existing file; name.1 then), \
            its bytes in NAME.sluice-part and its resume state in NAME.sluice-resume beside it until it is complete, \
            as sluice get -o does: sluice get -o NAME URL continues one that was stopped.
            """
    )

    @Argument(help: "URLs to open as data tasks (http, https, file or data).")
    var urls: [String] = []

    @Option(name: .customShort("i"),
            parsing: .unconditional, help: ArgumentHelp("Read more URLs from this file, one per line (- for standard input).", valueName: "file"))
    var inputFile: String?

    @Flag(name: [.customShort("d"), .customLong("download")], help: "Add the URLs as downloads saved in the output directory.")
    var download = false

    @Option(name: .customShort("j"), parsing: .unconditional, help: ArgumentHelp("How many tasks transfer at once; the others wait their turn (J changes it live; default 6, or the config file's jobs).", valueName: "n"))
    var jobs: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many transfers at once to one server.", valueName: "n"))
    var perHost: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("With -d: fetch each file as N ranges over N connections when its server accepts ranges (1: one connection, the default, or the config file's split).", valueName: "N"))
    var split: Int?

    @Flag(help: "Hold every response until you answer it: r allow, c cancel, d become a download.")
    var ask = false

    @Flag(help: "Start with an empty list: the history and unfinished downloads stay in the store for the next start.")
    var fresh = false

    @Flag(help: "Hand the URLs to the background daemon (started when absent) and open the UI on it (sluice attach): they go on after q.")
    var background = false

    @OptionGroup var daemon: DaemonOptions

    @Flag(help: "Leave the UI once every task has ended (off a terminal it always does).")
    var exitWhenDone = false

    @OptionGroup(title: "When tasks end") var hookOptions: HookOptions
    @OptionGroup var glob: GlobOption

    @OptionGroup var interface: InterfaceOptions
    @OptionGroup(title: "Request options (as curl's)") var requestOptions: RequestOptions
    @OptionGroup(title: "Retries and limits") var retryOptions: RetryOptions
    @OptionGroup var configFile: ConfigOption

    mutating func run() throws {
        // Read first and whole, so that a broken file stops before the UI or a transfer starts.
        let config = try configFile.load()
        let interactive = InterfaceOptions.isTerminal
        // URL arguments are globbed as curl globs them (file[1-50].pdf); -i's lines are taken as they are.
        var texts = try glob.expand(ArgumentRuns.current.unfold(urls), output: nil).urls
        let listStart = texts.count
        if let inputFile { texts += try URLList.read(inputFile) }
        // Parsed once here, then handed on: a list of thousands was parsed four times per URL.
        var urls: [URL] = []
        urls.reserveCapacity(texts.count)
        for (position, text) in texts.enumerated() {
            guard let url = ParsedURL.parse(text) else { throw URLTargets.refused(text, inList: position >= listStart ? inputFile : nil) }
            urls.append(url)
        }
        if background { return try runInBackground(texts, interactive: interactive) }
        if daemon.identifier != DaemonPaths.defaultIdentifier { throw CLIFailure(code: 2, message: "--id names a daemon: give it with --background") }
        let splitTyped = self.split != nil  // a typed --split wins over a host rule's, which wins over the file's
        let perHostTyped = perHost != nil  // and a typed --per-host over a host rule's connections
        config.applyDefaults(to: &self)
        let jobs = self.jobs ?? 6, split = self.split ?? 1
        guard jobs >= 1 else { throw CLIFailure(code: 2, message: "-j needs at least 1") }
        if let perHost, perHost < 1 { throw CLIFailure(code: 2, message: "--per-host needs at least 1") }
        guard (1...SplitOptions.maximum).contains(split) else {
            throw CLIFailure(code: 2, message: "--split takes 1 to \(SplitOptions.maximum) connections")
        }
        var preparing = try requestOptions.prepare()
        preparing.hostRules = HostRulesApplied(config)
        let prepared = preparing
        defer { prepared.saveCookieJar() }
        var configuration = try prepared.configure(.default)
        configuration.maximumBytesPerSecond = try retryOptions.rateLimit()
        if let timeout = config.requestTimeout { configuration.timeoutIntervalForRequest = timeout }
        // Downloads are retried by default, as by `get -o`; data tasks only when --retry says so.
        let retries = RetryPolicies(downloads: try retryOptions.policy(savesFiles: true),
                                    data: retryOptions.retry == nil ? nil : try retryOptions.policy(savesFiles: false))
        // Off a terminal the history is not printed again, and not read: unfinished downloads still resume, and the
        // URLs given are looked up in case an earlier run saved them here.
        let givenURLs = download ? urls.map(\.absoluteString) : []
        let (store, stored, storeNotice) = Self.openStore(fresh: fresh, history: interactive, given: givenURLs)
        let records = interactive ? stored : stored.filter { !$0.state.isFinished }
        if texts.isEmpty && records.isEmpty && !interactive {
            if let storeNotice { StandardStreams.error("sluice: \(storeNotice)\n") }
            throw CleanExit.helpRequest(self)
        }
        let (directory, theme, useColor) = try interface.prepare(interactive: interactive)
        let elsewhere = texts.isEmpty ? [] : Self.unfinished(records, outside: directory)
        let restored = elsewhere.isEmpty ? records : records.filter { !elsewhere.contains($0.id) }
        let app = TransferApp(outputDirectory: directory, concurrency: jobs, perHost: perHost ?? .max,
                              hostLimit: { [config] host in perHostTyped ? nil : config.connections(forHost: host) },
                              configuration: configuration, request: { prepared.request(for: $0) }, store: store,
                              retries: retries, split: split, hooks: try hookOptions.hooks(), ring: { Bell.ring() })
        // What earlier runs saved here, read before the restore resumes anything (a resumed download that ends
        // meanwhile is this run's, not an earlier one's).
        let savedEarlier = SavedEarlier(download ? stored : [], in: directory, given: Set(givenURLs))
        app.restore(restored)
        // A URL given again in the same command is the same download, however far the first has got: the app alone
        // would merge a repeat only while the first runs, and save a second copy once it had ended. And one an
        // earlier run saved here (the file still in place) is not fetched again: the same command run again after
        // a crash fetches what is left.
        var given: Set<String> = []
        var repeats = 0
        var alreadySaved = 0
        let download = self.download  // read once: a flag's getter cost 400 instructions, three times a URL
        try app.addingDownloads(into: directory, count: download ? urls.count : 0) {
            for (text, url) in zip(texts, urls) {
                if download, !given.insert(url.absoluteString).inserted {
                    repeats += 1
                    continue
                }
                if download, savedEarlier.path(for: url.absoluteString) != nil {
                    alreadySaved += 1
                    continue
                }
                // A host rule's split and limit-rate are that host's tasks' own (a typed --split wins over the rule's).
                let rule = config.rule(forURL: url)
                let added = download ? app.addDownload(url, to: .directory(directory), split: splitTyped ? nil : rule?.split?.value)
                                     : app.add(text, asks: ask && interactive, kind: .data)
                switch added {
                case .failure(let problem): throw CLIFailure(code: 1, message: problem.message)
                case .success(let id):
                    if let text = rule?.limitRate?.value, let rate = ByteCountText.parse(text), rate > 0 { _ = app.carryOut(.setTaskRate(id, rate)) }
                }
            }
        }
        // The store's trouble first: on a terminal it was printed before the screen took over, and seen only after
        // the quit (found by a tester).
        let notice = [storeNotice, Self.notice(repeats: repeats, alreadySaved: alreadySaved, heldElsewhere: app.heldElsewhereAtRestore,
                                               otherDirectories: elsewhere.count)].compactMap { $0 }.joined(separator: "; ")
        try interface.run(app, theme: theme, useColor: useColor, interactive: interactive, exitWhenDone: exitWhenDone,
                          taskCommand: config.taskCommand.value, notice: notice.isEmpty ? nil : notice)
    }

    /// The unfinished downloads of `records` saved outside `directory`. A command given URLs leaves them as they are
    /// in the store, for `sluice` alone (or a run in their directory) to resume: they are not its work, and a
    /// script's `sluice -d --exit-when-done URL` waited for them and saved them elsewhere (found by a tester).
    static func unfinished(_ records: [StoredTask], outside directory: String) -> Set<Int64> {
        Set(records.lazy.filter { record in
            !record.state.isFinished && record.destination.map { DownloadCompanions(target: $0).directory != directory } ?? false
        }.map(\.id))
    }

    /// What the status line (or standard error) says of the URLs not fetched: repeats, and files already saved.
    static func notice(repeats: Int, alreadySaved: Int, heldElsewhere: Int = 0, otherDirectories: Int = 0) -> String? {
        var parts: [String] = []
        if otherDirectories > 0 {
            parts.append("\(otherDirectories) unfinished download\(otherDirectories == 1 ? "" : "s") of an earlier run in other directories left as "
                         + (otherDirectories == 1 ? "it is" : "they are") + ": sluice alone resumes them")
        }
        if heldElsewhere > 0 {
            parts.append("\(heldElsewhere) download\(heldElsewhere == 1 ? " is" : "s are") being fetched by another sluice (the daemon, or another UI on this store): left to it")
        }
        if repeats > 0 { parts.append("\(repeats) URL\(repeats == 1 ? " was" : "s were") given again; each URL is downloaded once") }
        if alreadySaved > 0 {
            parts.append("\(alreadySaved) URL\(alreadySaved == 1 ? " was" : "s were") saved by an earlier run and \(alreadySaved == 1 ? "is" : "are") there; not fetched again (--fresh fetches anew)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// `--background`: the URLs go to the daemon, then the UI attaches to it.
    private func runInBackground(_ texts: [String], interactive: Bool) throws {
        guard interactive else {
            throw CLIFailure(code: 2, message: "--background opens the UI on the daemon and needs a terminal; sluice add hands it URLs without one")
        }
        let given: [(Bool, String)] = [(retryOptions.givesPolicy, "--retry"),
                                       (retryOptions.limitRate != nil, "--limit-rate (L in the UI)"), (split != nil, "--split (sluice add --split)"),
                                       (perHost != nil, "--per-host"), (jobs != nil, "-j (J in the UI)"), (fresh, "--fresh")]
        if let (_, flag) = given.first(where: { $0.0 }) {
            throw CLIFailure(code: 2, message: "\(flag) is this UI's own setting; the daemon keeps its own: leave it out with --background")
        }
        let request = try DaemonRequestFields(requestOptions)
        let (directory, theme, useColor) = try interface.prepare(interactive: true)
        let client = try daemon.client(startingIn: directory)
        for text in texts {
            guard let url = ParsedURL.parse(text) else { continue }
            var fields = [("url", JSONText.quote(text)), ("kind", download ? "\"download\"" : "\"data\"")]
            if download { fields.append(("directory", JSONText.quote(directory))) } else if ask { fields.append(("ask", "true")) }
            fields += request.fields(for: url)
            let reply: DaemonResponse
            do {
                reply = try client.send("POST", "/tasks", body: "{" + fields.map { JSONText.quote($0.0) + ":" + $0.1 }.joined(separator: ",") + "}")
            } catch {
                throw CLIFailure(code: 1, message: error.message)
            }
            _ = try DaemonOptions.checked(reply)
        }
        try AttachCommand.attach(client, identifier: daemon.identifier, directory: directory, theme: theme, useColor: useColor)
    }

    /// The durable store and what it holds (the whole `history`, or only what a run off a terminal needs: see
    /// `TaskStore.unfinished(orDownloadsOf:)`), and what to tell of it; without a usable one the UI still runs,
    /// with that warning and no history.
    static func openStore(fresh: Bool, history: Bool = true, given: [String] = []) -> (TaskStore?, [StoredTask], String?) {
        let directory = TaskStore.defaultDirectory(environment: ProcessInfo.processInfo.environment)
        do {
            let store = try TaskStore(directory: directory)
            guard !fresh else { return (store, [], store.notice) }
            // A SQLite without its JSON functions (before 3.38 they were a build option) refuses the narrow read:
            // then every row, as before, rather than no store at all (found in review).
            let narrow = history ? nil : try? store.unfinished(orDownloadsOf: given)
            let records = try narrow ?? store.all()
            return (store, records, store.notice)
        } catch {
            return (nil, [], "the task store in \(Sanitized.text(directory)) cannot be used (\(Sanitized.text(String(describing: error)))); nothing is kept this time")
        }
    }
}
