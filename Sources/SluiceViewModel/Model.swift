// The whole UI state the engine drives: rows in the order they were added, selection, sort and filter.
// A pure value: `apply` is the reducer, and nothing here knows about a terminal or a socket.
import SluiceEngine

public enum SortOrder: String, CaseIterable, Sendable {
    case added, progress, state, name

    public var next: SortOrder {
        let all = SortOrder.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }
}

public struct Model: Equatable, Sendable {
    public private(set) var rows: [TaskRow] = []
    private var index: [Int: Int] = [:]
    public private(set) var selectedID: Int?
    public var sort: SortOrder = .added
    /// Case-insensitive substring of the URL or the name; empty shows every row. A filter that hides the selected
    /// row moves the selection to the first row it shows, or to none: the keys act on the selection, never on a
    /// row the list does not show.
    public var filter: String = "" {
        didSet {
            guard filter != oldValue, selected == nil else { return }
            selectedID = visibleRows.first?.id
        }
    }
    public private(set) var now: UInt64 = 0

    /// Whether the filter (`needle`, lowercased) shows `row`.
    private static func matches(_ row: TaskRow, _ needle: String) -> Bool {
        needle.isEmpty || row.url.lowercased().contains(needle) || row.name.lowercased().contains(needle)
    }
    /// The whole session's receive limit, for the title line.
    public private(set) var sessionRateLimit: Int64?
    /// How a download's note says where it is being saved (the app's at its add, the model's when renamed); the note
    /// goes once the file is saved.
    public static let savingTo = "saving to "
    /// Rows keep at most this many timeline lines (progress calls fold, so this is a lot of history).
    public static let timelineLimit = 300
    /// Lines a row's timeline makes room for at its first (a response, progress, the file, metrics, the end).
    static let firstTimelineCapacity = 8

    public init() {}

    public func row(_ id: Int) -> TaskRow? { index[id].map { rows[$0] } }

    /// The file row `id` saved, while no later row saved a file of the same path: a name freed (its file removed)
    /// and taken again belongs to the later download, which purging the earlier row deleted (found by a tester:
    /// `X` on an old row of the history deleted the file of a newer one that still said "saved").
    public func savedFileToPurge(_ id: Int) -> String? {
        guard let position = position(of: id), let path = rows[position].savedPath else { return nil }
        return rows.contains { $0.id > id && $0.savedPath == path } ? nil : path
    }

    /// Where the row is in `rows`: for a reader of a few fields, which `row(_:)` would copy whole (a retain for
    /// every string and array in it) to read.
    public func position(of id: Int) -> Int? { index[id] }

    /// The selected row, when the filter shows it.
    public var selected: TaskRow? { selectedID.flatMap(row).flatMap { Self.matches($0, filter.lowercased()) ? $0 : nil } }

    /// How many rows the filter shows (counted in place: no copy, no sort).
    public var visibleCount: Int {
        let needle = filter.lowercased()
        guard !needle.isEmpty else { return rows.count }
        var count = 0
        for i in rows.indices where Self.matches(rows[i], needle) { count += 1 }
        return count
    }

    /// The rows to show, filtered and sorted.
    public var visibleRows: [TaskRow] {
        let needle = filter.lowercased()
        var shown = needle.isEmpty ? rows : rows.filter { Self.matches($0, needle) }
        switch sort {
        case .added:
            // Queued rows the user reordered take the places queued rows hold, in the queue's order.
            let slots = shown.indices.filter { shown[$0].queuePosition != nil }
            guard slots.count > 1 else { break }
            let queued = slots.map { shown[$0] }.sorted { ($0.queuePosition ?? 0) < ($1.queuePosition ?? 0) }
            for (slot, row) in zip(slots, queued) { shown[slot] = row }
        case .name: shown.sort { ($0.name, $0.id) < ($1.name, $1.id) }
        case .state: shown.sort { (Self.rank($0), $0.id) < (Self.rank($1), $1.id) }
        case .progress: shown.sort { ($0.fraction ?? -1, $0.id) > ($1.fraction ?? -1, $1.id) }
        }
        return shown
    }

