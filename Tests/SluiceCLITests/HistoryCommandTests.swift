// `sluice history` against a store made in a temporary XDG_STATE_HOME: newest first, search, JSON lines,
// credentials redacted, server text escaped, and no store made by a listing.
import Foundation
import SluiceDaemon
import SluiceEngine
import SluiceStore
import Testing
@testable import SluiceCLI

@Suite struct HistoryCommandTests {
    /// A store in a scratch XDG_STATE_HOME with three tasks: a saved download (with credentials in its request
    /// headers), a 404 whose URL carries an escape sequence, and a download still running.
    func makeHistory() throws -> (dir: Scratch, environment: [String: String], ids: [Int64]) {
        let dir = try Scratch()
        let environment = ["XDG_STATE_HOME": dir.path + "/state", "HOME": dir.path + "/home"]
        let store = try TaskStore(directory: TaskStore.defaultDirectory(environment: environment))
        let saved = try store.insert(StoredTask(
            url: "https://mirror.test/debian.iso", requestHeaders: [
                StoredHeader(name: "Authorization", value: "Basic YWxpY2U6c2VjcmV0"),
                StoredHeader(name: "Cookie", value: "session=abc123; theme=dark"),
                StoredHeader(name: "Proxy-Authorization", value: "hunter2"),
                StoredHeader(name: "Accept", value: "*/*"),
            ], kind: .download, state: .completed, destination: "/downloads/debian.iso", bytesReceived: 3 << 20,
            bytesExpected: 3 << 20, createdAt: 1_763_900_000, endedAt: 1_763_900_060, statusCode: 200, outcome: "saved",
            timeline: "resume\ndidFinishDownloadingTo"))
        let missing = try store.insert(StoredTask(
            url: "http://127.0.0.1:1/\u{1b}]0;owned\u{07}", state: .completed, bytesReceived: 9, createdAt: 1_763_900_100,
            statusCode: 404, outcome: "404 Not Found", error: "bad\u{1b}[2Jthing"))
        let running = try store.insert(StoredTask(
            url: "https://mirror.test/big.tar", kind: .download, state: .running, partialPath: "/downloads/big.tar.sluice-part",
            bytesReceived: 1 << 20, bytesExpected: 4 << 20, createdAt: 1_763_900_200))
        return (dir, environment, [saved.id, missing.id, running.id])
    }

    func history(_ arguments: [String], _ environment: [String: String]) throws -> (lines: [String], notes: [String]) {
        try HistoryCommand.parse(arguments).report(environment: environment)
    }

    @Test func linesAreNewestFirstWithWhenOutcomeSizeURLAndDestination() throws {
        let (dir, environment, ids) = try makeHistory()
        defer { dir.remove() }
        let (lines, notes) = try history([], environment)
        #expect(notes.isEmpty)
        #expect(lines.count == 3)
        #expect(lines.map { $0.split(separator: " ").first.map(String.init) } == ids.reversed().map { String($0) })
        let when = HistoryLine.localTime(1_763_900_060)
        #expect(lines[2].contains(when + "  saved  ") && lines[2].contains("3.0 MiB  https://mirror.test/debian.iso  /downloads/debian.iso"), "\(lines[2])")
        // No process writes its partial file: the run that had it running has gone (a quit, a crash).
        #expect(lines[0].contains("stopped") && lines[0].contains("1.0 MiB of 4.0 MiB") && lines[0].hasSuffix("  -"), "\(lines[0])")
        #expect(!lines.joined().contains("\u{1b}") && !lines.joined().contains("\u{07}"), "no control character reaches the terminal")
        #expect(lines[1].contains("http://127.0.0.1:1/\\x1b]0;owned\\x07"), "\(lines[1])")
        let widths = Set(lines.map { line in line.distance(from: line.startIndex, to: line.range(of: "http")?.lowerBound ?? line.startIndex) })
        #expect(widths.count == 1, "the URL column is aligned:\n\(lines.joined(separator: "\n"))")
    }

