// The task list: one line per task with a progress bar; columns drop, least useful first, as the width shrinks.
import SluiceEngine
import SluiceViewModel

enum TaskList {
    private enum Column: CaseIterable {
        case id, state, bar, percent, bytes, rate, eta, chunks, kind, url

        var title: String {
            switch self {
            case .id: "#"
            case .state: "state"
            case .bar: "progress"
            case .percent: "%"
            case .bytes: "bytes"
            case .rate: "rate"
            case .eta: "ETA"
            case .chunks: "chunks"
            case .kind: "kind"
            case .url: "URL"
            }
        }

        var width: Int {
            switch self {
            case .id: 4
            case .state: 9
            case .bar: 8
            case .percent: 4
            case .bytes: 9
            case .rate: 10
            case .eta: 6
            case .chunks: 7
            case .kind: 8
            case .url: 12
            }
        }

        var alignRight: Bool { [.percent, .bytes, .rate, .eta, .chunks].contains(self) }
    }

    /// Optional columns in the order they earn their place.
    private static let optional: [Column] = [.percent, .rate, .bytes, .eta, .url, .chunks, .kind]

    private static func layout(width: Int) -> [(Column, Int)] {
        var chosen: Set<Column> = [.id, .state, .bar]
        var left = width - Column.id.width - Column.state.width - Column.bar.width - 2
        for column in optional where left >= column.width + 1 {
            chosen.insert(column)
            left -= column.width + 1
        }
        let barGrowth = min(left, 12)  // past 20 columns a bar says no more; the URL does
        left -= barGrowth
        return Column.allCases.filter(chosen.contains).map { column in
            switch column {
            case .bar: (column, Column.bar.width + barGrowth + (chosen.contains(.url) ? 0 : left))
            case .url: (column, Column.url.width + left)
            default: (column, column.width)
            }
        }
    }

    static func lines(_ model: Model, width: Int, height: Int) -> [StyledLine] {
        let columns = layout(width: width)
        var lines = [StyledLine(columns.map { TextWidth.fit($0.0.title, to: $0.1, alignRight: $0.0.alignRight) }
            .joined(separator: " "), .header)]
        let rows = model.visibleRows
        let room = max(0, height - 1)
        if rows.isEmpty {
            let hint = model.rows.isEmpty ? "No tasks. Press a to add a URL." : "No task matches the filter (Esc clears it)."
            lines.append(StyledLine(" " + hint, .help))
        }
        let selectedIndex = rows.firstIndex { $0.id == model.selectedID } ?? 0
        let start = selectedIndex >= room ? selectedIndex - room + 1 : 0
        for row in rows.dropFirst(start).prefix(room) {
            lines.append(line(row, columns: columns, now: model.now, selected: row.id == model.selectedID))
        }
        while lines.count < height { lines.append(StyledLine("", .help)) }
        return lines
    }

    private static func line(_ row: TaskRow, columns: [(Column, Int)], now: UInt64, selected: Bool) -> StyledLine {
        let element = selected ? Element.selected : rowElement(row, now: now)
        var spans: [Span] = []
        for (i, (column, width)) in columns.enumerated() {
            if i > 0 { spans.append(Span(" ", element)) }
            if column == .bar {
                spans += bar(row, width: width, now: now, rowElement: element)
            } else {
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
            switch row.outcome {
            case .failed: return .rowFailed
            case .cancelled: return .rowCancelled
            default: return .rowFinished
            }
        }
    }

    private static func cell(_ column: Column, _ row: TaskRow, now: UInt64) -> String {
        switch column {
        case .id: return "#\(row.id)"
        case .state: return row.awaitingDisposition ? "awaiting" : row.state.rawValue
        case .bar: return ""
        case .percent:
            guard row.becameTask == nil else { return "" }  // its bytes went on in the download's row
            return row.fraction.map { "\(Int($0 * 100))%" } ?? ""
        case .bytes: return ByteCountText.format(row.bytes)
        case .rate:
            if row.isStalled(now: now) { return "stalled" }
            return row.bytesPerSecond(now: now).map(ByteCountText.rate) ?? ""
        case .eta: return row.eta(now: now).map(Format.duration) ?? ""
        case .chunks: return row.chunks > 0 ? "x\(row.chunks)" : ""
        case .kind: return row.kind.rawValue
        case .url: return Sanitized.text(row.url)
        }
    }

    /// A filled bar for a known length, a sliding block for an unknown one (never a false 0 %), and the
    /// outcome in words once the task has completed.
    private static func bar(_ row: TaskRow, width: Int, now: UInt64, rowElement: Element) -> [Span] {
        if row.state == .completed {
            let text: String
            switch row.outcome {
            case .failed(let why): text = "failed: " + Sanitized.text(why)
            case .cancelled: text = "cancelled"
            default:
                if let next = row.becameTask { text = "→ download #\(next)" }
                else if let path = row.savedPath { text = "finished → " + Sanitized.text(path) }
                else { text = "finished" }
            }
            return [Span(TextWidth.fit(text, to: width), rowElement)]
        }
        if row.awaitingDisposition { return [Span(TextWidth.fit("awaiting r/c/d", to: width), rowElement)] }
        guard let fraction = row.fraction else {
            let block = min(3, width)
            let period = max(1, width - block + 1)
            let at = row.state == .running ? Int(now / 150_000_000) % period : 0
            return [Span(String(repeating: "░", count: at), .barUnknown),
                    Span(String(repeating: "▓", count: block), .barUnknown),
                    Span(String(repeating: "░", count: max(0, width - at - block)), .barUnknown)]
        }
        let filled = min(width, Int((fraction * Double(width)).rounded(.down)))
        return [Span(String(repeating: "█", count: filled), .barFill),
                Span(String(repeating: "░", count: width - filled), .barEmpty)]
    }
}
