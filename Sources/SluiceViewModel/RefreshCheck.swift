// Whether a download's bytes may continue from a new URL (`sluice refresh`): only when the new URL serves the same
// file as far as HTTP can tell, the same total size and the same validator. Anything else is refused with what
// differs, and nothing is lost; with `force`, a file whose first response gave no validator may continue.
public enum RefreshCheck {
    /// What the partial file was fetched as (its checkpoint's facts).
    public struct Old: Sendable, Equatable {
        public let size: Int64?
        public let etag: String?
        public let lastModified: String?
        public init(size: Int64?, etag: String?, lastModified: String?) {
            (self.size, self.etag, self.lastModified) = (size, etag, lastModified)
        }
    }

    /// What the new URL answered to a one-byte range request.
    public struct New: Sendable, Equatable {
        public let status: Int
        /// The whole file's size: Content-Range's total for a 206, Content-Length for a 200.
        public let size: Int64?
        public let etag: String?
        public let lastModified: String?
        /// The bytes a 206 said it sent (its Content-Range), when it said.
        public let sent: ClosedRange<Int64>?
        public init(status: Int, size: Int64?, etag: String?, lastModified: String?, sent: ClosedRange<Int64>? = nil) {
            (self.status, self.size, self.etag, self.lastModified, self.sent) = (status, size, etag, lastModified, sent)
        }
    }

    public enum Decision: Equatable, Sendable {
        case reuse
        case refuse(String)
    }

    /// `forceHint`: what the refusal of a file without validators tells the user to do, as the caller offers it
    /// (`sluice refresh` and the UI have --force; `get`, whose --force replaces files, has none).
    public static func decide(old: Old, new: New, force: Bool, forceHint: String? = "--force to continue anyway") -> Decision {
        guard (200...299).contains(new.status) else { return .refuse("the new URL answers \(new.status), not the file") }
        guard let newSize = new.size else { return .refuse("the new URL does not say the file's size") }
        if let oldSize = old.size, oldSize != newSize {
            return .refuse("the new URL's file is \(newSize) bytes, the partial one's \(oldSize)")
        }
        if let etag = old.etag {
            // A weak validator (W/) says "the same meaning", not the same bytes: not enough to splice bytes.
            guard !etag.hasPrefix("W/"), new.etag == etag else {
                return .refuse("the new URL's ETag is \(new.etag ?? "missing"), the partial file's \(etag)")
            }
            return .reuse
        }
        if let modified = old.lastModified {
            guard new.lastModified == modified else {
                return .refuse("the new URL's Last-Modified is \(new.lastModified ?? "missing"), the partial file's \(modified)")
            }
            return .reuse
        }
        return force ? .reuse : .refuse("the first response had no ETag or Last-Modified, so nothing proves it is the same file"
                                        + (forceHint.map { ": " + $0 } ?? ""))
    }
}
