// What `sluice get` says when a signal stops a list of downloads: the partial files kept, and what running the same
// command again does with the files already saved (it never replaces a file, so it saves them again as NAME.1;
// a tester took "run the same command again to resume" to mean that they would be skipped).
enum InterruptedList {
    static func message(kept: Int, saved: Int) -> String {
        guard kept > 0 else { return "interrupted" }
        let partials = kept == 1 ? "1 partial file is kept beside its target" : "\(kept) partial files are kept beside their targets"
        guard saved > 0 else { return "interrupted; \(partials): run the same command again to resume" }
        let done = saved == 1 ? "the file already saved would be fetched again as NAME.1" : "the \(saved) files already saved would be fetched again as NAME.1"
        return "interrupted; \(partials): run the same command again to resume (\(done); leave \(saved == 1 ? "its URL" : "their URLs") out, or use sluice -d, which keeps a list's progress)"
    }
}
