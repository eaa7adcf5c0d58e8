// Where the store lives, by the XDG Base Directory rules, and the modes of what it makes.
import Foundation
import SluiceStore
import Testing

@Suite struct StoreDirectoryTests {
    @Test func xdgStateHomeWinsWhenAbsolute() {
        #expect(TaskStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/sluice")
        #expect(TaskStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/s//", "HOME": "/h"]) == "/s/sluice")
    }

    @Test func anEmptyOrRelativeXDGStateHomeIsIgnored() {
        #expect(TaskStore.defaultDirectory(environment: ["XDG_STATE_HOME": "", "HOME": "/h"]) == "/h/.local/state/sluice")
        #expect(TaskStore.defaultDirectory(environment: ["XDG_STATE_HOME": "state", "HOME": "/h/"]) == "/h/.local/state/sluice")
        #expect(TaskStore.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.local/state/sluice")
    }

    @Test func withoutHomeThePasswdEntryIsUsed() throws {
        let entry = try #require(getpwuid(getuid()))
        let home = String(cString: try #require(entry.pointee.pw_dir))
        let expected = (home == "/" ? "" : home) + "/.local/state/sluice"
        #expect(TaskStore.defaultDirectory(environment: [:]) == expected)
        #expect(TaskStore.defaultDirectory(environment: ["HOME": "relative"]) == expected)
    }

    @Test func missingDirectoriesAreMade0700() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let old = umask(0o022)
        defer { umask(old) }
        let state = dir.path + "/home/.local/state"
        let directory = TaskStore.defaultDirectory(environment: ["HOME": dir.path + "/home"])
        #expect(directory == state + "/sluice")
        let store = try TaskStore(directory: directory)
        #expect(mode(dir.path + "/home") == 0o700)
        #expect(mode(state) == 0o700)
        #expect(mode(directory) == 0o700)
        #expect(FileManager.default.fileExists(atPath: store.path))
    }

    @Test func anExistingDirectoryKeepsItsMode() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let directory = dir.path + "/shared"
        #expect(mkdir(directory, 0o755) == 0)
        #expect(chmod(directory, 0o750) == 0)
        _ = try TaskStore(directory: directory)
        #expect(mode(directory) == 0o750)
    }

    @Test func aFileInTheWayIsAnErrorThatNamesIt() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dir.path + "/sluice"))
        #expect {
            _ = try TaskStore(directory: dir.path + "/sluice")
        } throws: { error in
            "\(error)".contains(dir.path + "/sluice") && "\(error)".contains("not a directory")
        }
        #expect(FileManager.default.contents(atPath: dir.path + "/sluice") == Data("mine".utf8))
    }
}
