// What the screen's loop works through: this process's own transfers (TransferApp) or a daemon's (`sluice
// attach`). The loop owns the model; a driver fills it and carries out what the keys ask.
import SluiceEngine
import SluiceViewModel

public protocol InterfaceDriver: AnyObject {
    /// Moves what happened since the last call into `model` and `flows`; true when anything did.
    func drain(into model: inout Model, flows: inout PendingFlows) -> Bool
    /// Carries out an intent; a message for the user (why not, or what now holds), or nil.
    func perform(_ intent: Intent) -> String?
    /// A completed row the user removed (`x`), already gone from the model; a message when it left bytes behind
    /// (a failed download's partial file, kept for an add of the same URL to go on from), else nil.
    @discardableResult func forget(_ id: Int) -> String?
    /// Writes the file `export` asks for; a message saying where, or why not.
    func perform(_ export: Export, model: Model, flows: FlowLog) -> String
    /// A split download's ranges as they stand (nil when there is nothing to sample here).
    func segments(of id: Int) -> [DownloadSegment]?
    /// `X` confirmed: remove an ended row (gone from the model already) and delete its file and what it left.
    /// A message saying what was deleted, or why not.
    func purge(_ id: Int, savedPath: String?) -> String
    /// `q` confirmed: stop this process's transfers, or only detach from the daemon's. `model`: the rows as the
    /// screen shows them, which this process's store keeps as they are.
    func quit(model: Model)
    /// `Q` confirmed, when attached: stop the daemon. A message when that failed.
    func stopDaemon() -> String?
    /// Why the loop must end now (the daemon went away), else nil.
    var ended: String? { get }
    /// Every task has ended and no retry is waiting (`--exit-when-done`); never for a daemon's tasks.
    var isDone: Bool { get }
    /// Calls `wake` (from another thread) when something arrives while nothing was waiting to be drained.
    func onEvents(_ wake: @escaping @Sendable () -> Void)
    /// Calls `wake` (from another thread) when the last task running or queued has ended and no retry is pending:
    /// the loop takes that at once rather than at its next paced pass, so `--exit-when-done` exits when the work
    /// does. A hint: the loop still asks `isDone`. A later call replaces the earlier `wake`.
    func onIdle(_ wake: @escaping @Sendable () -> Void)
    /// Calls `tell` (from another thread) with the answer to an intent that comes after `perform` returned (a
    /// refresh, once the new URL has been checked): the message line shows it. A later call replaces the earlier.
    func onAnswer(_ tell: @escaping @Sendable (String) -> Void)
    /// Why the task store cannot be written now (it is tried again), else nil.
    var storeTrouble: String? { get }
}

extension InterfaceDriver {
    /// For a driver that never ends its tasks by itself (a daemon's stay the daemon's): never called.
    public func onIdle(_ wake: @escaping @Sendable () -> Void) {}
    /// For a driver whose store is another process's (the daemon's, which says so itself).
    public var storeTrouble: String? { nil }
}

/// What the message line says when the task store's writes start or stop failing; nil when that did not change.
/// A store that cannot be written (a full disk) was told of only at the quit, when a kill -9 had already lost the
/// list (found by a tester).
public enum StoreTrouble {
    public static func message(was: String?, now: String?) -> String? {
        guard was != now else { return nil }
        guard let now else { return "the task store is written again" }
        return "the task store cannot be written (\(now)): a crash now loses the list's changes"
    }
}