    private static func rank(_ row: TaskRow) -> Int {
        if row.awaitingDisposition { return 0 }
        switch row.state {
        case .running: return 1
        case .suspended: return 2
        case .canceling: return 3
        case .completed: return 4
        }
    }

    /// Tasks not yet completed (queued ones too): what quitting would cancel.
    /// By index, reading the one field in place: `reduce` and `for row in` copied every row (a retain per string
    /// and array in it), and the screen's loop asks after each drain.
    public var runningCount: Int {
        var count = 0
        for i in rows.indices where rows[i].state == .running || rows[i].state == .suspended { count += 1 }
        return count
    }

    /// For the title line: tasks under way (running, or waiting for a retry), tasks the user suspended, tasks
    /// waiting for their turn, and failures (an HTTP status of 400 or more included).
    public var counts: (active: Int, suspended: Int, queued: Int, failed: Int) {
        var c = (active: 0, suspended: 0, queued: 0, failed: 0)
        for i in rows.indices {
            switch rows[i].state {
            case .suspended where !rows[i].hasStarted: c.queued += 1
            case .suspended where rows[i].retry == nil: c.suspended += 1
            case .completed: if rows[i].isFailed { c.failed += 1 }
            default: c.active += 1
            }
        }
        return c
    }

    // MARK: Selection

    /// Moves the selection among the visible rows; selects the first when nothing visible is selected.
    public mutating func moveSelection(by step: Int) {
        let shown = visibleRows
        guard !shown.isEmpty else { return selectedID = nil }
        guard let current = shown.firstIndex(where: { $0.id == selectedID }) else { return selectedID = shown[0].id }
        selectedID = shown[min(shown.count - 1, max(0, current + step))].id
    }

    /// Selects the first (or last) visible row.
    public mutating func selectFirst() { selectedID = visibleRows.first?.id }
    public mutating func selectLast() { selectedID = visibleRows.last?.id }

    public mutating func select(_ id: Int) { if index[id] != nil { selectedID = id } }

    /// Drops a finished row; returns false for a row still transferring.
    @discardableResult
    public mutating func remove(_ id: Int) -> Bool {
        guard let i = index[id], rows[i].isFinished else { return false }
        let shown = visibleRows.map(\.id)
        rows.remove(at: i)
        rebuildIndex()
        if selectedID == id {
            let at = shown.firstIndex(of: id) ?? 0
            let remaining = shown.filter { $0 != id }
            selectedID = remaining.isEmpty ? nil : remaining[min(at, remaining.count - 1)]
        }
        return true
    }

    // MARK: The reducer

    /// Applies a drained batch in order, with room made first for the rows it adds: a list of thousands arrives
    /// in one batch, and the rows and their index grew by doubling, copying or hashing every row at each step.
    public mutating func apply(contentsOf events: [ModelEvent]) {
        var adds = 0
        for event in events { if case .added = event { adds += 1 } }
        // Grown at least twofold: an array's reserve is exact, and batches adding two rows each would otherwise
        // copy every row at every batch.
        if adds > 1, rows.count + adds > rows.capacity {
            rows.reserveCapacity(Swift.max(rows.count + adds, 2 * rows.capacity))
            index.reserveCapacity(index.count + adds)
        }
        for event in events { apply(event) }
    }

