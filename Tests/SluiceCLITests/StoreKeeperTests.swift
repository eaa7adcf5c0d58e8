// What the store keeper writes stays what the row shows, though it writes a row's timeline again only when the row's
// timeline has changed: after every drain the stored text is the row's whole timeline, and the validators are found
// whatever the case of their headers' names.
import Foundation
import SluiceEngine
import SluiceStore
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct StoreKeeperTests {
    @Test func theStoredTimelineIsAlwaysTheRowsWholeTimeline() throws {
        let state = try Scratch()
        defer { state.remove() }
        let store = try TaskStore(directory: state.path)
        let keeper = StoreKeeper(store: store)
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
        for total in stride(from: 100, through: 400, by: 100) {
            _ = try drain([engine(.didWriteData(bytes: 100, total: Int64(total), expected: 1_000_000))])
        }
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
}
