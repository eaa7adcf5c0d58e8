// The whole list's progress: ended counted, the unknown sizes estimated from the known, the time left from the rate.
import SluiceEngine
import SluiceViewModel
import Testing

struct ListProgressTests {
    private func record(_ id: Int, _ at: UInt64, _ event: TaskEvent) -> ModelEvent {
        .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: at, event: event))
    }

    @Test func anEstimateForTheWholeList() {
        var model = Model()
        let s: UInt64 = 1_000_000_000
        for id in 1...4 { model.apply(.added(id: id, url: "http://h/\(id)", kind: .download, requestHeaders: [], at: 0)) }
        // #1 done (1,000 bytes); #2 running, 500 of 1,000 at 100 B/s; #3 and #4 not started: sizes unknown.
        model.apply(record(1, 1, .stateChanged(.running)))
        model.apply(record(1, 2, .didWriteData(bytes: 1000, total: 1000, expected: 1000)))
        model.apply(record(1, 3, .didCompleteWithError(nil)))
        model.apply(record(1, 4, .stateChanged(.completed)))
        model.apply(record(2, 1, .stateChanged(.running)))
        model.apply(record(2, 2, .didWriteData(bytes: 0, total: 0, expected: 1000)))
        model.apply(.tick(1 * s))
        model.apply(record(2, 3 * s, .didWriteData(bytes: 500, total: 500, expected: 1000)))
        model.apply(.tick(6 * s))
        let list = ListProgress.of(model)
        #expect(list.ended == 1 && list.total == 4)
        // 500 left of #2, and 1,000 (the average of the two known sizes) for each of #3 and #4.
        #expect(list.remainingBytes == 2500)
        #expect(list.eta.map { $0 > 10 && $0 < 100 } == true, "\(String(describing: list.eta)) s at about 100 B/s")

        var fresh = Model()
        fresh.apply(.added(id: 1, url: "http://h/1", kind: .download, requestHeaders: [], at: 0))
        let unknown = ListProgress.of(fresh)
        #expect(unknown.ended == 0 && unknown.total == 1 && unknown.remainingBytes == nil && unknown.eta == nil, "nothing known: no guess")
    }

    /// Rows 1... running downloads of these sizes, nothing received yet, at time 1 s.
    private func running(_ sizes: [Int64]) -> Model {
        var model = Model()
        for (i, size) in sizes.enumerated() {
            model.apply(.added(id: i + 1, url: "http://h/\(i + 1)", kind: .download, requestHeaders: [], at: 0))
            model.apply(record(i + 1, 1, .stateChanged(.running)))
            model.apply(record(i + 1, 2, .didWriteData(bytes: 0, total: 0, expected: size)))
        }
        model.apply(.tick(1_000_000_000))
        return model
    }

    /// Two rows at 100 B/s: #1 with 1,500 bytes left, #2 with 100. The list cannot end before #1 does (15 s),
    /// though its 1,600 bytes at 200 B/s make 8 s (the title said "all in 8s" beside a row's 15s).
    @Test func theEstimateIsNeverShorterThanARunningRowsOwn() {
        var model = running([2000, 600])
        let s: UInt64 = 1_000_000_000
        model.apply(record(1, 6 * s, .didWriteData(bytes: 500, total: 500, expected: 2000)))
        model.apply(record(2, 6 * s, .didWriteData(bytes: 500, total: 500, expected: 600)))
        model.apply(.tick(6 * s))
        let own = model.rows[0].eta(now: model.now)
        let list = ListProgress.of(model)
        #expect(list.remainingBytes == 1600)
        #expect(own != nil && list.eta == own, "\(String(describing: list.eta)) against the row's \(String(describing: own))")
    }

    /// A row the user suspended ends when they say: its bytes are not in the estimate (a suspended 187 MB made the
    /// title say "all in 3m14s" beside a download 5 s from its end).
    @Test func aRowTheUserSuspendedIsLeftOut() {
        var model = running([1000, 1_000_000])
        let s: UInt64 = 1_000_000_000
        model.apply(record(2, 3, .stateChanged(.suspended)))
        model.apply(record(1, 6 * s, .didWriteData(bytes: 500, total: 500, expected: 1000)))
        model.apply(.tick(6 * s))
        let list = ListProgress.of(model)
        #expect(list.remainingBytes == 500)
        #expect(list.eta.map { $0 < 10 } == true, "\(String(describing: list.eta))")
    }
}

struct ListProgressStreamTests {
    @Test func aRunningStreamWithoutALengthGivesNoEstimate() {
        var model = Model()
        for id in 1...2 { model.apply(.added(id: id, url: "http://h/\(id)", kind: .data, requestHeaders: [], at: 0)) }
        model.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 1, event: .stateChanged(.running))))
        model.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 2, event: .didWriteData(bytes: 10, total: 10, expected: 100))))
        model.apply(.engine(TaskEventRecord(taskIdentifier: 2, uptimeNanoseconds: 1, event: .stateChanged(.running))))
        model.apply(.engine(TaskEventRecord(taskIdentifier: 2, uptimeNanoseconds: 2, event: .didReceiveData(bytes: 500))))
        model.apply(.tick(2_000_000_000))
        #expect(ListProgress.of(model).eta == nil)
        #expect(ListProgress.of(model).remainingBytes == nil)
    }
}
