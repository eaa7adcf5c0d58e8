// The task list: one line per task, named so that tasks on one server can be told apart; as the width shrinks
// columns drop, least useful first, and the name never does (the order is in docs/decisions.md).
import SluiceEngine
import SluiceViewModel

enum TaskList {
    enum Column: CaseIterable {
        case id, name, host, state, bar, percent, bytes, rate, eta, chunks, kind

        var title: String {
            switch self {
            case .id: "#"
            case .name: "name"
            case .host: "host"
            case .state: "state"
            case .bar: "progress"
            case .percent: "%"
            case .bytes: "bytes"
            case .rate: "rate"
            case .eta: "ETA"
            case .chunks: "chunks"
            case .kind: "kind"
            }
        }

        var width: Int {
            switch self {
            case .id: 4
            case .name: 12
            case .host: 12
            case .state: 9
            case .bar: 8
            case .percent: 4
            case .bytes: 9
            case .rate: 10
            case .eta: 6
            case .chunks: 7
            case .kind: 8
            }
        }

        var alignRight: Bool { [.percent, .bytes, .rate, .eta, .chunks].contains(self) }
    }

    /// The name takes its first columns before anything else; then these earn their place in this order, and
    /// drop in the reverse order as the terminal narrows. `nameGrowth` is where the name gets room for a whole
    /// typical name before the columns that matter less (ETA, host, chunks, kind) get any.
    /// `barGrowth` then widens the bar enough for "awaiting r/c/d" and "lost at 43%".
    private enum Claim { case column(Column), nameGrowth, barGrowth }
    private static let claims: [Claim] = [.column(.id), .column(.state), .column(.bar), .column(.percent), .column(.rate),
                                          .column(.bytes), .nameGrowth, .barGrowth, .column(.eta), .column(.host),
                                          .column(.chunks), .column(.kind)]
    static let nameFloor = 12
    static let nameComfort = 24
    static let barComfort = 14
    static let hostLimit = 21

    /// Columns and their widths for `width` terminal columns; `nameNeed`, `hostNeed` and `idNeed` are the widest
    /// name, host and "#id" among the rows on screen (a nil `hostNeed` when every task is on one host).
    static func layout(width: Int, nameNeed: Int, hostNeed: Int?, idNeed: Int = 0) -> [(Column, Int)] {
        let need = max(Column.name.title.count, nameNeed)
        var nameWidth = min(need, nameFloor, width)
        var left = width - nameWidth
        var widths: [Column: Int] = [:]
        var full = false
        for claim in claims {
            switch claim {
            case .nameGrowth:
                let grow = max(0, min(min(need, nameComfort) - nameWidth, left))
                nameWidth += grow
                left -= grow
            case .barGrowth:
                guard let bar = widths[.bar] else { continue }
                let grow = max(0, min(barComfort - bar, left))
                widths[.bar] = bar + grow
                left -= grow
            case .column(let column):
                let w = switch column {
                case .host: min(max(hostNeed ?? 0, Column.host.title.count), hostLimit)
                case .id: max(idNeed, column.width)  // "#10000" is six columns; a cut id would name no task
                default: column.width
                }
                if column == .host && hostNeed == nil || full { continue }
                guard left >= w + 1 else {
                    full = true  // no later column jumps the queue by being narrower: the order stays the one written down
                    continue
                }
                widths[column] = w
                left -= w + 1
            }
        }
        let grow = min(left, need - nameWidth)  // the rest of a long name, then a longer bar
        nameWidth += grow
        left -= grow
        if let bar = widths[.bar] { widths[.bar] = bar + min(left, 20 - bar) }  // past 20 a bar says no more
        widths[.name] = nameWidth
        return Column.allCases.compactMap { column in widths[column].map { (column, $0) } }
    }

    static func lines(_ model: Model, width: Int, height: Int) -> [StyledLine] {
        let rows = model.visibleRows
        let room = max(0, height - 1)
        let selectedIndex = rows.firstIndex { $0.id == model.selectedID } ?? 0
        let start = selectedIndex >= room ? selectedIndex - room + 1 : 0
        let shown = rows.dropFirst(start).prefix(room)
        // Rows on screen that share a name but not a URL (tasks not yet answered, /download?id=N) show their
        // query too; a converted task and its download are one transfer and keep the one name.
        var urls: [String: Set<String>] = [:]
        for row in shown { urls[row.name, default: []].insert(row.url) }
        let names = Dictionary(uniqueKeysWithValues: shown.map { row in
            (row.id, urls[row.name, default: []].count > 1 ? TaskName.qualified(row.name, url: row.url) : row.name)
        })
        // Widths from the rows on screen only: measuring 10,000 names every frame would cost more than drawing.
        let nameNeed = names.values.reduce(0) { max($0, TextWidth.of($1)) }
        let severalHosts = rows.contains { $0.host != rows.first?.host }
        let hostNeed = severalHosts ? shown.reduce(0) { max($0, TextWidth.of($1.host ?? "")) } : nil
        let idNeed = shown.reduce(0) { max($0, "#\($1.id)".count) }
        let columns = layout(width: width, nameNeed: nameNeed, hostNeed: hostNeed, idNeed: idNeed)
        var lines = [StyledLine(columns.map { TextWidth.fit($0.0.title, to: $0.1, alignRight: $0.0.alignRight) }
            .joined(separator: " "), .header)]
        if rows.isEmpty {
            let hint = model.rows.isEmpty ? "No tasks. Press a to add a URL." : "No task matches the filter (Esc clears it)."
            lines.append(StyledLine(" " + hint, .help))
        }
        for row in shown {
            lines.append(line(row, name: names[row.id] ?? row.name, columns: columns, now: model.now,
                              selected: row.id == model.selectedID))
        }
        while lines.count < height { lines.append(StyledLine("", .help)) }
        return lines
    }

