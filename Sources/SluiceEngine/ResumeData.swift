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

    public init(url: String, path: String, bytesOnDisk: Int64, etag: String?, lastModified: String?, expectedLength: Int64?) {
        self.url = url
        self.path = path
        self.bytesOnDisk = bytesOnDisk
        self.etag = etag
        self.lastModified = lastModified
        self.expectedLength = expectedLength
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
