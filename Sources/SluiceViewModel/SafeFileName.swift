// A file name from a server (Content-Disposition or the URL) made safe to create in a directory the user chose:
// no path separators, no `..`, no hidden or control characters, and never an existing file's name.

public enum SafeFileName {
    /// The last path component of `suggested`, cleaned; "index.html" when nothing usable is left, as wget and
    /// aria2 name what a URL like `http://host/` returns.
    public static func sanitize(_ suggested: String?) -> String {
        suggested.flatMap(clean) ?? "index.html"
    }

    /// The last path component of `raw` without control characters, bidi overrides or leading dots; nil when
    /// nothing usable is left.
    public static func clean(_ raw: String) -> String? {
        // A plain ASCII name (most URLs' last segments) is already clean: no separator, control character, leading
        // dot or space, trailing space, and short enough. Returned as it is; anything else takes the full walk.
        let bytes = raw.utf8
        if let first = bytes.first, let last = bytes.last, bytes.count <= maximumBytes, first != UInt8(ascii: "."),
           first != UInt8(ascii: " "), last != UInt8(ascii: " "),
           bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") }) {
            return unreserved(raw)
        }
        return cleanedScalars(raw).map(unreserved)
    }

    /// The endings of a download's companions beside its file (see `DownloadCompanions`): its bytes so far, its
    /// checkpoint, and a checkpoint being written.
    public static let partialSuffix = ".sluice-part"
    public static let resumeSuffix = ".sluice-resume"
    public static let resumeDraftSuffix = resumeSuffix + ".new"
    static let companionSuffixes = [partialSuffix, resumeSuffix, resumeDraftSuffix]

    /// `name`, with `_` after a companion's ending: a server's name taking one would put its bytes where another
    /// download's partial file or checkpoint is looked for (a tester planted a checkpoint naming a file of the
    /// user's through `-O`).
    static func unreserved(_ name: String) -> String {
        companionSuffixes.contains(where: name.hasSuffix) ? name + "_" : name
    }

    /// The scalar-by-scalar cleaning `clean` does for any name that is not plain ASCII.
    static func cleanedScalars(_ raw: String) -> String? {
        let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var scalars = String.UnicodeScalarView()
        for s in last.unicodeScalars {
            let v = s.value
            // Line separators and every bidi mark, embedding, override and isolate: a name must read as it is.
            if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x200E || v == 0x200F || (0x2028...0x202E).contains(v)
                || (0x2066...0x2069).contains(v) { continue }
            scalars.append(s)
        }
        var name = String(scalars).trimmingCharacters(" ")
        while name.hasPrefix(".") { name.removeFirst() }  // no "..", no hidden file
        name = name.trimmingCharacters(" ")
        if name.utf8.count > maximumBytes { name = shortened(name) }
        return name.isEmpty ? nil : name
    }

    /// File systems take 255 bytes a name; room is left for `.sluice-part` and a `.N` of a taken name.
    static let maximumBytes = 200

    /// `name` cut to `maximumBytes`, its extension kept (up to 16 bytes after the last dot): the stem is shortened.
    static func shortened(_ name: String) -> String {
        let dot = name.lastIndex(of: ".")
        let suffix = dot.map { String(name[$0...]) }.flatMap { (2...16).contains($0.utf8.count) ? $0 : nil } ?? ""
        var stem = String(name.dropLast(suffix.count))
        while !stem.isEmpty, stem.utf8.count + suffix.utf8.count > maximumBytes { stem.removeLast() }
        return stem + suffix
    }

    /// `name`, then `name.1`, `name.2`...: the candidates tried in turn until one can be created.
    public static func candidate(_ name: String, attempt: Int) -> String {
        attempt == 0 ? name : "\(name).\(attempt)"
    }
}

extension String {
    func trimmingCharacters(_ c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s = s.dropFirst() }
        while s.last == c { s = s.dropLast() }
        return String(s)
    }
}
