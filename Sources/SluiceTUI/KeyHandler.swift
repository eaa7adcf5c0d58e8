// Keys to state changes and commands, as a pure function: every action of the registry, in every mode.
import SluiceViewModel

public enum KeyHandler {
    public static func handle(_ key: Key, ui: inout UIState, model: inout Model) -> [UICommand] {
        if key == .pasteStart || key == .pasteEnd || ui.pasting { return pasted(key, ui: &ui, model: &model) }
        switch ui.mode {
        case .help:
            if let action = Action.action(for: key), [.close, .help, .quit].contains(action) { ui.mode = .normal }
            return []
        case .confirmQuit, .confirmPurge, .confirmCancel, .confirmClearEnded, .confirmStopDaemon:
            return answer(key, ui: &ui, model: &model)
        case .prompt(let kind, let text):
            return prompt(kind, text, key, ui: &ui, model: &model)
        case .normal:
            guard let action = Action.action(for: key) else { return [] }
            return perform(action, ui: &ui, model: &model)
        }
    }

    /// A y/n question's key: y carries the question out, n or Esc closes it, `s` in the cancel question suspends
    /// instead; any other key leaves it open.
    private static func answer(_ key: Key, ui: inout UIState, model: inout Model) -> [UICommand] {
        let question = ui.mode
        if key == .character("n") || key == .character("N") || key == .escape {
            ui.mode = .normal
            return []
        }
        if case .confirmCancel(let id) = question, key == .character("s") {
            ui.mode = .normal
            return [.intent(.suspend(id))]
        }
        guard key == .character("y") || key == .character("Y") else { return [] }
        switch question {
        case .confirmQuit:
            return [.quit]
        case .confirmPurge(let id, let path):
            ui.mode = .normal
            guard model.remove(id) else {
                ui.message = "#\(id) is under way again: nothing removed"
                return []
            }
            return [.purge(id, savedPath: path)]
        case .confirmCancel(let id):
            ui.mode = .normal
            return [.intent(.cancel(id))]
        case .confirmClearEnded:
            ui.mode = .normal
            let ended = model.rows.filter(\.isFinished).map(\.id)  // as they are now: one may have ended meanwhile
            for id in ended { _ = model.remove(id) }
            ui.message = "removed \(ended.count) task\(ended.count == 1 ? "" : "s") that had ended"
            return ended.map { .forget($0) }
        case .confirmStopDaemon:
            ui.mode = .normal
            return [.stopDaemon]
        case .normal, .help, .prompt:
            assertionFailure("answer(_:ui:model:) is for y/n questions; \(question) is none")  // `handle` sends only those
            return []
        }
    }

    /// Rows (or detail lines) one PgUp or PgDn moves.
    public static let pageStep = 10

