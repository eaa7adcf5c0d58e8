// Micro-benchmarks of the view-model and the renderer: events the reducer absorbs per second, and the time
// to build one frame with 1,000 and 10,000 rows. Run: swift run -c release sluice-ui-bench
import Dispatch
import Foundation
import SluiceEngine
import SluiceTUI
import SluiceViewModel

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func record(_ id: Int, _ event: TaskEvent, _ t: UInt64) -> ModelEvent {
    .engine(TaskEventRecord(taskIdentifier: id, uptimeNanoseconds: t, event: event))
}

/// `rows` tasks in a mix of states, each with a response and some data.
func makeModel(rows: Int) -> Model {
    var m = Model()
    let url = URL(string: "http://127.0.0.1:8080/file")!
    let response = Response(url: url, statusCode: 200, headers: ["Content-Type": "application/octet-stream", "ETag": "\"x\""],
                            expectedContentLength: 100_000_000)
    for id in 1...rows {
        m.apply(.added(id: id, url: "http://127.0.0.1:8080/files/\(id).bin", kind: .data, requestHeaders: [], at: 0))
        m.apply(record(id, .stateChanged(.running), 1))
        m.apply(record(id, .didReceiveResponse(response), 2))
        m.apply(record(id, .disposition(.allow), 3))
        for k in 0..<20 { m.apply(record(id, .didReceiveData(bytes: 262_144), 4 + UInt64(k) * 50_000_000)) }
        if id % 7 == 0 { m.apply(record(id, .stateChanged(.suspended), 2_000_000_000)) }
        if id % 11 == 0 {
            m.apply(record(id, .stateChanged(.completed), 2_000_000_000))
            m.apply(record(id, .didCompleteWithError(nil), 2_000_000_000))
        }
    }
    m.apply(.tick(3_000_000_000))
    m.select(rows / 2)
    return m
}

func reducerEventsPerSecond(rows: Int, events: Int) -> Double {
    var m = makeModel(rows: rows)
    let batch = (0..<events).map { i in record(1 + i % rows, .didReceiveData(bytes: 16_384), 3_000_000_000 + UInt64(i) * 1000) }
    let start = now()
    for e in batch { m.apply(e) }
    let seconds = Double(now() - start) / 1e9
    precondition(m.row(1)?.chunks ?? 0 > 20, "the events were applied")
    return Double(events) / seconds
}

func frameMilliseconds(rows: Int, width: Int, height: Int, frames: Int) -> (median: Double, worst: Double) {
    let m = makeModel(rows: rows)
    var times: [Double] = []
    var checksum = 0
    for _ in 0..<frames {
        let start = now()
        let lines = Renderer.render(model: m, ui: UIState(), width: width, height: height)
        times.append(Double(now() - start) / 1e6)
        checksum &+= lines.count
    }
    precondition(checksum == frames * height, "every frame had every line")
    times.sort()
    return (times[times.count / 2], times[times.count - 1])
}

print("Reducer: \(Int(reducerEventsPerSecond(rows: 1000, events: 2_000_000))) didReceiveData events/s into 1,000 rows")
for rows in [1000, 10_000] {
    for (w, h) in [(120, 40), (200, 60)] {
        let t = frameMilliseconds(rows: rows, width: w, height: h, frames: 200)
        print(String(format: "Frame: %6d rows at %dx%d: median %.2f ms, worst %.2f ms", rows, w, h, t.median, t.worst))
    }
}
