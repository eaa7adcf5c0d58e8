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
}
