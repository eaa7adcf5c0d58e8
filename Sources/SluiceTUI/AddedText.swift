// What the add prompt (`a`) takes besides one URL: a pasted "Copy as cURL" command (its URL, method, headers,
// cookies and body become the task's request) and curl's URL globbing (`file[1-20].bin` is twenty tasks).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

public struct AddedText: Sendable {
    public let urls: [String]
    /// The pasted command, when the text was one.
    public let paste: CurlPaste?
    /// Flags of the paste that were not used, in one sentence.
    public let warning: String?

    /// At most this many tasks from one line: a pattern that expands further is refused, not half added.
    public static let limit = 10_000

    /// The prompt's text added task by task, the same way in this process and in the daemon: `add` takes each URL
    /// (with the text read, for a paste's request) and says why it could not. The message for the user, if any.
    public static func add(_ text: String, each add: (AddedText, String) -> String?) -> String? {
        let added: AddedText
        switch read(text) {
        case .success(let read): added = read
        case .failure(let problem): return problem.message
        }
        for url in added.urls {
            if let problem = add(added, url) { return problem }
        }
        if let warning = added.warning { return "added; " + warning }
        return added.urls.count > 1 ? "added \(added.urls.count) tasks" : nil
    }

    public static func read(_ text: String) -> Result<AddedText, AddError> {
        let trimmed = text.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
        if trimmed.hasPrefix("curl ") || trimmed.hasPrefix("curl\t") {
            let paste: CurlPaste
            do throws(CurlPaste.Failure) { paste = try CurlPaste.parse(String(trimmed)) } catch {
                let text = Sanitized.text(error.message)  // some already name it ("the pasted command has no URL")
                return .failure(AddError(message: text.hasPrefix("the pasted command") ? text : "the pasted command: " + text))
            }
            if paste.insecure || paste.proxy != nil {
                return .failure(AddError(message: "the paste asks for -k or -x, which set up a whole session: use sluice get --curl for it"))
            }
            var urls: [String] = []
            for url in paste.urls {
                switch expand(url, globOff: paste.globOff) {
                case .success(let more): urls += more
                case .failure(let problem): return .failure(problem)
                }
            }
            guard !urls.isEmpty else { return .failure(AddError(message: "the pasted command has no URL")) }
            var unused = paste.httpVersion == nil ? [] : ["its HTTP version (the session chooses)"]
            if let limits = paste.limits.unused { unused.append(limits + " (the session's own)") }
            let warning = [paste.warning, unused.isEmpty ? nil : "not used: " + unused.joined(separator: ", ")].compactMap { $0 }
            return .success(AddedText(urls: urls, paste: paste, warning: warning.isEmpty ? nil : warning.joined(separator: "; ")))
        }
        return expand(String(trimmed), globOff: false).map { AddedText(urls: $0, paste: nil, warning: nil) }
    }

    private static func expand(_ url: String, globOff: Bool) -> Result<[String], AddError> {
        guard !globOff, url.utf8.contains(where: { "[]{}".utf8.contains($0) }) else { return .success([url]) }
        let glob: URLGlob
        do throws(URLGlob.Failure) { glob = try URLGlob(url) } catch {
            return .failure(AddError(message: Sanitized.text(error.message)))
        }
        guard glob.count <= limit else { return .failure(AddError(message: "\(glob.count) URLs from one line: at most \(limit)")) }
        return .success(glob.expansions().map(\.url))
    }

    /// The request for `url`: the paste's method, headers, cookies, credentials and body; nil for a plain URL.
    public func request(for url: URL) -> Request? {
        guard let paste else { return nil }
        var headers = HTTPHeaders()
        for line in paste.headers {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = String(parts[0]).trimmingBlanks()
            let value = String(parts[1]).trimmingBlanks()
            // Sluice asks for the encodings its libcurl decodes; a browser's list could leave the file compressed.
            if name.lowercased() == "accept-encoding" || value.isEmpty { continue }
            headers.add(name, value)
        }
        if !paste.cookies.isEmpty && headers["Cookie"] == nil { headers.add("Cookie", paste.cookies.joined(separator: "; ")) }
        if let user = paste.user, headers["Authorization"] == nil {
            headers.add("Authorization", "Basic " + Data(user.utf8).base64EncodedString())
        }
        let body = paste.body.map { Data($0) }
        if body != nil && headers["Content-Type"] == nil { headers.add("Content-Type", "application/x-www-form-urlencoded") }
        return Request(url: url, method: paste.effectiveMethod, headers: headers, body: body)
    }
}
