// What the soak measures of its own process: open descriptors, threads (and their names), peak RSS.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#endif

enum ProcessFigures {
    static var openDescriptors: Int { entries("/proc/self/fd").count }
    static var threads: Int { entries("/proc/self/task").count }

    /// Each thread's name with how many threads carry it, for a report that says what leaked.
    static var threadNames: String {
        var counts: [String: Int] = [:]
        for id in entries("/proc/self/task") {
            let name = firstLine(of: "/proc/self/task/\(id)/comm")
            counts[name, default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
    }

    /// What each descriptor points to, for a report that says what leaked.
    static var descriptorTargets: String {
        var counts: [String: Int] = [:]
        for fd in entries("/proc/self/fd") {
            var buffer = [CChar](repeating: 0, count: 512)
            let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
            var target = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
            if let bracket = target.firstIndex(of: "[") { target = String(target[..<bracket]) }  // socket:[123] -> socket:
            counts[target, default: 0] += 1
        }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
    }

    /// Peak resident set size so far, in bytes (ru_maxrss is in KiB on Linux).
    static var peakResidentBytes: Int64 {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Int64(usage.ru_maxrss) * 1024
    }

    /// Waits until `value` is at most `limit` (true), or until `seconds` pass (false). Threads of the dispatch
    /// pool and sockets a closing loop still holds go away on their own time; this gives them that time.
    static func settle(_ value: () -> Int, toAtMost limit: Int, within seconds: Double) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
        while value() > limit {
            if DispatchTime.now().uptimeNanoseconds > deadline { return false }
            usleep(50_000)
        }
        return true
    }

    /// Waits until `value` has not changed for `quiet` seconds (at most `seconds` in all); returns the value.
    static func steady(_ value: () -> Int, quiet: Double, within seconds: Double) -> Int {
        let start = DispatchTime.now().uptimeNanoseconds
        var last = value()
        var since = start
        while true {
            usleep(100_000)
            let now = DispatchTime.now().uptimeNanoseconds
            let current = value()
            if current != last { last = current; since = now }
            if Double(now - since) / 1e9 >= quiet || Double(now - start) / 1e9 >= seconds { return current }
        }
    }

    private static func firstLine(of path: String) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else { return "?" }
        return String(decoding: buffer[0..<n].prefix { $0 != 10 }, as: UTF8.self)
    }

    private static func entries(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }
}
