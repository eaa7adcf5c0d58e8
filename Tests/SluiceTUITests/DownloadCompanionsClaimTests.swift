// Claiming a download's name in a real directory: the first free name of several downloads of one name, a start
// past the names already claimed, and a user's file never taken.
import Foundation
@testable import SluiceTUI
import Testing

struct DownloadCompanionsClaimTests {
    private func directory() throws -> String {
        let path = NSTemporaryDirectory() + "sluice-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func claim(_ directory: String, from first: Int = 0) throws -> (String, Int) {
        let claimed = try DownloadCompanions.claim(in: directory, suggested: "file", url: "http://h/file", from: first,
                                                   isHeld: { _ in true }).get()
        return (claimed.0.name, claimed.attempt)
    }

    @Test func downloadsOfOneNameTakeTheNextFreeNamesAndSayWhichAttempt() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/file.1", contents: Data("the user's".utf8)))
        #expect(try claim(dir) == ("file", 0))
        #expect(try claim(dir) == ("file.2", 2), "file.1 is a user's file: passed over")
        #expect(try String(contentsOfFile: dir + "/file.1", encoding: .utf8) == "the user's")
        #expect(FileManager.default.fileExists(atPath: dir + "/file.2.sluice-part"))
    }

    @Test func aClaimStartsWhereTheCallerSaysAndStillSkipsTakenNames() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try claim(dir, from: 5) == ("file.5", 5), "names below the start are not tried")
        #expect(!FileManager.default.fileExists(atPath: dir + "/file.sluice-part"))
        #expect(try claim(dir, from: 5) == ("file.6", 6))
    }
}
