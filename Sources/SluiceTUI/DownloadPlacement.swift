// Where a finished download lands: its server's name, cleaned, in a directory the user chose, never over an
// existing file (link(2) fails instead of replacing; the next candidate name is tried). It calls the file system,
// so it lives here beside its users (the UI's delegate and `sluice get --output-dir`), not in the pure view-model.
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

public enum DownloadPlacement {
    /// Links `temporary` into `directory` as the suggested name, or `name.1`, `name.2`...; the path it got, or
    /// why it could not be placed.
    public static func link(_ temporary: String, into directory: String, suggested: String?) -> Result<String, PlacementError> {
        link(temporary, into: directory, suggested: suggested, from: 0).map(\.path)
    }

    /// The same, from `name.first` on: a caller that placed `name.k` already knows the names below it are taken
    /// (thousands of files of one name would otherwise try each taken name again). Says which attempt it got.
    public static func link(_ temporary: String, into directory: String, suggested: String?,
                            from first: Int) -> Result<(path: String, attempt: Int), PlacementError> {
        let name = SafeFileName.sanitize(suggested)
        for attempt in first..<first + 10_000 {
            let path = directory + "/" + SafeFileName.candidate(name, attempt: attempt)
            if Glibc.link(temporary, path) == 0 { return .success((path, attempt)) }
            if errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP || errno == EXDEV || errno == EMLINK {
                // A file system without hard links (vfat, exFAT, some network mounts): check, then rename, the
                // narrow race being the best it allows; the name is taken if anything is there.
                var info = stat()
                if lstat(path, &info) == 0 { continue }
                if rename(temporary, path) == 0 { return .success((path, attempt)) }
            }
            if errno != EEXIST {
                return .failure(PlacementError(message: "cannot save \(name) in \(directory): \(String(cString: strerror(errno)))"))
            }
        }
        return .failure(PlacementError(message: "no free name for \(name) in \(directory)"))
    }
}

public struct PlacementError: Error, Equatable {
    public let message: String
}
