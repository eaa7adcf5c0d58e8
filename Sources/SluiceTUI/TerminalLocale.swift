// Whether the user's terminal takes UTF-8, from the locale variables (the program itself switches to a UTF-8
// locale for wcwidth, so the answer must come from what the user set, not from what is in force).

public enum TerminalLocale {
    /// The first of LC_ALL, LC_CTYPE and LANG that is set decides, as setlocale(3) does; none set is the C locale.
    public static func isUTF8(_ environment: [String: String]) -> Bool {
        guard let value = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return false
        }
        let upper = value.uppercased()
        return upper.contains("UTF-8") || upper.contains("UTF8")
    }
}
