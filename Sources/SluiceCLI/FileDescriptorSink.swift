// Writes body bytes to a file descriptor whole, retrying short writes and EINTR; reports the first failure.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

final class FileDescriptorSink {
    let fd: Int32
    private(set) var failure: String?

    init(fd: Int32) { self.fd = fd }

    /// False once a write has failed (a closed pipe, a full disk); later calls do nothing.
    @discardableResult
    func write(_ data: Data) -> Bool {
        guard failure == nil else { return false }
        data.withUnsafeBytes { raw in
            guard var p = raw.baseAddress else { return }
            var left = raw.count
            while left > 0 {
                let n = Glibc.write(fd, p, left)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno))
                    return
                }
                p += n
                left -= n
            }
        }
        return failure == nil
    }

    /// Writes a whole file's bytes (a finished download) through the sink; why it could not, or nil.
    func copy(fromFileAt path: String) -> String? {
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return "cannot read \(path): \(String(cString: strerror(errno)))" }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return "cannot read \(path): \(String(cString: strerror(errno)))" }
            if n == 0 { return nil }
            guard write(Data(buffer[0..<n])) else { return failure }
        }
    }
}