    /// A search that finds nothing says so on standard error; JSON lines stay silent (found by a tester: nothing at
    /// all was printed).
    @Test func aSearchThatFindsNothingSaysSo() throws {
        let (dir, environment, ids) = try makeHistory()
        defer { dir.remove() }
        let found = try history(["DEBIAN"], environment)
        #expect(found.lines.count == 1 && found.lines[0].hasPrefix("\(ids[0]) ") && found.notes.isEmpty, "\(found)")
        let none = try history(["nowhere"], environment)
        #expect(none.lines.isEmpty && none.notes == ["no task's URL or saved path contains nowhere"])
        #expect(try history(["--json", "nowhere"], environment).notes.isEmpty)
    }

    /// A download the store saw running is "running" only while some process writes its partial file (holds its
    /// lock); after a quit or a crash it is "stopped". Before, `history` said "running" for a download nobody ran.
    @Test func aRunningDownloadIsRunningOnlyWhileItsPartialFileIsWritten() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let environment = ["XDG_STATE_HOME": dir.path + "/state", "HOME": dir.path + "/home"]
        let store = try TaskStore(directory: TaskStore.defaultDirectory(environment: environment))
        let partial = dir.path + "/big.tar.sluice-part"
        #expect(FileManager.default.createFile(atPath: partial, contents: Data("half".utf8)))
        _ = try store.insert(StoredTask(url: "https://mirror.test/big.tar", kind: .download, state: .running, partialPath: partial,
                                        bytesReceived: 4, bytesExpected: 8, createdAt: 1_763_900_200))
        #expect(try history([], environment).lines.first?.contains("  stopped  ") == true)
        let writer = open(partial, O_RDWR | O_CLOEXEC)
        defer { close(writer) }
        #expect(PartialFileLock.take(writer))  // as a download writing it holds it
        let lines = try history([], environment).lines
        #expect(lines.first?.contains("  running  ") == true, "\(lines)")
        #expect(try history(["--json"], environment).lines.first?.contains("\"outcome\":\"running\"") == true)
    }

    /// The daemon keeps its own store: `--id` reads it, and a UI history that does not exist says where it is.
    @Test func theDaemonsHistoryIsReadWithItsIdentifier() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let environment = ["XDG_STATE_HOME": dir.path + "/state", "HOME": dir.path + "/home", "XDG_RUNTIME_DIR": dir.path + "/run"]
        let paths = try DaemonPaths(identifier: "default", environment: environment)
        let store = try TaskStore(directory: paths.store)
        _ = try store.insert(StoredTask(url: "https://mirror.test/added.iso", kind: .download, state: .completed,
                                        destination: "/downloads/added.iso", bytesReceived: 10, bytesExpected: 10,
                                        createdAt: 1_763_900_000, endedAt: 1_763_900_001, statusCode: 200, outcome: "saved"))
        let ui = try history([], environment)
        #expect(ui.lines.isEmpty)
        #expect(ui.notes.first?.hasSuffix("; the daemon's tasks: sluice history --id default") == true, "\(ui.notes)")
        let daemon = try history(["--id", "default"], environment)
        #expect(daemon.lines.count == 1 && daemon.lines[0].contains("https://mirror.test/added.iso  /downloads/added.iso"), "\(daemon.lines)")
        #expect(throws: CLIFailure.self) { try history(["--id", "../x"], environment) }
    }

    /// The last column says where a file was saved: a download that failed names no file, though the store keeps
    /// where it was meant to go.
    @Test func aFailedDownloadNamesNoSavedFile() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let environment = ["XDG_STATE_HOME": dir.path + "/state", "HOME": dir.path + "/home"]
        let store = try TaskStore(directory: TaskStore.defaultDirectory(environment: environment))
        _ = try store.insert(StoredTask(
            url: "https://mirror.test/gone.iso", kind: .download, state: .failed, destination: "/downloads/gone.iso",
            partialPath: "/downloads/gone.iso.sluice-part", bytesReceived: 11, createdAt: 1_763_900_000,
            endedAt: 1_763_900_001, statusCode: 404, outcome: "HTTP 404"))
        let lines = try history([], environment).lines
        #expect(lines.count == 1 && lines[0].hasSuffix("https://mirror.test/gone.iso  -"), "\(lines)")
    }

    @Test func textSearchesURLsAndDestinations() throws {
        let (dir, environment, ids) = try makeHistory()
        defer { dir.remove() }
        #expect(try history(["MIRROR"], environment).lines.count == 2)
        #expect(try history(["/downloads/debian"], environment).lines.map { $0.split(separator: " ").first.map(String.init) } == [String(ids[0])])
        #expect(try history(["--limit", "1", "mirror"], environment).lines.count == 1)
        #expect(try history(["nothing-like-it"], environment).lines.isEmpty)
    }

    @Test func jsonIsOneObjectPerLineWithCredentialsRedacted() throws {
        let (dir, environment, ids) = try makeHistory()
        defer { dir.remove() }
        let lines = try history(["--json"], environment).lines
        #expect(lines.count == 3)
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["id"] as? Int } == ids.reversed().map { Int($0) })
        let saved = objects[2]
        #expect(saved["outcome"] as? String == "saved" && saved["statusCode"] as? Int == 200)
        #expect(saved["destination"] as? String == "/downloads/debian.iso" && saved["bytesReceived"] as? Int == 3 << 20)
        #expect(saved["endedAt"] as? String == "2025-11-23T12:14:20.000Z" && saved["startedAt"] is NSNull)
        #expect(saved["timeline"] as? String == "resume\ndidFinishDownloadingTo")
        let headers = try #require(saved["requestHeaders"] as? [[String: String]])
        #expect(headers == [
            ["name": "Authorization", "value": "Basic [redacted]"],
            ["name": "Cookie", "value": "session=[redacted]; theme=[redacted]"],
            ["name": "Proxy-Authorization", "value": "[redacted]"],
            ["name": "Accept", "value": "*/*"],
        ])
        for secret in ["YWxpY2U6c2VjcmV0", "abc123", "dark", "hunter2"] {
            #expect(!lines.joined().contains(secret), "\(secret) printed")
        }
        #expect(!lines.joined().contains("\u{1b}"), "escapes stay escaped in JSON")
        #expect(objects[1]["url"] as? String == "http://127.0.0.1:1/\u{1b}]0;owned\u{07}", "and decode to what was stored")
        #expect(objects[0]["state"] as? String == "running" && objects[0]["bytesExpected"] as? Int == 4 << 20)
    }

    @Test func noStoreMeansNoHistoryAndNothingMade() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let environment = ["XDG_STATE_HOME": dir.path + "/state"]
        let (lines, notes) = try history([], environment)
        #expect(lines.isEmpty && notes.count == 1 && notes[0].contains("no history yet"), "\(notes)")
        #expect(try history(["--json"], environment) == ([], []) as ([String], [String]))
        #expect(dir.entries.isEmpty, "\(dir.entries)")
    }

    @Test func aDamagedStoreIsReportedAndMovedAside() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let environment = ["XDG_STATE_HOME": dir.path]
        try FileManager.default.createDirectory(atPath: dir.path + "/sluice", withIntermediateDirectories: false)
        try Data("not sqlite".utf8).write(to: URL(fileURLWithPath: dir.path + "/sluice/sluice.db"))
        let (lines, notes) = try history([], environment)
        #expect(lines.isEmpty)
        #expect(notes.count == 1 && notes[0].contains("moved to " + dir.path + "/sluice/sluice.db.corrupt-"), "\(notes)")
    }

    @Test func historyIsASubcommand() throws {
        let command = try SluiceCommand.parseAsRoot(["history", "--json", "iso"])
        let history = try #require(command as? HistoryCommand)
        #expect(history.json && history.text == "iso")
    }
}
