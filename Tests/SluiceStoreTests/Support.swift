// Shared pieces of the store tests: scratch directories and a task with every field set.
import Foundation
import SluiceStore

/// A fresh directory under TMPDIR, removed by the test.
struct Scratch {
    let path: String

    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/sluice-store-test-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    var entries: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// The permission bits of `path`, or nil when it is missing.
func mode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

extension StoredTask {
    /// A download with every optional field set and text that would trip a careless encoder.
    static func everyField(url: String = "https://example.test/a file?q=\u{1b}[31m&x=ü") -> StoredTask {
        StoredTask(
            url: url,
            method: "PUT",
            requestHeaders: [
                StoredHeader(name: "Accept", value: "application/json"),
                StoredHeader(name: "X-Quote", value: "\"[1,2]\" \\ ,"),
                StoredHeader(name: "Accept", value: "text/plain"),
                StoredHeader(name: "Authorization", value: "Bearer s3cr3t"),
            ],
            kind: .download,
            state: .suspended,
            priority: -3,
            destination: "/home/u/Downloads/a file.iso",
            partialPath: "/home/u/Downloads/a file.iso.sluice-part",
            bytesReceived: Int64.max - 1,
            bytesExpected: 1 << 40,
            etag: "\"abc\"",
            lastModified: "Tue, 15 Nov 1994 08:12:31 GMT",
            resumeData: Data([0, 1, 2, 0xFF, 0, 0x7F]),
            createdAt: 1_763_900_000.125,
            startedAt: 1_763_900_001.5,
            endedAt: 1_763_900_002.75,
            statusCode: 206,
            outcome: "connection lost",
            error: "the server closed the connection after 12 bytes\nline two",
            attempts: 3,
            timeline: "resume\ndidReceive response 206\ndidCompleteWithError"
        )
    }
}
