// What the store keeper writes stays what the row shows, though it writes a row's timeline again only when the row's
// timeline has changed: after every drain the stored text is the row's whole timeline, and the validators are found
// whatever the case of their headers' names. A row still going is written once per deferral (or when settled), a row
// that ended at once.
import Foundation
import SluiceEngine
import SluiceStore
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct StoreKeeperTests {
    /// Task ids go on from run to run: the ids a run reserved and never gave a row go back when it stops (they
    /// jumped by 256 a run: #1, then #257).
    @Test func theNextRunNumbersOnFromTheLastRowOfThisOne() throws {
        let state = try Scratch()
        defer { state.remove() }
        let store = try TaskStore(directory: state.path)
        let first = StoreKeeper(store: store, deferral: 0, start: 0)
        let ids = [first.allocate(), first.allocate()].compactMap { $0 }
        #expect(ids == [1, 2])
        first.stop()
        let next = StoreKeeper(store: try TaskStore(directory: state.path), deferral: 0, start: 0)
        #expect(next.allocate() == 3)
    }

    @Test func theStoredTimelineIsAlwaysTheRowsWholeTimeline() throws {
        let state = try Scratch()
        defer { state.remove() }
        let store = try TaskStore(directory: state.path)
        let keeper = StoreKeeper(store: store, deferral: 0, start: 0)
        let id = try #require(keeper.allocate())
        let facts = RowFacts(method: "GET", headers: [HeaderLine("Accept", "*/*")], kind: .download,
                             companions: DownloadCompanions(target: state.path + "/f.bin"), createdAt: 1)
        keeper.keep(id, facts: facts)
        var model = Model()
        var time: UInt64 = 1_000_000_000
        var drains = 0
        func engine(_ event: TaskEvent) -> ModelEvent {
            time += 1_000_000
            return .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: time, event: event))
        }
        // One drain of the UI's loop: the events into the model, then the keeper; the stored row checked.
        func drain(_ events: [ModelEvent]) throws -> StoredTask {
            for event in events { model.apply(event) }
            keeper.observe(events, model: model)
            store.flush()
            drains += 1
            let row = try #require(model.row(id))
            let stored = try #require(try store.all().first { $0.id == Int64(id) })
            let whole = StoredRow.record(row, facts: facts, previous: nil, wallClock: 0).timeline
            #expect(stored.timeline == whole, "after drain \(drains)")
            #expect(stored.timeline.split(separator: "\n").count == row.timeline.count, "after drain \(drains)")
            return stored
        }
        let url = try #require(URL(string: "http://h/f.bin"))
        _ = try drain([.added(id: id, url: url.absoluteString, kind: .download, requestHeaders: [], at: time)])
        let response = Response(url: url, statusCode: 200, headers: ["ETAG": "\"v1\"", "Last-MODIFIED": "Mon, 23 Nov 2026 21:00:00 GMT"],
                                expectedContentLength: 1_000_000)
        let answered = try drain([engine(.stateChanged(.running)), engine(.didReceiveResponse(response))])
        #expect(answered.etag == "\"v1\"" && answered.lastModified == "Mon, 23 Nov 2026 21:00:00 GMT")
        // Progress folds into the last line: as many lines, a different last one.
        var written: StoredTask?
        for total in stride(from: 100, through: 400, by: 100) {
            written = try drain([engine(.didWriteData(bytes: 100, total: Int64(total), expected: 1_000_000))])
        }
        // Each line: the time since the row was added, then the call (folded calls counted, with their bytes).
        #expect(written?.timeline == "+0.002s didReceiveResponse 200\n+0.003s didWriteData x4 (400 B)")
        // A note changes the row but not its timeline.
        _ = try drain([.note(id: id, "saving to f.bin")])
        // Past the limit, lines leave from the front: as many lines, new first and last ones.
        let informational = Response(url: url, statusCode: 103, headers: [:], expectedContentLength: -1)
        var total: Int64 = 400
        for n in 0..<(Model.timelineLimit + 5) {
            total += 10
            let event: TaskEvent = n % 2 == 0 ? .didReceiveInformationalResponse(informational)
                : .didWriteData(bytes: 10, total: total, expected: 1_000_000)
            _ = try drain([engine(event)])
        }
        let ended = try drain([engine(.stateChanged(.completed)), engine(.didCompleteWithError(nil))])
        #expect(ended.state == .completed && ended.timeline.hasSuffix("didCompleteWithError nil"), "\(ended.timeline.suffix(80))")
    }

    @Test func aRowStillGoingWaitsForThePassAndAnEndedRowIsWrittenAtOnce() throws {
        let state = try Scratch()
        defer { state.remove() }
        let (store, keeper, id) = try deferringKeeper(in: state)
        var model = Model()
        let second: UInt64 = 1_000_000_000
        func engine(_ event: TaskEvent, at time: UInt64) -> ModelEvent {
            .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: time, event: event))
        }
        /// One drain at `time`; what the store then holds of the row.
        func drain(_ events: [ModelEvent], at time: UInt64) throws -> StoredTask? {
            for event in events { model.apply(event) }
            keeper.observe(events, model: model, now: time)
            store.flush()
            return try store.all().first { $0.id == Int64(id) }
        }
        func written(_ total: Int64, at time: UInt64) -> ModelEvent {
            engine(.didWriteData(bytes: 100, total: total, expected: 1_000), at: time)
        }
        // The first pass is due 10 s after time 0: until then, nothing of a row still going.
        #expect(try drain([.added(id: id, url: "http://h/f.bin", kind: .download, requestHeaders: [], at: second)], at: second) == nil)
        #expect(try drain([engine(.stateChanged(.running), at: 2 * second), written(100, at: 2 * second)], at: 2 * second) == nil)
        #expect(keeper.hasDeferredRows)
        // A drain with no events makes the pass once it is due.
        let passed = try #require(try drain([], at: 11 * second))
        #expect(passed.state == .running && passed.bytesReceived == 100)
        #expect(!keeper.hasDeferredRows)
        // Progress waits for the next pass (10 s after this one), or for a settle.
        #expect(try drain([written(200, at: 12 * second)], at: 12 * second)?.bytesReceived == 100)
        keeper.settle(model: model)
        store.flush()
        #expect(try store.all().first { $0.id == Int64(id) }?.bytesReceived == 200)
        // The end is written at once, long before the pass.
        _ = try drain([written(300, at: 13 * second)], at: 13 * second)
        let ended = try #require(try drain([engine(.stateChanged(.completed), at: 14 * second),
                                            engine(.didCompleteWithError(nil), at: 14 * second)], at: 14 * second))
        #expect(ended.state == .completed && ended.bytesReceived == 300)
        #expect(!keeper.hasDeferredRows)
    }

    @Test func aCheckpointBeforeTheRowsFirstRecordGoesIntoIt() throws {
        let state = try Scratch()
        defer { state.remove() }
        let (store, keeper, id) = try deferringKeeper(in: state)
        var model = Model()
        let second: UInt64 = 1_000_000_000
        let events: [ModelEvent] = [
            .added(id: id, url: "http://h/f.bin", kind: .download, requestHeaders: [], at: second),
            .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: second, event: .stateChanged(.running))),
            .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: second, event: .didResumeAtOffset(offset: 500, expected: 1000))),
        ]
        for event in events { model.apply(event) }
        keeper.observe(events, model: model, now: second)
        // A resumed download checkpoints at once, before the pass that makes its first record.
        let checkpoint = Data("resume".utf8)
        keeper.checkpointed(id, checkpoint)
        keeper.observe([], model: model, now: 11 * second)
        store.flush()
        let stored = try #require(try store.all().first { $0.id == Int64(id) })
        #expect(stored.state == .running && stored.resumeData == checkpoint)
    }

    /// A store, a keeper whose passes are 10 s apart from time 0, and one download row it keeps.
    private func deferringKeeper(in state: Scratch) throws -> (TaskStore, StoreKeeper, Int) {
        let store = try TaskStore(directory: state.path)
        let keeper = StoreKeeper(store: store, deferral: 10, start: 0)
        let id = try #require(keeper.allocate())
        keeper.keep(id, facts: RowFacts(method: "GET", headers: [], kind: .download,
                                        companions: DownloadCompanions(target: state.path + "/f.bin"), createdAt: 1))
        return (store, keeper, id)
    }
}
