// A file the user names, read whole with open and read: a regular file, and also a pipe or a FIFO
// (`-i <(grep jpg list)`, `-b <(...)`, /dev/fd/N, `-` for standard input), which FileManager's
// contents(atPath:) refused. curl and aria2c read all of these.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public enum WholeFile {
    /// Why a file could not be read: the C library's errno and its text.
    public struct Failure: Error, Equatable {
        public let errno: Int32
        public var reason: String { String(cString: strerror(errno)) }
        /// The file does not exist (a missing optional file is often no error).
        public var isMissing: Bool { errno == ENOENT }
    }

    /// The file's bytes; "-" is standard input, read to its end.
    public static func read(_ path: String) -> Result<Data, Failure> {
        if path == "-" { return read(descriptor: 0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(errno: errno)) }
        defer { close(fd) }
        return read(descriptor: fd)
    }

    /// Everything left in an open descriptor, to its end.
    public static func read(descriptor fd: Int32) -> Result<Data, Failure> {
        var result = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(Failure(errno: errno))  // EISDIR for a directory
            }
            if n == 0 { return .success(result) }
            result.append(contentsOf: buffer[0..<n])
        }
    }
}
