// What `sluice -d` and `sluice add` check of --output-dir before anything starts.
import Foundation
import Testing
@testable import SluiceCLI

@Suite struct InterfaceOptionsTests {
    /// aria2c -d and wget -P make the directory they are given; a manager's user expects the same (curl's
    /// --create-dirs stays `sluice get`'s).
    @Test func aMissingOutputDirectoryIsMade() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let options = try InterfaceOptions.parse(["--output-dir", dir.path + "/new/deeper"])
        let prepared = try options.prepare(interactive: false)
        #expect(prepared.directory == dir.path + "/new/deeper")
        #expect(FileKind.of(dir.path + "/new/deeper") == S_IFDIR)
    }

    @Test func aFileInTheWayIsAnErrorAndStays() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir.path + "/taken"))
        let options = try InterfaceOptions.parse(["--output-dir", dir.path + "/taken/sub"])
        #expect(throws: CLIFailure.self) { try options.prepare(interactive: false) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path + "/taken")) == Data("keep".utf8))
        let plain = try InterfaceOptions.parse(["--output-dir", dir.path + "/taken"])
        do {
            _ = try plain.prepare(interactive: false)
            Issue.record("a file taken for a directory")
        } catch let failure as CLIFailure {
            #expect(failure.message.hasSuffix("taken is not a directory"), "\(failure.message)")
        }
    }
}
