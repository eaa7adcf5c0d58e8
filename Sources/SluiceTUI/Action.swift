// Every key the UI answers, in one list: the key map, the key bar and the help screen are all built from it,
// so no key is shown that does nothing and no working key goes unlisted.

public enum Action: String, CaseIterable, Sendable {
    case resume, suspend, cancel, convert, add, remove, filter, sort, pane, sequence, mermaid, har, harAll
    case moveUp, moveDown, concurrency, sessionRate, taskRate
    case up, down, pageUp, pageDown, first, last, close, help, quit, stopDaemon
    case suspendAll, resumeAll, clearFinished, purge, open, openFolder, refresh, taskCommand

    /// The keys, as `Key` values and as the help screen spells them.
    public var keys: [Key] {
        switch self {
        case .resume: [.character("r")]
        case .suspend: [.character("s")]
        case .cancel: [.character("c")]
        case .convert: [.character("d")]
        case .add: [.character("a")]
        case .remove: [.character("x")]
        case .filter: [.character("/")]
        case .sort: [.character("o")]
        case .pane: [.tab]
        case .sequence: [.character("v")]
        case .mermaid: [.character("m")]
        case .har: [.character("h")]
        case .harAll: [.character("H")]
        case .moveUp: [.character("+")]
        case .moveDown: [.character("-")]
        case .concurrency: [.character("J")]
        case .sessionRate: [.character("L")]
        case .taskRate: [.character("l")]
        case .up: [.up, .character("k")]
        case .down: [.down, .character("j")]
        case .pageUp: [.pageUp]
        case .pageDown: [.pageDown]
        case .first: [.home, .character("g")]
        case .last: [.end, .character("G")]
        case .close: [.escape]
        case .help: [.character("?")]
        case .quit: [.character("q")]
        case .stopDaemon: [.character("Q")]
        case .suspendAll: [.character("P")]
        case .resumeAll: [.character("R")]
        case .clearFinished: [.character("C")]
        case .purge: [.character("X")]
        case .open: [.character("O")]
        case .openFolder: [.character("F")]
        case .refresh: [.character("U")]
        case .taskCommand: [.character("!")]
        }
    }

    /// A word for the key bar.
    public var label: String {
        switch self {
        case .resume: "resume"
        case .suspend: "suspend"
        case .cancel: "cancel"
        case .convert: "download"
        case .add: "add"
        case .remove: "remove"
        case .filter: "filter"
        case .sort: "sort"
        case .pane: "pane"
        case .sequence: "sequence"
        case .mermaid: "mermaid"
        case .har: "har"
        case .harAll: "har all"
        case .moveUp: "queue up"
        case .moveDown: "queue down"
        case .concurrency: "jobs"
        case .sessionRate: "limit all"
        case .taskRate: "limit"
        case .up: "up"
        case .down: "down"
        case .pageUp: "page up"
        case .pageDown: "page down"
        case .first: "first"
        case .last: "last"
        case .close: "close"
        case .help: "help"
        case .quit: "quit"
        case .stopDaemon: "stop daemon"
        case .suspendAll: "pause all"
        case .resumeAll: "resume all"
        case .clearFinished: "clear finished"
        case .purge: "delete"
        case .open: "open"
        case .openFolder: "folder"
        case .refresh: "new URL"
        case .taskCommand: "run command"
        }
    }

    public var summary: String {
        switch self {
        case .resume: "resume a suspended task; allow a task awaiting its response"
        case .suspend: "suspend a running task (its bytes really stop)"
        case .cancel: "cancel a task; cancel a task awaiting its response"
        case .convert: "turn the task into a download (saved in the output directory)"
        case .add: "add a URL as a data task or (Tab in the prompt) as a download"
        case .remove: "remove a completed task from the list"
        case .filter: "show only tasks whose name or URL contains some text"
        case .sort: "sort by order added, progress, state or name"
        case .pane: "switch between the task list and the detail pane"
        case .sequence: "show the delegate calls as a sequence diagram, or as the timeline list"
        case .mermaid: "write the task's flow as a Mermaid diagram (NAME.mmd in the output directory)"
        case .har: "write the task's requests and responses as a HAR file (NAME.har)"
        case .harAll: "write every completed task into one HAR file (sluice-tasks.har)"
        case .moveUp: "move a queued task one place nearer the front of the queue"
        case .moveDown: "move a queued task one place further back in the queue"
        case .concurrency: "change how many transfers run at once (-j)"
        case .sessionRate: "limit the receive rate of all transfers together (--limit-rate)"
        case .taskRate: "limit the selected task's receive rate"
        case .up: "select the task above (in the detail pane: scroll)"
        case .down: "select the task below (in the detail pane: scroll)"
        case .pageUp: "move a page up (in the detail pane: scroll)"
        case .pageDown: "move a page down (in the detail pane: scroll)"
        case .first: "select the first task"
        case .last: "select the last task"
        case .close: "close a prompt or this help; clear the filter"
        case .help: "show or hide this help"
        case .quit: "quit (asks first while transfers run); attached to the daemon: detach, transfers go on"
        case .stopDaemon: "attached to the daemon: stop it (asks first); its downloads resume when it starts again"
        case .suspendAll: "suspend every running task (pause all)"
        case .resumeAll: "resume every suspended task"
        case .clearFinished: "remove every task that has ended from the list and the history"
        case .purge: "remove a task that has ended and delete its file (asks first)"
        case .open: "open the selected download's file (xdg-open)"
        case .openFolder: "open the folder that holds the selected download's file (xdg-open)"
        case .refresh: "give a stopped or failed download a new URL (an expired link), keeping its bytes"
        case .taskCommand: "run the config file's task-command on the selected task (SLUICE_* variables)"
        }
    }

    /// The key bar shows these, in this order, as far as the width allows.
    public static let keyBar: [Action] = [.resume, .suspend, .cancel, .convert, .sequence, .add, .remove, .filter, .help, .quit]
    /// The key bar while the help is open: the keys that close it.
    public static let helpBar: [Action] = [.close, .help]

    public static func action(for key: Key) -> Action? { allCases.first { $0.keys.contains(key) } }
}

/// A key press, already decoded from curses.
public enum Key: Equatable, Hashable, Sendable {
    case character(Character)
    case up, down, left, right, pageUp, pageDown, home, end, tab, enter, escape, backspace, resize
    /// The terminal's bracketed paste marks: what comes between them was pasted, not typed.
    case pasteStart, pasteEnd

    public var name: String {
        switch self {
        case .character(let c): String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .tab: "Tab"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .resize: "resize"
        case .pasteStart: "paste"
        case .pasteEnd: "paste end"
        }
    }
}
