// What `sluice get -o` names, decided once before any byte moves: an open descriptor (- or /dev/stdout), a stream
// written into as it is (a character device, a FIFO, a socket), or a file saved beside itself and moved into place.
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

enum OutputTarget {
    /// `-o -` (standard output, as curl reads it), /dev/stdout, /dev/stderr, /dev/fd/N: written through, never
    /// closed or replaced.
    case descriptor(Int32)
    /// Written into directly: nothing is created, truncated, renamed or kept for resuming; no --force needed,
    /// since writing into a device or a pipe replaces nothing the user keeps.
    case stream(path: String, isSocket: Bool)
    /// A regular file, existing or not: the download path (temporary file, resume data, --force to replace).
    case file(OutputFile)

    /// Whether `given` names the null device (/dev/null, or a link to it): what goes there is thrown away.
    static func isNullDevice(_ given: String) -> Bool {
        var info = stat(), null = stat()
        guard stat(given, &info) == 0, stat("/dev/null", &null) == 0 else { return false }
        return info.st_mode & S_IFMT == S_IFCHR && info.st_rdev == null.st_rdev
    }

    /// Symlinks count as what they point to; a directory is an error that names --output-dir, the option that
    /// saves inside one under the server's name.
    static func classify(_ given: String, force: Bool) throws(CLIFailure) -> OutputTarget {
        if given == "-" { return .descriptor(1) }
        let name = Sanitized.text(given)
        guard !given.isEmpty else { throw CLIFailure(code: 2, message: "-o needs a file name") }
        if let fd = FollowedPath.openDescriptor(given) { return .descriptor(fd) }
        let path = try FollowedPath.resolve(given)
        var info = stat()
        guard stat(path, &info) == 0 else {
            return .file(try OutputFile(path, shownAs: given))  // a new file (OutputFile names what is missing)
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw CLIFailure(code: 1, message: "\(name) is a directory; to save inside it under the server's name, "
                             + "use --output-dir \(name)")
        case S_IFCHR, S_IFIFO:
            return .stream(path: path, isSocket: false)
        case S_IFSOCK:
            return .stream(path: path, isSocket: true)
        case S_IFBLK:
            // A disk holds data as a file does: overwriting it is a replacement the user must ask for.
            guard force else {
                throw CLIFailure(code: 1, message: "\(name) is a block device; use --force to write the body over its contents")
            }
            return .stream(path: path, isSocket: false)
        default:
            return .file(try OutputFile(path, shownAs: given))
        }
    }

    /// Opens a stream target for writing as it is: never created, never truncated. A FIFO waits here for its
    /// reader, as with curl. A socket is connected to (open(2) cannot open one).
    static func openStream(_ path: String, isSocket: Bool, shownAs given: String) throws(CLIFailure) -> Int32 {
        let fd = isSocket ? connectUnixSocket(path) : retryingInterrupts { open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY) }
        guard fd >= 0 else {
            throw CLIFailure(code: 1, message: "cannot write \(Sanitized.text(given)): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    private static func retryingInterrupts(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// A connected stream socket, or -1 with errno set.
    private static func connectUnixSocket(_ path: String) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return -1 }
        let connected = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                connect(fd, p, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let saved = errno
            close(fd)
            errno = saved
            return -1
        }
        return fd
    }
}
