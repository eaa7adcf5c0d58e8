// How the tasks of a plain run (no terminal: scripts, cron) ended, for the command's exit status: a script that
// downloads a list must be able to tell that something in it failed, as wget's and aria2c's exit statuses tell.
import SluiceViewModel

public struct PlainRun: Equatable, Sendable {
    /// Tasks that ended (finished, failed or cancelled).
    public var ended = 0
    /// Tasks that failed: no response, a lost connection with no retry left, a file that could not be written.
    public var failed = 0
    /// Tasks that ended with a status of 400 or above (a download saves nothing then).
    public var errorStatuses = 0

    public init(ended: Int = 0, failed: Int = 0, errorStatuses: Int = 0) {
        self.ended = ended
        self.failed = failed
        self.errorStatuses = errorStatuses
    }

    /// The tally of `rows` as they stand at the end of the run, but for the ids in `history` (rows of earlier
    /// runs shown as they ended then).
    public static func tally(_ rows: [TaskRow], leavingOut history: Set<Int> = []) -> PlainRun {
        var run = PlainRun()
        for i in rows.indices where !history.contains(rows[i].id) {
            guard let outcome = rows[i].outcome else { continue }
            run.ended += 1
            switch outcome {
            case .failed: run.failed += 1
            case .finished where (rows[i].status ?? 0) >= 400: run.errorStatuses += 1
            case .finished, .cancelled: break
            }
        }
        return run
    }
}
