// The URLs of one `sluice get`, checked whole before any transfer starts and made into URLs as their transfers
// start. Foundation's parser costs about 5,000 instructions a URL: for a list of 2,000 that was 10 M before the first
// connection, while curl's whole start-up is 22 M.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceViewModel

struct URLTargets {
    let texts: [String]
    /// By position: the URL parsed by the check (a text `ParsedURL.isPlainWeb` could not vouch for), else nil.
    private let checked: [URL?]

    /// Every text checked: a plain web URL by one pass over its bytes, any other by parsing it.
    /// `list`: the -i file the texts from `listStart` on came from, so that a refusal names its line.
    init(_ texts: [String], list: String? = nil, listStart: Int = 0) throws {
        var checked: [URL?] = []
        checked.reserveCapacity(texts.count)
        for (position, text) in texts.enumerated() {
            if ParsedURL.isPlainWeb(text) {
                checked.append(nil)
                continue
            }
            guard let url = ParsedURL.parse(text) else { throw Self.refused(text, inList: position >= listStart ? list : nil) }
            checked.append(url)
        }
        self.texts = texts
        self.checked = checked
    }

    /// URLs parsed already (one of a glob's, run on its own).
    init(urls: [URL]) {
        texts = urls.map(\.absoluteString)
        checked = urls
    }

    var count: Int { texts.count }

    /// The URL at `position`. Nil only if the parser refused what the check vouched for (the tests say it does not).
    func url(at position: Int) -> URL? { checked[position] ?? ParsedURL.parse(texts[position]) }

    /// All of them, for the paths that take few URLs; a refusal the check did not foresee is the command's error.
    func all() throws -> [URL] {
        try texts.indices.map { position in
            guard let url = url(at: position) else { throw Self.refused(texts[position]) }
            return url
        }
    }

    static func refused(_ text: String) -> CLIFailure {
        // A bare word is more likely a mistyped command (`sluice sotp`) than a URL.
        let isWord = !text.isEmpty && text.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 65 && $0 <= 90) || $0 == 45 }
        let hint = isWord ? " (nor a command: sluice --help lists them)" : ""
        return CLIFailure(code: 2, message: "not a URL sluice can fetch: \(Sanitized.text(text))" + hint)
    }

    /// A refused URL of an -i list, named by its file and line, the whole line quoted: "urls.txt:2: not a URL sluice
    /// can fetch: not a url at all". The list is checked whole before any transfer starts, so nothing was fetched.
    static func refused(_ text: String, inList path: String?) -> CLIFailure {
        guard let path, path != "-", let (number, line) = URLList.line(startingWith: text, in: path) else { return refused(text) }
        return CLIFailure(code: 2, message: "\(Sanitized.text(path)):\(number): not a URL sluice can fetch: \(Sanitized.text(line)) (nothing was fetched; fix or remove the line)")
    }
}
