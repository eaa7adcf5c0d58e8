// A path with its symlinks followed to what they finally name, which may not exist yet (a dangling link's target).
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

enum FollowedPath {
    /// Where `path` leads once every symlink in its last component is followed (directories above it are left to
    /// the kernel); `path` itself when it is not a link. Fails on a loop, as open(2) would (ELOOP after 40).
    static func resolve(_ path: String) throws(CLIFailure) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let target = readLink(current) else {
                return current
            }
            // A relative target is relative to the directory that holds the link, not to the working directory.
            current = target.hasPrefix("/") ? target : directoryPart(of: current) + target
        }
        throw CLIFailure(code: 1, message: "cannot write \(Sanitized.text(path)): too many levels of symbolic links")
    }

    /// The descriptor a path names through /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N (following
    /// links to them), if it does. Such a path is this process's own open descriptor, whatever it points to: a
    /// pipe, a terminal, or a file the shell opened with `>`, which must be written through, never replaced.
    static func openDescriptor(_ path: String) -> Int32? {
        var current = path
        for _ in 0..<40 {
            for prefix in ["/proc/self/fd/", "/dev/fd/"] where current.hasPrefix(prefix) {
                if let fd = Int32(current.dropFirst(prefix.count)), fcntl(fd, F_GETFD) >= 0 { return fd }
            }
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let target = readLink(current) else {
                return nil
            }
            current = target.hasPrefix("/") ? target : directoryPart(of: current) + target
        }
        return nil
    }

    /// "a/b/c" -> "a/b/", "/c" -> "/", "c" -> "".
    private static func directoryPart(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            b.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: b.count) { readlink(path, $0, b.count - 1) }
            } ?? -1
        }
        return n <= 0 ? nil : String(decoding: buffer[0..<n], as: UTF8.self)
    }
}
