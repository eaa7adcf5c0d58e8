// A finished file linked into a real directory: the suggested name, the next free one past a user's file (never
// replaced), and a start past the names a caller already placed.
import Foundation
@testable import SluiceTUI
import Testing

struct DownloadPlacementTests {
    @Test func aFinishedFileTakesTheFirstFreeNameFromWhereTheCallerSays() throws {
        let dir = NSTemporaryDirectory() + "sluice-place-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func finished(_ text: String) -> String {
            let path = dir + "/.tmp-" + UUID().uuidString
            _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))  // a failure shows in link
            return path
        }
        #expect(FileManager.default.createFile(atPath: dir + "/page", contents: Data("the user's".utf8)))
        let first = try DownloadPlacement.link(finished("a"), into: dir, suggested: "page", from: 0).get()
        #expect(first.path == dir + "/page.1" && first.attempt == 1)
        #expect(try String(contentsOfFile: dir + "/page", encoding: .utf8) == "the user's", "never replaced")
        let later = try DownloadPlacement.link(finished("b"), into: dir, suggested: "page", from: 4).get()
        #expect(later.path == dir + "/page.4" && later.attempt == 4, "names below the start are not tried")
        #expect(try DownloadPlacement.link(finished("c"), into: dir, suggested: "page").get() == dir + "/page.2")
    }
}
