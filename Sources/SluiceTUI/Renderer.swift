// The whole screen as a pure function of the model, the UI state and the terminal size: lines of styled text,
// each exactly `width` columns wide. Server text is sanitized here, before it is measured or drawn.
import SluiceEngine
import SluiceViewModel

public enum Renderer {
    public static let minimumWidth = 20
    public static let minimumHeight = 5

    /// `flows` holds what each task did, for the sequence view (`v`).
    public static func render(model: Model, ui: UIState, width: Int, height: Int, flows: FlowLog = FlowLog()) -> [StyledLine] {
        guard width >= minimumWidth, height >= minimumHeight else { return tooSmall(width: width, height: height) }
        var lines: [StyledLine] = [titleLine(model, ui)]
        let bodyHeight = height - 2
        switch ui.mode {
        case .help:
            lines += helpLines(height: bodyHeight, width: width)
        default:
            lines += body(model, ui, flows, width: width, height: bodyHeight)
        }
        lines.append(bottomLine(model, ui, width: width))
        let fitted = lines.prefix(height).map { $0.fitted(to: width, fill: fillElement(of: $0)) }
        return ui.asciiArt ? fitted.map { $0.asciiGlyphs() } : fitted
    }

    private static func fillElement(of line: StyledLine) -> Element {
        guard let first = line.spans.first else { return .help }
        return [.title, .selected, .header].contains(first.element) ? first.element : .help
    }

    /// The size needed and the size now, over as many lines as the screen has (on one line of 19 columns the size
    /// now was cut off: found by a tester).
    private static func tooSmall(width: Int, height: Int) -> [StyledLine] {
        let text = "Sluice needs \(minimumWidth)x\(minimumHeight) (now \(width)x\(height))"
        let lines = TextWidth.wrap(text, to: width, maxLines: height)
        return (0..<max(0, height)).map { i in
            StyledLine(TextWidth.fit(i < lines.count ? lines[i] : "", to: max(0, width)), .message)
        }
    }

    // MARK: Title and bottom lines

    private static func titleLine(_ model: Model, _ ui: UIState) -> StyledLine {
        let rows = model.rows  // read in place, by index: a row copied per frame and per row cost a retain per field
        var total = 0.0
        for i in rows.indices where rows[i].state == .running { total += rows[i].bytesPerSecond(now: model.now) ?? 0 }
        let counts = model.counts
        var text = " Sluice" + (ui.attachedTo.map { " @ daemon " + Sanitized.text($0) } ?? "") + "  \(model.rows.count) task\(model.rows.count == 1 ? "" : "s") · \(counts.active) active"
        if counts.queued > 0 { text += " · \(counts.queued) queued" }
        if counts.failed > 0 { text += " · \(counts.failed) failed" }  // before suspended: a narrow title keeps it
        if counts.suspended > 0 { text += " · \(counts.suspended) suspended" }
        if total > 0 { text += " · " + ByteCountText.rate(total) }
        if let limit = model.sessionRateLimit { text += " (limit " + ByteCountText.rate(Double(limit)) + ")" }
        // The whole list, once it is more than one: how many have ended and when the rest will have (a message for
        // the user, which needs the room more, takes its place).
        if model.rows.count > 1 && ui.message == nil {
            let list = ListProgress.of(model)
            if list.ended > 0 || list.eta != nil { text += " · \(list.ended)/\(list.total) ended" }
            if let eta = list.eta { text += " · all in " + Format.duration(eta) }
        }
        if model.sort != .added { text += " · sort: \(model.sort.rawValue)" }
        // How many the filter shows: the count above is the whole list's (found by a tester).
        if !model.filter.isEmpty { text += " · filter: " + Sanitized.text(model.filter) + " (\(model.visibleCount) shown)" }
        var spans = [Span(text, .title)]
        if let message = ui.message { spans.append(Span("  " + Sanitized.text(message), .message)) }
        return StyledLine(spans)
    }

    private static func bottomLine(_ model: Model, _ ui: UIState, width: Int) -> StyledLine {
        switch ui.mode {
        case .prompt(let kind, let text):
            let label = switch kind {
            case .addURL: "Add URL (Tab: as download): "
            case .addDownload: "Add download (Tab: as data task): "
            case .filter: "Filter: "
            case .concurrency: "Transfers at once: "
            case .sessionRate: "Limit all transfers to (2M, 500k; 0 for none): "
            case .taskRate(let id): "Limit #\(id) to (2M, 500k; 0 for none): "
            case .refreshURL(let id): "New URL for #\(id): "
            }
            // The end of what is typed stays in sight, as in a shell: a pasted URL or curl command is longer than the
            // line. A label that leaves little room gives way to "> ".
            let shownLabel = width - TextWidth.of(label) - 1 < 12 ? "> " : label
            let room = max(2, width - TextWidth.of(shownLabel) - 1)
            return StyledLine([Span(shownLabel, .prompt), Span(TextWidth.keepingEnd(Sanitized.text(text), to: room) + "▏", .prompt)])
        case .confirmQuit:
            // Only suspended or queued tasks left: nothing is running, and a suspended download stays so next time.
            let running = model.counts.active > 0
            let lead = running ? "Transfers are still running." : "Tasks are suspended or waiting their turn."
            return confirm(ui.quitKeepsDownloads
                ? lead + (running ? " Quit? Downloads resume next time" : " Quit? Downloads are kept for next time") + ", data tasks are cancelled."
                : lead + " Quit and cancel them?", width: width)
        case .confirmPurge(let id, let path):
            let what = path.map { "delete " + Sanitized.text($0) } ?? "delete what it left (no saved file)"
            return confirm("Remove #\(id) and \(what)?", width: width)
        case .confirmCancel(let id):
            let bytes = model.row(id).map { ByteCountText.format($0.bytes) } ?? "the bytes"
            return confirm("Cancel #\(id) and delete the \(bytes) it has downloaded?", answers: "(y/n; s suspends it instead)",
                           short: "(y/n/s)", width: width)
        case .confirmClearEnded(let count):
            return confirm("Remove the \(count) task\(count == 1 ? "" : "s") that ended from the list and the history? Files stay.", width: width)
        case .confirmStopDaemon:
            return confirm("Stop the daemon? Its downloads keep their bytes and resume when it starts again; data tasks are cancelled.",
                           width: width)
        case .help:
            return keyBar(Action.helpBar, width: width)
        case .normal:
            return keyBar(Action.keyBar, width: width)
        }
    }

