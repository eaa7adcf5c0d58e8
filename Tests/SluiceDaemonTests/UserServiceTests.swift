// `sluice daemon --install-user-service`: the unit's text (quoted as systemd reads it, accepted by systemd-analyze
// where it exists), written atomically, idempotent, and never over or instead of a file sluice did not write.
import Foundation
@testable import SluiceDaemon
import Testing

struct UserServiceTests {
    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "sluice-unit-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func theUnitRunsTheDaemonInTheForegroundWithEveryWordQuoted() {
        let text = UserService.unit(executable: "/opt/sl uice/bin/sluice", identifier: "work", outputDirectory: "/home/me/100% \"done\" $HOME",
                                    jobs: 3)
        #expect(text.hasPrefix(UserService.marker + "\n"))
        #expect(text.contains("\nExecStart=\"/opt/sl uice/bin/sluice\" \"daemon\" \"--foreground\" \"--id\" \"work\" \"--output-dir\" \"/home/me/100%% \\\"done\\\" $$HOME\" \"-j\" \"3\"\n"))
        #expect(text.contains("\nWantedBy=default.target\n"))
        #expect(UserService.unitName(identifier: "default") == "sluice.service")
        #expect(UserService.unitName(identifier: "work") == "sluice-work.service")
        #expect(UserService.directory(environment: ["XDG_CONFIG_HOME": "/c", "HOME": "/h"]) == "/c/systemd/user")
        #expect(UserService.directory(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]) == "/h/.config/systemd/user")
        #expect(UserService.directory(environment: [:]) == nil)
    }

    @Test func installIsIdempotentAndNeverTouchesAForeignFile() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/systemd/user/sluice.service"
        let text = UserService.unit(executable: "/usr/bin/sluice", identifier: "default", outputDirectory: "/tmp", jobs: 6)
        #expect(try UserService.install(text, at: path) == .written(path))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        #expect(try UserService.install(text, at: path) == .unchanged(path))
        let newer = UserService.unit(executable: "/usr/bin/sluice", identifier: "default", outputDirectory: "/srv", jobs: 6)
        #expect(try UserService.install(newer, at: path) == .written(path), "its own unit is updated")

        let foreign = root + "/systemd/user/mine.service"
        try "[Service]\nExecStart=/bin/true\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        #expect(throws: DaemonFailure.self) { try UserService.install(text, at: foreign) }
        #expect(throws: DaemonFailure.self) { try UserService.uninstall(at: foreign) }
        #expect(try String(contentsOfFile: foreign, encoding: .utf8) == "[Service]\nExecStart=/bin/true\n", "left as it was")

        #expect(try UserService.uninstall(at: path) == .removed(path))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: DaemonFailure.self) { try UserService.uninstall(at: path) }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"), "needs systemd-analyze"))
    func systemdAcceptsTheUnit() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/sluice.service"
        _ = try UserService.install(UserService.unit(executable: "/bin/true", identifier: "default", outputDirectory: "/tmp/a b", jobs: 2), at: path)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify", "--man=no", path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(!said.contains(".service:"), "systemd-analyze found a fault in the unit: \(said)")
    }
}
