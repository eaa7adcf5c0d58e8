// What the screen shows besides the model: help, a prompt, the quit question, the focused pane, a message.
import SluiceViewModel

public struct UIState: Equatable, Sendable {
    public enum Mode: Equatable, Sendable {
        case normal
        case help
        case prompt(Prompt, String)
        case confirmQuit
        /// `Q` while attached: stop the daemon itself?
        case confirmStopDaemon
        /// `X`: remove this row and delete its file (the path shown)?
        case confirmPurge(Int, String?)
        /// `c` on a download that has bytes: cancel it and delete them (`s` suspends instead)?
        case confirmCancel(Int)
        /// `C`: remove every ended row (this many) from the list and the history?
        case confirmClearEnded(Int)
    }

    /// What a prompt asks for: a URL to add as a data task or as a download (Tab switches), a filter, how many
    /// transfers run at once, or a receive limit for all of them or for one.
    public enum Prompt: Equatable, Sendable { case addURL, addDownload, filter, concurrency, sessionRate, taskRate(Int), refreshURL(Int) }
    public enum Pane: Equatable, Sendable { case list, detail }
    /// What the detail pane shows of the task's delegate calls: a list, or the sequence diagram.
    public enum DetailView: Equatable, Sendable { case timeline, sequence }

    public var mode = Mode.normal
    /// Between the terminal's paste marks: keys are pasted text, a prompt's or nobody's.
    public var pasting = false
    public var pane = Pane.list
    public var detailView = DetailView.timeline
    /// Lines scrolled: from the top in the timeline, back from the newest in the sequence (0 follows it live).
    public var detailScroll = 0
    /// Draws the sequence diagram in ASCII (the mono theme, a locale that is not UTF-8).
    public var asciiArt = false
    public var message: String?
    /// Whether quitting keeps downloads to resume next time (a store is kept) or cancels everything.
    public var quitKeepsDownloads = false
    /// `a` adds a download (Tab: a data task) rather than a data task: a session of downloads, or the daemon's.
    public var addsDownloads = false
    /// The identifier of the daemon this UI is attached to (`sluice attach`); nil when it runs its own transfers.
    public var attachedTo: String?
    /// `--exit-when-done`: leave once every task has ended.
    public var exitWhenDone = false
    /// The config file's `task-command`, run on the selected task by `!`.
    public var taskCommand: String?

    public init() {}
}

/// What a key asks of the program beyond the state it changed.
public enum UICommand: Equatable, Sendable {
    case intent(Intent)
    /// A completed row was removed: the app can let go of its task.
    case forget(Int)
    /// Write a file of what was observed, in the output directory.
    case export(Export)
    case quit
    /// Stop the daemon this UI is attached to (confirmed).
    case stopDaemon
    /// Remove an ended row (it is gone from the model already) and delete its file (confirmed).
    case purge(Int, savedPath: String?)
    /// Open a saved file with the desktop's program.
    case open(String)
    /// Run this command with the row's facts in SLUICE_* variables.
    case runCommand(String, EndedTask)
}

/// The files the UI writes: a task's Mermaid diagram, its HAR, or one HAR of every completed task.
public enum Export: Equatable, Sendable {
    case mermaid(Int)
    case har(Int)
    case harOfCompleted
}
