// What the soak saw of one task (every delegate call counted), and the book of all of them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

struct TaskRecord {
    enum Role: Equatable {
        case first
        /// Made from the first task's resume data.
        case resumed
        /// The download task a data task became (`convertToDownload()` or `.becomeDownload`).
        case converted(from: Int)
    }

    let plan: Int
    let role: Role
    var completions = 0
    var error: TransferError?
    var status: Int?
    var responses = 0
    var bytes: Int64 = 0
    var patternMatches = true
    /// Set once `suspend()` has returned, cleared just before `resume()`: a chunk delivered in between breaks
    /// the engine's promise.
    var suspended = false
    var deliveredWhileSuspended = 0
    var completedWhileSuspended = false
    /// Whether the scenario's action (suspend, cancel, convert) was taken.
    var acted = false
    var became: Int?
    /// A converting data task's delivered bytes, handed to `prependReceivedData` and then dropped.
    var kept = Data()
    var prepended: Bool?
    var finishedDownloads = 0
    var fileSize: Int64?
    var fileMatches = false
    var resumedAt: Int64?
    var resumeData: Data?
    /// Delegate calls for this task after its `didCompleteWithError`.
    var lateCalls = 0

    init(plan: Int, role: Role) {
        self.plan = plan
        self.role = role
    }

    /// A data task that became a download hands its completion to the download.
    var expectedCompletions: Int { became == nil ? 1 : 0 }
}

/// Every task's record, the tasks of each plan in order, and the tasks still running.
struct Ledger {
    var records: [Int: TaskRecord] = [:]
    var chains: [Int: [Int]] = [:]
    var running: [Int: SessionTask] = [:]
    var completionsOfUnknownTasks = 0
    var problems: [(plan: Int, text: String)] = []
    var chainsEnded = 0
    /// Conversions that lost the race with the body's end: the data task completed whole, as it may.
    var conversionsAfterTheEnd = 0

    mutating func register(_ task: SessionTask, plan: Int, role: TaskRecord.Role) {
        records[task.taskIdentifier] = TaskRecord(plan: plan, role: role)
        chains[plan, default: []].append(task.taskIdentifier)
        running[task.taskIdentifier] = task
    }

    func chain(_ plan: Int) -> [TaskRecord] {
        (chains[plan] ?? []).compactMap { records[$0] }
    }
}
