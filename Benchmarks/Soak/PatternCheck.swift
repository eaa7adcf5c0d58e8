// Whether bytes are the scenario server's pattern at a given offset, compared a period at a time with memcmp.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceScenarioServer

enum PatternCheck {
    private static let period = ScenarioPattern.period
    /// One period of the pattern; any run of it starts somewhere in here and wraps to its start.
    private static let cycle: [UInt8] = ScenarioPattern.bytes(offset: 0, count: ScenarioPattern.period)

    static func matches(_ data: Data, at offset: Int64) -> Bool {
        data.withUnsafeBytes { raw in matches(raw, at: offset) }
    }

    static func matches(_ raw: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        guard let base = raw.baseAddress else { return true }
        return cycle.withUnsafeBytes { pattern -> Bool in
            guard let start = pattern.baseAddress else { return false }
            var done = 0
            var position = Int(offset % Int64(period))
            while done < raw.count {
                let n = min(raw.count - done, period - position)
                if memcmp(base + done, start + position, n) != 0 { return false }
                done += n
                position = 0
            }
            return true
        }
    }

    /// The size of the file at `path` and whether all of it is the pattern from byte 0.
    static func file(_ path: String) -> (size: Int64, matches: Bool) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (-1, false) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var size: Int64 = 0
        var ok = true
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return (size, false) }
            if n == 0 { return (size, ok) }
            if ok { ok = buffer.withUnsafeBytes { matches(UnsafeRawBufferPointer(rebasing: $0[0..<n]), at: size) } }
            size += Int64(n)
        }
    }
}
