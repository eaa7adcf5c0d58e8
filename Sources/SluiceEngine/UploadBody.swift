// What an upload sends, and the loop-thread reader that feeds it to libcurl's read callback.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

public enum UploadBody: Sendable {
    case data(Data)
    /// Streamed from disk a buffer at a time; never read whole into memory.
    case file(String)
    case stream(UploadStream)
}

/// Loop thread only. Reads the body on demand; the file is opened once, when the transfer starts.
final class UploadReader {
    enum Read { case bytes(Int), pause, end, failure(TransferError) }

    /// Nil when the length is not known in advance (a stream): the request is sent chunked.
    let length: Int64?
    private let body: UploadBody
    /// A file's or a stream's bytes: no form data, whatever the method.
    var isFileOrStream: Bool {
        if case .data = body { return false }
        return true
    }
    private var fd: Int32 = -1
    private var offset = 0

    init(_ body: UploadBody, url: URL) throws(TransferError) {
        self.body = body
        switch body {
        case .data(let data):
            length = Int64(data.count)
        case .stream:
            length = nil
        case .file(let path):
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let code: TransferError.Code = errno == ENOENT ? .fileDoesNotExist : .cannotReadFile
                throw TransferError(code, "cannot open \(path): \(String(cString: strerror(errno)))", failingURL: url)
            }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                Glibc.close(fd)
                fd = -1
                throw TransferError(.cannotReadFile, "\(path) is not a regular file", failingURL: url)
            }
            length = Int64(info.st_size)
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> Read {
        switch body {
        case .data(let data):
            let n = min(buffer.count, data.count - offset)
            guard n > 0 else { return .end }
            data.withUnsafeBytes { raw in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + n)]))
            }
            offset += n
            return .bytes(n)
        case .file(let path):
            while true {
                let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if n > 0 { return .bytes(n) }
                if n == 0 { return .end }
                if errno == EINTR { continue }
                return .failure(TransferError(.cannotReadFile, "cannot read \(path): \(String(cString: strerror(errno)))"))
            }
        case .stream(let stream):
            switch stream.read(into: buffer, wake: wake) {
            case .bytes(let n): return .bytes(n)
            case .empty: return .pause
            case .end: return .end
            }
        }
    }

    /// Back to the first byte, for a request libcurl must send again (a 307 or 308 redirect). Streams cannot.
    func rewind() -> Bool {
        switch body {
        case .data:
            offset = 0
            return true
        case .file:
            return lseek(fd, 0, SEEK_SET) == 0
        case .stream:
            return false
        }
    }

    /// The task ended: a stream's writer must stop waiting.
    func close(_ error: TransferError) {
        if case .stream(let stream) = body { stream.close(error) }
    }
}

enum FileSize {
    /// A regular file's size, or nil when it cannot be read.
    static func of(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}