    /// A question and the keys that answer it: a line too narrow cuts the question, never the answers (a 20-column
    /// terminal showed "Transfers are still…" and no "(y/n)"; found by a tester).
    private static func confirm(_ question: String, answers long: String = "(y/n)", short: String = "(y/n)",
                                width: Int) -> StyledLine {
        let answers = TextWidth.of(long) + 8 <= width ? long : short
        let room = width - TextWidth.of(answers) - 1
        let shown = room >= 2 ? TextWidth.truncate(question, to: room) : ""
        return StyledLine(shown.isEmpty ? answers : shown + " " + answers, .prompt)
    }

    /// The actions whose key and word fit whole; help and quit are kept first, so a narrow terminal still says
    /// how to find the rest and how to leave.
    private static func keyBar(_ actions: [Action], width: Int) -> StyledLine {
        func item(_ action: Action) -> [Span] { [Span(action.keys[0].name, .key), Span(" \(action.label)  ", .keyHelp)] }
        func columns(_ action: Action) -> Int { item(action).reduce(0) { $0 + TextWidth.of($1.text) } }
        var room = width + 2  // the last item's two trailing spaces may fall off the edge
        var kept: Set<Action> = []
        for action in actions.filter({ [.help, .quit].contains($0) }) + actions.filter({ ![.help, .quit].contains($0) })
        where columns(action) <= room {
            kept.insert(action)
            room -= columns(action)
        }
        return StyledLine(actions.filter(kept.contains).flatMap(item))
    }

    /// Every action, one to a line; on a screen too short for all of them the title goes, then the actions flow
    /// into two columns, so that none (least of all quit) falls off the bottom.
    private static func helpLines(height: Int, width: Int) -> [StyledLine] {
        let items = Action.allCases.map { action in
            [Span("  " + TextWidth.fit(action.keys.map(\.name).joined(separator: " "), to: 8), .key), Span(action.summary, .help)]
        }
        if items.count + 1 <= height { return pad([StyledLine(" Keys", .header)] + items.map(StyledLine.init), to: height) }
        if items.count <= height { return pad(items.map(StyledLine.init), to: height) }
        let rows = (items.count + 1) / 2
        let half = width / 2
        let lines = (0..<rows).map { i -> StyledLine in
            let left = StyledLine(items[i]).fitted(to: half, fill: .help)
            return StyledLine(left.spans + (i + rows < items.count ? items[i + rows] : []))
        }
        return pad(lines, to: height)
    }

    private static func pad(_ lines: [StyledLine], to height: Int) -> [StyledLine] {
        Array(lines.prefix(height)) + Array(repeating: StyledLine("", .help), count: max(0, height - lines.count))
    }

    // MARK: List and detail

    private static func body(_ model: Model, _ ui: UIState, _ flows: FlowLog, width: Int, height: Int) -> [StyledLine] {
        if ui.pane == .detail { return detail(model, ui, flows, width: width, height: height) }
        // A detail pane under the list when there is room for both; Tab shows it alone on small screens.
        let detailHeight = height >= 14 ? height * 2 / 5 : 0
        let listHeight = height - detailHeight
        var lines = TaskList.lines(model, width: width, height: listHeight)
        if detailHeight > 0 {
            lines.append(StyledLine(RepeatedText.of(ui.asciiArt ? "-" : "─", count: width), .header))
            lines += detail(model, ui, flows, width: width, height: detailHeight - 1)
        }
        return lines
    }

    /// Whether a frame drawn for `ui` reads the flows: only the sequence diagram does (the loop folds them for it).
    public static func readsFlows(_ ui: UIState) -> Bool { ui.detailView == .sequence }

    /// The selected task in full, or its sequence diagram (following the newest call while the list has the keys).
    private static func detail(_ model: Model, _ ui: UIState, _ flows: FlowLog, width: Int, height: Int) -> [StyledLine] {
        switch ui.detailView {
        case .timeline:
            return pad(DetailPane.lines(model.selected, now: model.now, scroll: ui.detailScroll, width: width, ascii: ui.asciiArt), to: height)
        case .sequence:
            let back = ui.pane == .detail ? ui.detailScroll : 0
            return pad(SequenceView.lines(model.selected, flows: flows, width: width, height: height, back: back,
                                          ascii: ui.asciiArt), to: height)
        }
    }
}
