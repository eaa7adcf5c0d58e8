// `sluice get -o FILE --split N --mirrors URL --checksum ALGO=HEX`: how one download is fetched, and what it must be.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

struct SplitOptions: ParsableArguments {
    @Option(name: .customLong("split"), parsing: .unconditional, help: ArgumentHelp("With -o: fetch the file as N ranges over N connections at once when the server accepts ranges (1, the default: one connection, as curl and wget; with --mirrors: one per URL).", valueName: "N"))
    var splitGiven: Int?

    // One URL per flag (not upToNextOption): long runs of plain arguments are folded before parsing (ArgumentRuns).
    @Option(parsing: .unconditionalSingleValue, help: ArgumentHelp("With -o: another URL of the same file (repeat the flag for more); ranges are spread over every URL, and a mirror that serves anything else is dropped.", valueName: "URL"))
    var mirrors: [String] = []

    /// How many connections: as --split says, else one per URL.
    var split: Int { splitGiven ?? min(Self.maximum, 1 + mirrors.count) }

    @Option(parsing: .unconditional, help: ArgumentHelp("With -o: the file's digest (sha256, sha512 or md5, as hex); a file that does not match is removed and nothing is named FILE.", valueName: "ALGO=HEX"))
    var checksum: ChecksumOption?

    /// aria2 allows 16 connections per server; more only burdens the server.
    static let maximum = 16

    func validate() throws {
        guard (1...Self.maximum).contains(splitGiven ?? 1) else {
            throw ValidationError("--split takes 1 to \(Self.maximum) connections")
        }
    }

    /// The mirrors as URLs: http or https only, since they must answer range requests.
    func mirrorURLs() throws -> [URL] {
        try mirrors.map { text in
            guard let url = ParsedURL.parse(text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                throw CLIFailure(code: 2, message: "--mirrors takes http or https URLs, not \(Sanitized.text(text))")
            }
            return url
        }
    }

    /// Applies the split and the mirrors to a download task (a data task that may become one keeps one connection).
    func apply(to task: SessionTask, mirrors: [URL]) {
        guard let download = task as? DownloadTask else { return }
        download.split = split
        download.mirrors = mirrors
    }
}
