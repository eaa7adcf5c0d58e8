// Values at the edges of what a column holds come back as they went in: empty text and bytes (which have no
// address to give SQLite), text with a NUL, the extremes of Int64 and Double.
import Foundation
import SluiceStore
import Testing

@Suite struct StoredValueTests {
    @Test func edgeValuesSurviveAReopen() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        var task = StoredTask(url: "", method: "", requestHeaders: [StoredHeader(name: "", value: "")], createdAt: -0.5)
        task.etag = ""
        task.resumeData = Data()
        task.timeline = "before\0after"
        task.bytesReceived = Int64.min
        task.bytesExpected = Int64.max
        task.startedAt = Double.greatestFiniteMagnitude
        task.statusCode = 0
        do {
            let store = try TaskStore(directory: dir.path, batchInterval: 3600)
            task = try store.insert(task)
            task.error = ""
            store.update(task)
        }
        let stored = try #require(try TaskStore(directory: dir.path).all().first)
        #expect(stored == task)
        #expect(stored.resumeData == Data() && stored.etag == "" && stored.error == "", "empty, not nil")
    }
}