    public mutating func apply(_ event: ModelEvent) {
        switch event {
        case .added(let id, let url, let kind, let headers, let time, let note):
            now = max(now, time)
            var row = TaskRow(id: id, url: url, kind: kind, requestHeaders: headers, at: time)
            row.note = note
            insert(row)
        case .engine(let record):
            apply(record.event, to: record.taskIdentifier, at: record.uptimeNanoseconds)
        case .restored(let row):
            now = max(now, row.added)
            insert(row)
        case .saved(let id, let path):
            update(id) { row in
                row.savedPath = path
                // Where it was going is where it went, or not (a name the server gave): the detail says "saved".
                if row.note?.hasPrefix(Self.savingTo) == true { row.note = nil }
            }
        case .note(let id, let text):
            update(id) { $0.note = text }
        case .segments(let id, let segments):
            update(id) { $0.segments = segments }
        case .sessionRateLimit(let limit):
            sessionRateLimit = limit
        case .taskRateLimit(let id, let limit):
            update(id) { $0.rateLimit = limit }
        case .retrying(let id, let attempt, let of, let at, let reason):
            let now = self.now
            update(id) { row in
                row.retry = RetryWait(attempt: attempt, of: of, at: at, reason: reason)
                row.state = .suspended
                row.hasStarted = true
                row.outcome = nil
                let tenths = at > now ? Int((Double(at - now) / 1e8).rounded()) : 0
                let wait = tenths > 0 ? "\(tenths / 10).\(tenths % 10) s" : "now"
                row.timeline.append(TimelineEntry(name: "retry", detail: "\(attempt)/\(of) in \(wait): \(Sanitized.text(reason))", time: now))
                if row.timeline.count > Model.timelineLimit { row.timeline.removeFirst() }
            }
        case .refreshed(let id, let url, let at):
            now = max(now, at)
            update(id) { row in
                row.timeline.append(TimelineEntry(name: "refresh", detail: "new URL " + Sanitized.text(url), time: at))
                if row.timeline.count > Model.timelineLimit { row.timeline.removeFirst() }
                row.url = url
                row.redirectedTo = nil
                row.outcome = nil
                row.state = .suspended
                row.hasStarted = true
                row.retry = nil
            }
        case .renamed(let id, let target, let at):
            now = max(now, at)
            update(id) { row in
                let text = Self.savingTo + Sanitized.text(target)
                row.timeline.append(TimelineEntry(name: "renamed", detail: text + ": another program took the name", time: at))
                if row.timeline.count > Model.timelineLimit { row.timeline.removeFirst() }
                row.note = text
                row.outcome = nil
                row.state = .suspended
                row.retry = nil
            }
        case .queueOrder(let ids):
            for i in rows.indices { rows[i].queuePosition = nil }
            for (place, id) in ids.enumerated() { update(id) { $0.queuePosition = place + 1 } }
        case .tick(let time):
            now = max(now, time)
            for i in rows.indices where rows[i].state == .running {
                rows[i].rate.record(bytes: rows[i].bytes, at: now)
                rows[i].throughput.record(bytes: rows[i].bytes, at: now)
            }
        }
    }