    private static func perform(_ action: Action, ui: inout UIState, model: inout Model) -> [UICommand] {
        ui.message = nil
        switch action {
        case .resume, .suspend, .cancel, .convert:
            guard let row = selected(model, &ui) else { return [] }
            guard !row.isFinished else {
                ui.message = "#\(row.id) has ended (\(row.stateWord))"
                return []
            }
            switch action {
            case .resume: return [.intent(.resume(row.id))]
            case .suspend: return [.intent(.suspend(row.id))]
            case .cancel:
                // A download's bytes go with it: asked first, as X asks before deleting a file.
                if row.kind == .download && row.bytes > 0 {
                    ui.mode = .confirmCancel(row.id)
                    return []
                }
                return [.intent(.cancel(row.id))]
            default: return [.intent(.convert(row.id))]
            }
        case .add:
            ui.mode = .prompt(ui.addsDownloads ? .addDownload : .addURL, "")
        case .concurrency:
            ui.mode = .prompt(.concurrency, "")
        case .sessionRate:
            ui.mode = .prompt(.sessionRate, "")
        case .taskRate:
            guard let row = selected(model, &ui) else { return [] }
            ui.mode = .prompt(.taskRate(row.id), "")
        case .moveUp, .moveDown:
            guard let row = selected(model, &ui) else { return [] }
            return [.intent(.move(row.id, by: action == .moveUp ? 1 : -1))]
        case .remove:
            guard let row = selected(model, &ui) else { return [] }
            guard model.remove(row.id) else {
                ui.message = "only completed tasks can be removed"
                return []
            }
            return [.forget(row.id)]
        case .filter:
            ui.mode = .prompt(.filter, model.filter)
        case .sort:
            model.sort = model.sort.next
            ui.message = "sorted by \(model.sort.rawValue)"
        case .pane:
            ui.pane = ui.pane == .list ? .detail : .list
            ui.detailScroll = 0
        case .sequence:
            ui.detailView = ui.detailView == .timeline ? .sequence : .timeline
            ui.detailScroll = 0
        case .mermaid, .har:
            guard let row = selected(model, &ui) else { return [] }
            return [.export(action == .mermaid ? .mermaid(row.id) : .har(row.id))]
        case .harAll:
            guard model.rows.contains(where: \.isFinished) else {
                ui.message = "no task has completed yet"
                return []
            }
            return [.export(.harOfCompleted)]
        case .up, .down, .pageUp, .pageDown:
            let step = [.up: -1, .down: 1, .pageUp: -pageStep, .pageDown: pageStep][action] ?? 0
            // The sequence counts back from its newest line (0 follows it live), so up scrolls further back.
            let scroll = ui.detailView == .sequence ? -step : step
            if ui.pane == .detail { ui.detailScroll = max(0, ui.detailScroll + scroll) } else { model.moveSelection(by: step) }
        case .first, .last:
            if action == .first { model.selectFirst() } else { model.selectLast() }
            ui.detailScroll = 0
        case .close:
            if !model.filter.isEmpty { model.filter = "" }
        case .help:
            ui.mode = .help
        case .quit:
            // Attached, `q` only detaches: the daemon's transfers go on, so there is nothing to confirm.
            if model.runningCount > 0 && ui.attachedTo == nil { ui.mode = .confirmQuit } else { return [.quit] }
        case .suspendAll:
            return [.intent(.suspendAll)]
        case .resumeAll:
            return [.intent(.resumeAll)]
        case .clearFinished:
            let ended = model.rows.filter(\.isFinished).count
            guard ended > 0 else {
                ui.message = "no task has ended"
                return []
            }
            ui.mode = .confirmClearEnded(ended)  // the history cannot be brought back: asked, as X and Q ask
        case .purge:
            guard let row = selected(model, &ui) else { return [] }
            guard row.isFinished else {
                ui.message = "#\(row.id) is \(row.stateWord): cancel it first (c); X removes a task that has ended, with its file"
                return []
            }
            ui.mode = .confirmPurge(row.id, model.savedFileToPurge(row.id))
        case .taskCommand:
            guard let command = ui.taskCommand else {
                ui.message = "no task-command in the config file (~/.config/sluice/config.toml)"
                return []
            }
            guard let row = selected(model, &ui) else { return [] }
            return [.runCommand(command, EndedTask(row))]
        case .refresh:
            guard let row = selected(model, &ui) else { return [] }
            guard row.kind == .download else {
                ui.message = "#\(row.id) is a data task: only a download keeps bytes to go on with"
                return []
            }
            ui.mode = .prompt(.refreshURL(row.id), "")
        case .open, .openFolder:
            guard let row = selected(model, &ui) else { return [] }
            guard let path = row.savedPath else {
                ui.message = "#\(row.id) has no saved file " + (action == .open ? "to open" : "whose folder to open")
                return []
            }
            guard action == .openFolder, let slash = path.lastIndex(of: "/") else { return [.open(path)] }
            return [.open(slash == path.startIndex ? "/" : String(path[..<slash]))]
        case .stopDaemon:
            if ui.attachedTo == nil {
                ui.message = "Q stops a daemon this UI is attached to (sluice attach); these transfers are this UI's own"
            } else {
                ui.mode = .confirmStopDaemon
            }
        }
        return []
    }