    private static func line(_ row: TaskRow, name: String, columns: [(Column, Int)], now: UInt64, selected: Bool) -> StyledLine {
        let element = selected ? Element.selected : rowElement(row, now: now)
        var spans: [Span] = []
        for (i, (column, width)) in columns.enumerated() {
            if i > 0 { spans.append(Span(" ", element)) }
            switch column {
            case .bar: spans += bar(row, width: width, now: now, rowElement: element)
            case .name, .host:
                let text = TextWidth.middle(column == .name ? name : row.host ?? "", to: width)
                spans.append(Span(TextWidth.fit(text, to: width), element))
            default:
                spans.append(Span(TextWidth.fit(cell(column, row, now: now), to: width, alignRight: column.alignRight), element))
            }
        }
        return StyledLine(spans)
    }

    static func rowElement(_ row: TaskRow, now: UInt64) -> Element {
        if row.awaitingDisposition { return .rowAwaiting }
        switch row.state {
        case .running: return row.isStalled(now: now) ? .rowStalled : .rowRunning
        case .suspended: return .rowSuspended
        case .canceling: return .rowCanceling
        case .completed:
            if row.isFailed { return .rowFailed }
            return row.outcome == .cancelled ? .rowCancelled : .rowFinished
        }
    }

    private static func cell(_ column: Column, _ row: TaskRow, now: UInt64) -> String {
        switch column {
        case .id: return "#\(row.id)"
        case .state: return row.stateWord
        case .name, .host, .bar: return ""
        case .percent:
            // Its bytes went on elsewhere, or are an error page (not the file's progress).
            guard row.becameTask == nil, row.retry == nil, row.httpFailure == nil else { return "" }
            return row.fraction.map { "\(Int($0 * 100))%" } ?? ""
        case .bytes: return ByteCountText.format(row.bytes)
        case .rate:
            if row.isStalled(now: now) { return "stalled" }
            return row.bytesPerSecond(now: now).map(ByteCountText.rate) ?? ""
        case .eta: return row.eta(now: now).map(Format.duration) ?? ""
        case .chunks: return row.chunks > 0 ? "x\(row.chunks)" : ""
        case .kind: return row.kind.rawValue
        }
    }

    /// A filled bar for a known length, a sliding block for an unknown one (never a false 0 %), and once the
    /// task has completed, why it failed in the longest words that fit, or where it went.
    private static func bar(_ row: TaskRow, width: Int, now: UInt64, rowElement: Element) -> [Span] {
        if row.state == .completed {
            let text: String
            if let words = row.failureWords {
                text = words.first { TextWidth.of($0) <= width } ?? words[words.count - 1]
            } else if let next = row.becameTask {
                text = "→ download #\(next)"
            } else if row.outcome == .cancelled {
                text = row.keptForResume ? "partial file kept" : "cancelled"
            } else if let path = row.savedPath {
                text = "saved " + TextWidth.middle(Sanitized.text(path.split(separator: "/").last.map(String.init) ?? path),
                                                   to: max(1, width - 6))
            } else {
                return [Span(RepeatedText.of("█", count: width), .barFill)]
            }
            return [Span(TextWidth.fit(text, to: width), rowElement)]
        }
        if row.awaitingDisposition {
            return [Span(TextWidth.fit(width >= 14 ? "awaiting r/c/d" : "r/c/d?", to: width), rowElement)]
        }
        if let retry = row.retry, row.state == .suspended {
            return [Span(TextWidth.fit(retry.text(now: now), to: width), rowElement)]
        }
        if !row.hasStarted && row.state == .suspended { return [Span(RepeatedText.of("·", count: width), .barEmpty)] }
        guard let fraction = row.fraction else {
            let block = min(3, width)
            let period = max(1, width - block + 1)
            let at = row.state == .running ? Int(now / 150_000_000) % period : 0
            return [Span(RepeatedText.of("░", count: at), .barUnknown),
                    Span(RepeatedText.of("▓", count: block), .barUnknown),
                    Span(RepeatedText.of("░", count: max(0, width - at - block)), .barUnknown)]
        }
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        return [Span(RepeatedText.of("█", count: filled), .barFill),
                Span(RepeatedText.of("░", count: width - filled), .barEmpty)]
    }
}
