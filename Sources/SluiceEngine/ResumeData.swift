// What a stopped download needs to continue: where it came from, the partial file, and how to know the
// server still has the same resource. Encoded as a small JSON document so it can be kept in a file.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

public struct ResumeData: Codable, Sendable, Equatable {
    public var version = 1
    public var url: String
    /// The partial file; its first `bytesOnDisk` bytes are the start of the body.
    public var path: String
    public var bytesOnDisk: Int64
    public var etag: String?
    public var lastModified: String?
    /// The whole body's length when the server announced it.
    public var expectedLength: Int64?
    /// A split download's ranges still to fetch, `[start, end)` each; the rest of the file past `bytesOnDisk`
    /// is on disk. Absent for one connection; a reader that ignores it still resumes correctly from `bytesOnDisk`.
    public var pending: [[Int64]]?
    /// How many connections the split download used.
    public var connections: Int?
    /// The partial file began as a file the user had, this many bytes of it (`-C -` took it over): a download
    /// whose check fails gives them back under their name instead of removing them. Carried by every later
    /// checkpoint of the same download, so that a retry or a run after a stop knows it too.
    public var adoptedBytes: Int64?

    public init(url: String, path: String, bytesOnDisk: Int64, etag: String?, lastModified: String?, expectedLength: Int64?,
                pending: [[Int64]]? = nil, connections: Int? = nil, adoptedBytes: Int64? = nil) {
        self.url = url
        self.path = path
        self.bytesOnDisk = bytesOnDisk
        self.etag = etag
        self.lastModified = lastModified
        self.expectedLength = expectedLength
        self.pending = pending
        self.connections = connections
        self.adoptedBytes = adoptedBytes
    }

    /// The pending ranges when they make sense for the expected length; nil otherwise (then resume from
    /// `bytesOnDisk` as one connection would).
    var pendingRanges: [(Int64, Int64)]? {
        guard let pending, let total = expectedLength, !pending.isEmpty else { return nil }
        let ranges = pending.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        guard ranges.count == pending.count, ranges.allSatisfy({ $0.0 >= 0 && $0.0 < $0.1 && $0.1 <= total }),
              ranges.first?.0 == bytesOnDisk else { return nil }
        return ranges
    }

    /// The same download continued from the partial file at `newPath`, which holds `size` bytes. Resume data
    /// names the file it was written beside; a pair copied or moved elsewhere, or a checkpoint planted under a
    /// download's name, names another file, which must never be the one continued. Bytes the file does not hold
    /// are fetched again, and so are a split download's finished ranges unless the file reaches its whole length.
    public func placed(at newPath: String, size: Int64) -> ResumeData {
        var placed = self
        placed.path = newPath
        let holdsPlan = pending == nil || newPath == path || expectedLength.map { size >= $0 } == true
        if size < bytesOnDisk || !holdsPlan {
            placed.bytesOnDisk = min(bytesOnDisk, max(0, size))
            placed.pending = nil
            placed.connections = nil
        }
        return placed
    }

    public func encoded() -> Data {
        (try? JSONEncoder().encode(self)) ?? Data()  // a struct of strings and integers always encodes
    }

    public static func decode(_ data: Data) -> ResumeData? {
        guard let value = try? JSONDecoder().decode(ResumeData.self, from: data),
              value.version == 1, value.bytesOnDisk >= 0, !value.path.isEmpty else { return nil }
        return value
    }

    /// The validator for `If-Range`: a strong ETag, else the date (RFC 9110 section 13.1.5 forbids weak ETags).
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}
