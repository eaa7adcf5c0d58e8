// The names in a directory, read once for a list of downloads placed there. A claim asks it instead of the disk:
// two lstats a download, each a lookup of a name that is not there, which waits on the directory's lock while the
// downloads already running create, link and remove files in it (2,000 downloads to one directory: 4,000 lookups,
// a quarter of the main thread's work in `sluice -d`). A name the snapshot lists is still checked on disk; one it
// does not list but another program made since is met where the disk decides: the partial file is created
// exclusively when the download starts (taken: the row is placed again) and the file is linked in without
// replacing anything (taken: the next free name).
#if canImport(Glibc)
import Glibc
#endif

public struct DirectoryNames: Sendable {
    private let names: Set<String>

    /// The directory's entries; nil when it cannot be read (the claims then ask the disk).
    public init?(of directory: String) {
        var names: Set<String> = []
        guard Self.read(directory, { name, _ in names.insert(name) }) else { return nil }
        self.names = names
    }

    /// The names for a list of `count` downloads: read only for a long list, since reading a large directory (a
    /// Downloads folder) costs more than a few lookups.
    public static func forList(of count: Int, in directory: String) -> DirectoryNames? {
        count >= 64 ? DirectoryNames(of: directory) : nil
    }

    public func contains(_ name: String) -> Bool { names.contains(name) }

    /// Calls `body` with each entry's name but `.` and `..`, and the descriptor the directory is read through;
    /// false when it cannot be opened.
    static func read(_ directory: String, _ body: (String, Int32) -> Void) -> Bool {
        guard let stream = opendir(directory) else { return false }
        defer { closedir(stream) }
        let own = dirfd(stream)
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { body(name, own) }
        }
        return true
    }
}
