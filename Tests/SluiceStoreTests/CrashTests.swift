// A process killed with SIGKILL while it updates the store loses at most its last batches, and the file opens
// undamaged: the child (Tests/StoreChild) never flushes.
import Foundation
import SluiceStore
import Testing

@Suite struct CrashTests {
    /// The child's executable, built beside this test binary (the test target depends on it).
    static var childPath: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("sluice-store-child").path
    }

    @Test func aKilledWriterLosesAtMostTheBatchesInFlight() async throws {
        let dir = try Scratch()
        defer { dir.remove() }
        #expect(FileManager.default.isExecutableFile(atPath: Self.childPath), "not built: \(Self.childPath)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.childPath)
        process.arguments = [dir.path, "0.1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        try pipe.fileHandleForWriting.close()
        let pid = process.processIdentifier

        // Each line is "VALUE COMMITS": update VALUE was queued, then COMMITS batches had been written. Kill the
        // child once it reports four, then read what it printed before it died.
        let output = await offThePool { () -> String in
            let fd = pipe.fileHandleForReading.fileDescriptor
            var text = Data()
            var killed = false
            var buffer = [UInt8](repeating: 0, count: 65536)
            let deadline = Date().addingTimeInterval(60)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                text.append(contentsOf: buffer[0..<n])
                if !killed, let last = String(decoding: text.suffix(64), as: UTF8.self).split(separator: "\n").dropLast().last,
                   let commits = last.split(separator: " ").last.flatMap({ Int($0) }), commits >= 4 || Date() > deadline {
                    kill(pid, SIGKILL)
                    killed = true
                }
            }
            return String(decoding: text, as: UTF8.self)
        }
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)

        var lines = output.split(separator: "\n")
        let id = try #require(lines.first.flatMap { $0.hasPrefix("id ") ? Int64($0.dropFirst(3)) : nil }, "\(output.prefix(200))")
        lines.removeFirst()
        let reports = lines.compactMap { line -> (value: Int64, commits: Int)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Int64(parts[0]), let commits = Int(parts[1]) else { return nil }
            return (value, commits)
        }
        let seen = try #require(reports.map(\.commits).max())
        #expect(seen >= 4, "the child was killed after four batches")
        // An update reported with COMMITS = c was in batch c+1 or c+2, so every update reported with c <= seen - 2
        // was in a batch that committed before the kill.
        let durable = try #require(reports.filter { $0.commits <= seen - 2 }.map(\.value).max())
        let last = try #require(reports.last?.value)

        let store = try TaskStore(directory: dir.path)
        #expect(store.notice == nil, "the file is whole: \(store.notice ?? "")")
        let row = try #require(try store.all().first { $0.id == id })
        #expect(row.bytesReceived >= durable && row.bytesReceived <= last + 1, "kept \(row.bytesReceived), committed at least \(durable), last printed \(last)")
    }
}

/// Runs blocking work on a thread of its own, off Swift's cooperative pool.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}
