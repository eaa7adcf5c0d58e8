// The state a row is stored in decides what the next start does with it: a suspended one stays suspended,
// anything else unfinished takes its turn again.
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct StoredRowStateTests {
    /// Stopped while it waited for a retry, a download takes its turn when sluice starts again: it was not the user
    /// who suspended it. (Stored as suspended, it stayed so, and a plain rerun waited for it for ever.)
    @Test func aRowWaitingForItsRetryIsStoredQueuedAndOnlyTheUsersSuspensionStays() {
        var row = TaskRow(id: 1, url: "http://h/f", kind: .download, at: 0)
        row.state = .suspended
        #expect(StoredRow.state(of: row) == .queued, "not started yet: waiting its turn")
        row.hasStarted = true
        #expect(StoredRow.state(of: row) == .suspended, "suspended after it started: the user's")
        row.retry = RetryWait(attempt: 1, of: 5, at: 20_000_000_000, reason: "the server answered 503")
        #expect(StoredRow.state(of: row) == .queued)
    }

    /// Found by a tester: a data task `d` turned into a download read "converted → download #N" until sluice
    /// started again, then "finished", with 0 B received.
    @Test func aDataTaskThatBecameADownloadReadsConvertedAfterARestart() {
        var row = TaskRow(id: 5, url: "http://h/f", kind: .data, at: 0)
        row.state = .completed
        row.outcome = .finished
        row.becameTask = 7
        let facts = RowFacts(method: "GET", headers: [], kind: .data, companions: nil, createdAt: 0)
        let stored = StoredRow.record(row, facts: facts, previous: nil, wallClock: 1)
        let restored = StoredRow.row(stored, now: 0)
        #expect(restored.becameTask == 7)
        #expect(restored.stateWord == "converted", "\(restored.stateWord)")
    }
}