    /// The selected row, or nil with the message saying none is.
    private static func selected(_ model: Model, _ ui: inout UIState) -> TaskRow? {
        if model.selected == nil { ui.message = "no task selected" }
        return model.selected
    }

    /// A pasted key: text for an open prompt, where a line break is a space (it never submits) and every other key
    /// (an escape, an arrow: an escape sequence in the text) is dropped; outside a prompt, nothing at all.
    private static func pasted(_ key: Key, ui: inout UIState, model: inout Model) -> [UICommand] {
        switch key {
        case .pasteStart:
            ui.pasting = true
        case .pasteEnd:
            ui.pasting = false
            if case .prompt = ui.mode { break }
            ui.message = "pasted text goes into a prompt: press a, then paste, to add a URL"
        case .character(let c) where !c.isNewline:
            guard case .prompt(let kind, let text) = ui.mode else { break }
            return prompt(kind, text, key, ui: &ui, model: &model)
        case .enter, .character:
            guard case .prompt(let kind, let text) = ui.mode else { break }
            // A pasted command's ` \` and line break join its lines, as when they come typed; any other break is a space.
            let joins = continuesOnNextLine(kind, text)
            return prompt(kind, text, joins ? .enter : .character(" "), ui: &ui, model: &model)
        default:
            break
        }
        return []
    }

    /// An add prompt whose text ends in a pasted command's ` \`: its next line belongs to it.
    private static func continuesOnNextLine(_ kind: UIState.Prompt, _ text: String) -> Bool {
        (kind == .addURL || kind == .addDownload) && text.hasSuffix("\\")
    }

    private static func prompt(_ kind: UIState.Prompt, _ text: String, _ key: Key, ui: inout UIState,
                               model: inout Model) -> [UICommand] {
        var text = text
        switch key {
        case .escape:
            ui.mode = .normal
            if kind == .filter { model.filter = "" }
            return []
        case .enter where continuesOnNextLine(kind, text):
            // A pasted command's line ends in ` \` and its line break arrives as Enter: the command goes on.
            text.removeLast()
            text.append(" ")
        case .enter:
            ui.mode = .normal
            let entered = text.trimmingBlanks()
            guard !entered.isEmpty else { return [] }
            switch kind {
            case .addURL: return [.intent(.add(entered, .data))]
            case .addDownload: return [.intent(.add(entered, .download))]
            case .concurrency:
                guard let limit = Int(entered), limit >= 1, limit <= 10_000 else {
                    ui.message = "transfers at once: a number from 1 to 10000"
                    return []
                }
                return [.intent(.setConcurrency(limit))]
            case .sessionRate, .taskRate:
                guard let bytes = ByteCountText.parse(entered) else {
                    ui.message = "a rate: bytes per second, or with k, m or g (500k, 2M); 0 for none"
                    return []
                }
                let limit = bytes > 0 ? bytes : nil
                if case .taskRate(let id) = kind { return [.intent(.setTaskRate(id, limit))] }
                return [.intent(.setSessionRate(limit))]
            case .filter: return []
            case .refreshURL(let id): return [.intent(.refresh(id, entered))]
            }
        case .tab where kind == .addURL || kind == .addDownload:
            ui.mode = .prompt(kind == .addURL ? .addDownload : .addURL, text)
            return []
        case .backspace:
            if !text.isEmpty { text.removeLast() }
        case .character(let c):
            guard !c.isNewline, c.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else { return [] }
            // A pasted curl command with a browser's cookies runs to several kilobytes.
            if text.utf8.count < (kind == .addURL || kind == .addDownload ? 65536 : 2048) { text.append(c) }
        default:
            return []
        }
        ui.mode = .prompt(kind, text)
        if kind == .filter { model.filter = text }  // the list narrows while typing
        return []
    }
}
