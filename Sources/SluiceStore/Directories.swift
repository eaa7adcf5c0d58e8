// `mkdir -p`: the store's, the daemon's and the unit's directories, and curl's --create-dirs, made one way.
#if canImport(Glibc)
import Glibc
#endif

public enum Directories {
    /// Why a directory could not be made: the path that failed and the system's reason.
    public struct Failure: Error, Equatable {
        public let path: String
        public let reason: String
    }

    /// Makes `path` and each missing parent with `mode` (less the umask, as mkdir gives it; `exactly`: the mode
    /// itself, as the XDG specification asks of the state directory). A directory that exists keeps its mode. A
    /// relative path is made under the working directory.
    public static func make(_ path: String, mode: mode_t, exactly: Bool = false) -> Failure? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") where component != "." {
            prefix += "/" + component
            if mkdir(prefix, mode) == 0 {
                if exactly { _ = chmod(prefix, mode) }
                continue
            }
            let code = errno
            guard code == EEXIST else { return Failure(path: prefix, reason: String(cString: strerror(code))) }
        }
        return nil
    }
}
