// Values at the edges of what a column holds come back as they went in: empty text and bytes (which have no
// address to give SQLite), text with a NUL, the extremes of Int64 and Double, and request headers with every
// character JSON escapes (the store writes their JSON itself).
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

    @Test func headersWithWhatJSONEscapesSurviveAReopen() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let awkward = ["", "plain", "a\"quote\"", "back\\slash", "line\nbreak\r\n", "tab\there", "\u{1}\u{1f}\u{7f}",
                       "slash/and/ünïcödé 🚀", "\\u0041 is not A", "\0nul"]
        let headers = awkward.enumerated().map { StoredHeader(name: "X-\($0.offset)" + $0.element, value: $0.element) }
        var task = StoredTask(url: "http://h/", method: "GET", requestHeaders: headers, createdAt: 1)
        do {
            let store = try TaskStore(directory: dir.path, batchInterval: 3600)
            task = try store.insert(task)
        }
        let stored = try #require(try TaskStore(directory: dir.path).all().first)
        #expect(stored.requestHeaders == headers)
        let none = try TaskStore(directory: dir.path)
        var bare = StoredTask(url: "http://h/2", method: "GET", requestHeaders: [], createdAt: 2)
        bare = try none.insert(bare)
        #expect(try none.all().first { $0.id == bare.id }?.requestHeaders == [])
    }
}
