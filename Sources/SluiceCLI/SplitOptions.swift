// `sluice get -o FILE --split N --checksum ALGO=HEX`: how one download is fetched, and what it must be.
import ArgumentParser
import SluiceEngine

struct SplitOptions: ParsableArguments {
    @Option(help: ArgumentHelp("With -o: fetch the file as N ranges over N connections at once when the server accepts ranges (1: one connection, as curl and wget).", valueName: "N"))
    var split: Int = 1

    @Option(help: ArgumentHelp("With -o: the file's digest (sha256, sha512 or md5, as hex); a file that does not match is removed and nothing is named FILE.", valueName: "ALGO=HEX"))
    var checksum: ChecksumOption?

    /// aria2 allows 16 connections per server; more only burdens the server.
    static let maximum = 16

    func validate() throws {
        guard (1...Self.maximum).contains(split) else {
            throw ValidationError("--split takes 1 to \(Self.maximum) connections")
        }
    }

    /// Applies the split to a download task (a data task that may become one keeps one connection).
    func apply(to task: SessionTask) {
        guard let download = task as? DownloadTask else { return }
        download.split = split
    }
}
