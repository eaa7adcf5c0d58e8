// Bodies the engine reads itself: data: URLs from memory and file: URLs from disk, paced by the loop.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// libcurl's file: protocol reads a whole file in one call and cannot pause, so Sluice reads local
/// files itself, one buffer per loop turn, which keeps suspend and backpressure real for them too.
final class LocalSource {
    let length: Int64
    let mediaType: String?
    private let memory: Data?
    private var fd: Int32 = -1
    private var offset: Int64 = 0
    private let pool: BufferPool

    private init(length: Int64, mediaType: String?, memory: Data?, fd: Int32, pool: BufferPool) {
        self.length = length
        self.mediaType = mediaType
        self.memory = memory
        self.fd = fd
        self.pool = pool
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Whether the engine reads URLs of this (lowercased) scheme itself, instead of libcurl receiving them.
    static func reads(scheme: String) -> Bool { scheme == "data" || scheme == "file" }

    static func open(_ url: URL, pool: BufferPool) throws(TransferError) -> LocalSource {
        if url.scheme?.lowercased() == "data" {
            guard let parsed = DataURL(url.absoluteString) else {
                throw TransferError(.badURL, "malformed data: URL", failingURL: url)
            }
            return LocalSource(length: Int64(parsed.body.count), mediaType: parsed.mediaType, memory: parsed.body,
                               fd: -1, pool: pool)
        }
        let path = url.path
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw TransferError(errno == ENOENT ? .fileDoesNotExist : .cannotReadFile, "cannot open \(path): \(reason)",
                                failingURL: url)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw TransferError(.cannotReadFile, "\(path) is not a regular file", failingURL: url)
        }
        return LocalSource(length: Int64(info.st_size), mediaType: nil, memory: nil, fd: fd, pool: pool)
    }

    /// The next chunk, or nil at the end.
    func read() throws(TransferError) -> Data? {
        if let memory {
            guard offset < Int64(memory.count) else { return nil }
            offset = Int64(memory.count)
            return memory
        }
        let buffer = pool.take()  // one delivery-sized buffer per read, reused, never zero-filled
        let n = Glibc.read(fd, buffer, pool.size)
        guard n > 0 else {
            pool.give(buffer)
            if n == 0 { return nil }
            throw TransferError(.cannotReadFile, "read failed: \(String(cString: strerror(errno)))")
        }
        offset += Int64(n)
        return pool.data(buffer, count: n)
    }
}
