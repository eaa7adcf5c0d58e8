// Writes body bytes to a file descriptor whole, retrying short writes and EINTR; reports the first failure. A body
// with a NUL byte is not written to a terminal unless asked (`-o -`), as curl refuses it: escape sequences in it
// would reach the terminal, and the screen would be garbage anyway.
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
    /// Binary bytes are refused (standard output is a terminal and no `-o -` asked for them there).
    let refusesBinary: Bool

    static let binaryRefused = "the body is binary, which would garble the terminal: -o - writes it there anyway, -o FILE or -O saves it"

    /// What a failed write ends the command with: the refusal says it all; anything else is named with `what` it
    /// was writing ("the body to standard output").
    static func failureMessage(_ failure: String, writing what: String) -> String {
        failure == binaryRefused ? failure : "cannot write \(what): \(failure)"
    }

    init(fd: Int32, refusesBinary: Bool = false) {
        self.fd = fd
        self.refusesBinary = refusesBinary
    }

    /// Standard output, refusing binary bodies when it is a terminal nobody asked for by name (`-o -`).
    static func standardOutput(named: Bool) -> FileDescriptorSink {
        FileDescriptorSink(fd: 1, refusesBinary: !named && isatty(1) == 1)
    }

    /// False once a write has failed (a closed pipe, a full disk); later calls do nothing.
    @discardableResult
    func write(_ data: Data) -> Bool {
        guard failure == nil else { return false }
        if refusesBinary, data.contains(0) {
            failure = Self.binaryRefused
            return false
        }
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