    private mutating func apply(_ event: TaskEvent, to id: Int, at time: UInt64) {
        now = max(now, time)
        if index[id] == nil { insert(TaskRow(id: id, url: "", kind: .data, at: time)) }  // a task the app did not add
        update(id) { row in
            if let entry = TimelineEntry.make(event, time: time) {
                if row.timeline.isEmpty || !row.timeline[row.timeline.count - 1].absorb(entry) {
                    // Room for a whole small transfer's lines at once: grown from empty, the array was made four
                    // times over (1, 2, 4, 8) for a download's five or six lines.
                    if row.timeline.capacity == 0 { row.timeline.reserveCapacity(Self.firstTimelineCapacity) }
                    row.timeline.append(entry)
                    if row.timeline.count > Self.timelineLimit { row.timeline.removeFirst() }
                }
            }
            switch event {
            case .stateChanged(let state):
                row.state = state
                if state == .running {
                    row.hasStarted = true
                    row.queuePosition = nil
                    row.retry = nil
                    // Quiet from here, not from before it was suspended or queued; its bursts are measured afresh.
                    row.lastProgress = time
                    row.progressGap = nil
                }
            case .didReceiveResponse(let r):
                row.status = r.statusCode
                row.contentType = r.mimeType
                row.responseHeaders = r.headers.map { HeaderLine($0.name, $0.value) }
                // Named as a download of it would be saved: the server's file name, else the final URL's.
                row.name = TaskName.of(url: r.url.absoluteString,
                                      dispositionName: r.headers["Content-Disposition"] == nil ? nil : r.suggestedFilename)
                if r.part != nil {
                    row.parts += 1
                    row.expected = -1  // a stream of parts has no overall length
                } else if row.kind != .download {
                    row.expected = r.expectedContentLength
                    // A data task's retry fetches the body again from its start: count this attempt's bytes only.
                    if row.bytes > 0 {
                        row.bytes = 0
                        row.chunks = 0
                        row.throughput.rebase(bytes: 0)
                    }
                }
                row.awaitingDisposition = row.kind != .download
            case .disposition:
                row.awaitingDisposition = false
            case .didReceiveData(let bytes):
                row.progressed(to: row.bytes + Int64(bytes), at: time)
            case .didWriteData(_, let total, let expected):
                if total < row.bytes { row.throughput.rebase(bytes: 0) }  // over from zero (a new URL, a fresh retry)
                row.expected = expected
                row.progressed(to: total, at: time)
            case .didSendBodyData(_, let total, _):
                row.sent = total
                row.lastProgress = time
            case .didResumeAtOffset(let offset, let expected):
                row.bytes = offset
                row.expected = expected
                row.rate = RateWindow()
                row.rate.record(bytes: offset, at: time)
                row.throughput.rebase(bytes: offset)
            case .didFinishCollectingMetrics(let metrics):
                row.metrics = metrics
                // The last answer's status: a download whose resume was refused (403) announced no response of
                // its own, and showed the first attempt's 200 beside its failure.
                if let status = metrics.transactions.last?.statusCode { row.status = status }
            case .redirectAnswer(let followed):
                if let followed { row.redirectedTo = followed.absoluteString }
            case .didFinishDownloadingTo, .willPerformHTTPRedirection, .didReceiveChallenge, .challengeAnswer,
                 .didReceiveInformationalResponse, .needNewBodyStream, .mirrorDropped:
                break  // the timeline shows them
            case .didCompleteWithError(let error):
                row.awaitingDisposition = false
                if let error {
                    row.outcome = error.code == .cancelled ? .cancelled : .failed(TaskFailure(error, bytes: row.bytes, fraction: row.fraction))
                    row.keptForResume = error.code == .cancelled && row.kind == .download && error.resumeData != nil
                } else {
                    row.outcome = .finished
                }
            case .didBecomeDownloadTask(let newID):
                row.becameTask = newID
                row.awaitingDisposition = false
            }
        }
        if case .didBecomeDownloadTask(let newID) = event, let from = row(id) {
            var download = TaskRow(id: newID, url: from.url, kind: .download, requestHeaders: from.requestHeaders, at: time)
            download.state = .running
            download.hasStarted = true
            download.name = from.name
            download.cameFromTask = id
            download.status = from.status
            download.contentType = from.contentType
            download.responseHeaders = from.responseHeaders
            download.redirectedTo = from.redirectedTo
            download.expected = -1
            insert(download)
            if selectedID == id { selectedID = newID }
        }
    }

    private mutating func insert(_ row: TaskRow) {
        if let i = index[row.id] {
            rows[i] = row
            return
        }
        index[row.id] = rows.count
        rows.append(row)
        if selectedID == nil { selectedID = row.id }
    }

    private mutating func update(_ id: Int, _ change: (inout TaskRow) -> Void) {
        guard let i = index[id] else { return }
        change(&rows[i])
    }

    private mutating func rebuildIndex() {
        index.removeAll(keepingCapacity: true)
        for (i, row) in rows.enumerated() { index[row.id] = i }
    }

    public static func == (a: Model, b: Model) -> Bool {
        a.rows == b.rows && a.selectedID == b.selectedID && a.sort == b.sort && a.filter == b.filter && a.now == b.now
            && a.sessionRateLimit == b.sessionRateLimit
    }
}
