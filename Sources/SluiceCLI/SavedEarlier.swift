// The downloads an earlier run of `sluice -d` saved into this directory, by URL: running the same command again
// after a crash, a kill -9 or a quit fetches what is left, not a second copy (NAME.1) of what is already there, as
// a rerun of `wget -c` or `aria2c -c` finds a complete file complete.
import SluiceStore
import SluiceTUI

struct SavedEarlier {
    private var paths: [String: String] = [:]

    /// From the store's records: a download saved into `directory` (or finished there after the store last heard
    /// of it: the file in place and no partial file beside it) whose file is still there. A cancelled or failed
    /// one is not: that URL is fetched again; nor is a URL with an unfinished download whose partial file is there
    /// (the restore continues that one). Only the `given` URLs are looked at (nil: all): a history of 16,000
    /// downloads into one directory made 32,000 `stat` calls on every start. Read before the restore starts anything.
    init(_ records: [StoredTask], in directory: String, given: Set<String>? = nil) {
        var continued: Set<String> = []
        for record in records where record.kind == .download && given?.contains(record.url) != false {
            guard let target = record.destination else { continue }
            let companions = DownloadCompanions(target: target)
            guard companions.directory == directory else { continue }
            if companions.isInPlace {
                if record.state == .completed && record.savedFile != nil || !record.state.isFinished { paths[record.url] = target }
            } else if !record.state.isFinished {
                continued.insert(record.url)
            }
        }
        for url in continued { paths[url] = nil }
    }

    /// Where the earlier run saved `url` (compared as parsed text), if it did and the file is there.
    func path(for url: String) -> String? { paths.isEmpty ? nil : paths[url] }

    var isEmpty: Bool { paths.isEmpty }
}
