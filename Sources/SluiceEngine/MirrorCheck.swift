// Whether a mirror's answer to a range request is that range of the same file: checked before any byte counts.

/// A mirror is trusted only with what the first response said of the file: its length, and the validator that
/// went out as If-Range (its strong ETag, else its Last-Modified). Pure, so each refusal is tested without sockets.
struct MirrorCheck: Equatable, Sendable {
    enum Validator: Equatable, Sendable {
        case etag(String)
        case lastModified(String)
    }

    /// The file's length, from the first response.
    let total: Int64
    /// Nil when the first response had neither: then nothing proves a mirror serves the same file.
    let validator: Validator?

    static let noValidator = "the first response has no ETag or Last-Modified to compare mirrors with"

    /// The first response's validator, as If-Range sends it: a weak ETag cannot be used for ranges.
    static func validator(of response: Response) -> Validator? {
        if let etag = response.headers["ETag"], !etag.hasPrefix("W/") { return .etag(etag) }
        return response.headers["Last-Modified"].map(Validator.lastModified)
    }

    /// What is wrong with `response` as a mirror's answer to a request for the bytes from `first`, or nil when it
    /// is that range of the file. The words go into the task's timeline; header values are cut short.
    func problem(with response: Response, first: Int64) -> String? {
        guard let validator else { return Self.noValidator }
        let status = response.statusCode ?? 0
        guard status == 206 || status == 200 else { return "answered \(status) to a range request" }
        if let different = differentValidator(response, validator) { return "serves another file (\(different))" }
        guard status == 206 else {
            return "answered 200 with the whole body instead of a range (it ignores ranges, or its file differs)"
        }
        let field = response.headers["Content-Range"]
        guard let range = field.flatMap(ContentRange.parse), range.first == first else {
            return "asked for bytes from \(first), it sent Content-Range \(Self.clip(field ?? "(none)"))"
        }
        guard range.total == total else {
            return "serves another file (\(range.total.map(String.init) ?? "unknown") bytes, not \(total))"
        }
        return nil
    }

    private func differentValidator(_ response: Response, _ validator: Validator) -> String? {
        switch validator {
        case .etag(let expected):
            let etag = response.headers["ETag"]
            return etag == expected ? nil : "ETag \(Self.clip(etag ?? "(none)")), not \(Self.clip(expected))"
        case .lastModified(let expected):
            let date = response.headers["Last-Modified"]
            return date == expected ? nil : "Last-Modified \(Self.clip(date ?? "(none)")), not \(Self.clip(expected))"
        }
    }

    /// A server's header value in a reason: at most 80 characters.
    private static func clip(_ value: String) -> String {
        value.count > 80 ? String(value.prefix(79)) + "…" : value
    }
}
