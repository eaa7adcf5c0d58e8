// Everything that changes the model: the engine's events, the app's own facts, and the clock.
import SluiceEngine

public enum ModelEvent: Sendable, Codable {
    /// A task the app created (created suspended; its events follow), with the row's first note (a download's
    /// "saving to PATH"): one event, not two, for each of a long list's rows through the inbox, the model, the store
    /// keeper and the flows. A daemon of the version before sends no note (it decodes as nil).
    case added(id: Int, url: String, kind: TaskKind, requestHeaders: [HeaderLine], at: UInt64, note: String? = nil)
    case engine(TaskEventRecord)
    /// A row brought back from the store: a finished task of an earlier run, or an unfinished one whose engine
    /// events follow. Boxed: a row inline made every event as large as a row (472 bytes, not 97), and events are
    /// copied into the inbox, out of it, and through every reader.
    indirect case restored(TaskRow)
    /// A finished download was moved to `path`.
    case saved(id: Int, path: String)
    case note(id: Int, String)
    /// The rows waiting their turn, first first (every other row is not queued).
    case queueOrder([Int])
    /// A split download's ranges as they stand (sampled a few times a second for the detail pane's map).
    case segments(id: Int, [DownloadSegment])
    /// The whole session's receive limit changed (bytes per second; nil: none).
    case sessionRateLimit(Int64?)
    /// A task's own receive limit changed.
    case taskRateLimit(id: Int, Int64?)
    /// The task failed and will be tried again at `at` (uptime nanoseconds): retry `attempt` of `of`.
    case retrying(id: Int, attempt: Int, of: Int, at: UInt64, reason: String)
    /// The clock moved: rates are sampled here, so a stalled transfer's rate falls to zero.
    case tick(UInt64)
    /// The row's download goes on from a new URL (`sluice refresh`), keeping its bytes; its next attempt follows.
    case refreshed(id: Int, url: String, at: UInt64)
    /// Another program took the name of the row's download before it started; it starts again saving to `target`.
    case renamed(id: Int, target: String, at: UInt64)
}

public enum Intent: Equatable, Sendable {
    /// Resume a suspended task, or answer `.allow` to a task awaiting its disposition.
    case resume(Int)
    case suspend(Int)
    /// Cancel, or answer `.cancel` to a task awaiting its disposition.
    case cancel(Int)
    /// Convert to a download task, or answer `.becomeDownload` to a task awaiting its disposition.
    case convert(Int)
    /// Add a URL as a new data task or download.
    case add(String, TaskKind)
    /// Move a queued task this many places towards the front of the queue (negative: towards the back).
    case move(Int, by: Int)
    /// Change how many transfers run at once.
    case setConcurrency(Int)
    /// Limit the whole session's receive rate (bytes per second; nil: no limit).
    case setSessionRate(Int64?)
    /// Limit one task's receive rate (bytes per second; nil: no limit of its own).
    case setTaskRate(Int, Int64?)
    /// Give a stopped, failed or queued download a new URL, keeping its bytes when it is the same file.
    case refresh(Int, String)
    /// Suspend every running task (pause all).
    case suspendAll
    /// Resume every suspended task (resume all).
    case resumeAll
}
