// `O`: a saved file opened with the desktop's program (xdg-open), detached from the terminal, its path one argument
// (no shell, so a name from a server cannot become a command). Where there is no xdg-open, the path is said instead.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import SluiceViewModel

public enum FileOpener {
    /// Starts the opener; a message saying so, or why not.
    public static func open(_ path: String, environment: [String: String] = currentEnvironment()) -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return "\(Sanitized.text(path)) is gone" }
        guard let opener = find("xdg-open", environment: environment) else {
            return "no xdg-open here to open it; the file is \(Sanitized.text(path))"
        }
        // Spawned as a hook is: its own process group, its output away from the UI's screen.
        guard let pid = HookRunner.spawn([opener, path], environment: [:]) else { return "cannot start xdg-open" }
        let child = pid
        DispatchQueue.global().async {  // reaped when it ends, so no zombie stays behind
            var status: Int32 = 0
            _ = waitpid(child, &status, 0)
        }
        return "opening \(Sanitized.text(path))"
    }

    /// The first executable `name` on `environment`'s PATH.
    public static func find(_ name: String, environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = directory + "/" + name
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    public static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") { result[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            pointer += 1
        }
        return result
    }
}
