// The one file a download writes: created once, written as bytes arrive through one descriptor, then handed
// to the delegate, kept as resume data, or removed.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Used from one serial queue at a time (the download's writer queue), so it needs no lock.
final class DownloadFile: @unchecked Sendable {
    let path: String
    private var fd: Int32
    /// Bytes in the file.
    private(set) var size: Int64

    private init(path: String, fd: Int32, size: Int64) {
        self.path = path
        self.fd = fd
        self.size = size
    }

    deinit { close() }

    /// A new empty file in `directory` with a name nobody else holds; permissions as a plain `open` would give.
    static func create(in directory: String) throws(TransferError) -> DownloadFile {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        var template = Array((base + ".sluice-XXXXXX.download").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemps($0, 9) } ?? -1 }
        guard fd >= 0 else {
            throw TransferError(.cannotWriteToFile, "cannot create a file in \(directory): \(Self.reason(errno))")
        }
        _ = fchmod(fd, 0o666 & ~creationMask)
        let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return DownloadFile(path: path, fd: fd, size: 0)
    }

    /// The file at `path`, created or emptied: a download's visible partial file beside its target, a name the
    /// caller derived and owns (FILE.sluice-part), never a user's file. `exclusive`: created here or not at all,
    /// for a name the caller chose as free (another process may have taken it since).
    /// The file is emptied only once its lock is held: one that another download is writing is left as it is. Never
    /// through a symbolic link, never a FIFO or a device.
    static func create(at path: String, exclusive: Bool = false) throws(TransferError) -> DownloadFile {
        let fd = open(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : 0) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            if errno == EEXIST { throw TransferError(.cannotCreateFile, "cannot create \(path): another program took the name meanwhile") }
            throw TransferError(.cannotWriteToFile, "cannot create \(path): \(Self.reason(errno))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw TransferError(.cannotWriteToFile, "cannot use \(path): it is not a regular file")
        }
        guard PartialFileLock.take(fd) else {
            if exclusive { unlink(path) }  // made here a moment ago: not the other download's
            Glibc.close(fd)
            throw TransferError(.cannotCreateFile, "cannot use \(path): another download is writing it")
        }
        guard exclusive || ftruncate(fd, 0) == 0 else {
            let failure = TransferError(.cannotWriteToFile, "cannot empty \(path): \(Self.reason(errno))")
            Glibc.close(fd)
            throw failure
        }
        return DownloadFile(path: path, fd: fd, size: 0)
    }

    /// Puts the bytes written so far on the disk, so that a checkpoint never claims more than a crash keeps.
    func sync() -> Bool { fdatasync(fd) == 0 }

    /// An existing partial file cut to `offset` bytes; nil when it is missing or shorter than that. A split
    /// download's file keeps what lies past `offset` (`truncating: false`): its finished segments are there.
    /// Nil too when another download holds the file's lock: `create(at:)` then says so.
    static func reopen(_ path: String, at offset: Int64, truncating: Bool = true) -> DownloadFile? {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= offset, PartialFileLock.take(fd),
              !truncating || ftruncate(fd, off_t(offset)) == 0, lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else {
            Glibc.close(fd)
            return nil
        }
        return DownloadFile(path: path, fd: fd, size: truncating ? offset : Int64(info.st_size))
    }

    func append(_ data: Data) throws(TransferError) {
        let failure = data.withUnsafeBytes { raw -> TransferError? in
            do throws(TransferError) { try append(raw) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Writes all of `bytes` at the end of the file.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(fd, p, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw TransferError(.cannotWriteToFile, "cannot write \(path): \(Self.reason(errno))")
            }
            p += n
            left -= n
            size += Int64(n)
        }
    }

    /// Writes all of `bytes` at `offset`, leaving the descriptor's position alone: a split download's segments.
    func place(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(TransferError) {
        guard var p = bytes.baseAddress else { return }
        var left = bytes.count
        var at = offset
        while left > 0 {
            let n = pwrite(fd, p, left, off_t(at))
            if n < 0 {
                if errno == EINTR { continue }
                throw TransferError(.cannotWriteToFile, "cannot write \(path): \(Self.reason(errno))")
            }
            p += n
            left -= n
            at += Int64(n)
        }
        size = max(size, at)
    }

    /// Empties the file, for a server that sent the whole body again instead of the range asked for.
    func truncate() throws(TransferError) {
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw TransferError(.cannotWriteToFile, "cannot empty \(path): \(Self.reason(errno))")
        }
        size = 0
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Unlinked while still open (and locked): no other download can take the name in between and lose its file.
    func remove() {
        unlink(path)
        close()
    }

    static func reason(_ code: Int32) -> String {
        switch code {
        case ENOSPC: "the disk is full"
        case EDQUOT: "the disk quota is used up"
        case EFBIG: "the file would pass the size limit"
        case ELOOP: "it is a symbolic link, which sluice does not follow there"  // O_NOFOLLOW's answer
        case EROFS: "the file system is read-only"
        default: String(cString: strerror(code))
        }
    }

    /// The process's umask, read once (reading it means setting it, so not on every download).
    private static let creationMask: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }()
}
