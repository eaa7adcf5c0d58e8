// Where the store lives: $XDG_STATE_HOME/sluice, else ~/.local/state/sluice, made 0700 when missing.
#if canImport(Glibc)
import Glibc
#endif

enum StoreDirectory {
    /// The XDG Base Directory rules: XDG_STATE_HOME when it is set to an absolute path (a relative one is
    /// ignored, as the specification says), else $HOME/.local/state, else the passwd entry's home. "" when
    /// there is no home at all; `TaskStore.init` then refuses with a message naming both variables.
    static func path(environment: [String: String]) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return withoutTrailingSlashes(state) + "/sluice"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return withoutTrailingSlashes(home) + "/.local/state/sluice"
        }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir {
            let home = String(cString: dir)
            if home.hasPrefix("/") { return withoutTrailingSlashes(home) + "/.local/state/sluice" }
        }
        return ""
    }

    /// Makes `path` and any missing parent, each 0700 (the specification's mode for directories it makes);
    /// a directory that already exists keeps its mode.
    static func make(_ path: String) throws(StoreError) {
        guard path.hasPrefix("/") else {
            throw .directory(path: path, reason: "no home directory: set XDG_STATE_HOME or HOME")
        }
        if let failure = Directories.make(path, mode: 0o700, exactly: true) {
            throw .directory(path: failure.path, reason: failure.reason)
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .directory(path: path, reason: "it is not a directory")
        }
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return path == "/" ? "" : String(path)
    }
}
