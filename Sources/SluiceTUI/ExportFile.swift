// Writes a file the UI exports (a Mermaid diagram, a HAR) into the output directory under a name of its own:
// NAME.mmd, else NAME.1.mmd, NAME.2.mmd...; an existing file is never replaced (O_EXCL).
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

enum ExportFile {
    /// The path written, or why nothing was.
    static func write(_ text: String, into directory: String, name: String, suffix: String) -> Result<String, PlacementError> {
        let stem = SafeFileName.clean(name) ?? "flow"
        let bytes = Array(text.utf8)
        for attempt in 0..<10_000 {
            let path = directory + "/" + stem + (attempt == 0 ? "" : ".\(attempt)") + suffix
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST { continue }
                return .failure(PlacementError(message: "cannot write \(stem + suffix) in \(directory): \(String(cString: strerror(errno)))"))
            }
            defer { close(fd) }
            var written = 0
            while written < bytes.count {
                let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    let reason = String(cString: strerror(errno))
                    unlink(path)
                    return .failure(PlacementError(message: "cannot write \(path): \(reason)"))
                }
                written += n
            }
            return .success(path)
        }
        return .failure(PlacementError(message: "no free name for \(stem + suffix) in \(directory)"))
    }
}
