// curl's -v for `get` and `put`: libcurl's notes ("* "), each request head as sent ("> ") and each response head as
// received ("< ") on stderr, as curl -v writes them. What a server sent is sanitized before it reaches the terminal.
import SluiceEngine
import SluiceViewModel

enum VerboseLog {
    /// The session's wire monitor: each line written whole, at once (a write(2) per line, from the transfer thread).
    static func monitor() -> @Sendable (Int, WireLine) -> Void {
        { _, line in StandardStreams.errorAsked(text(of: line)) }
    }

    static func text(of line: WireLine) -> String {
        let prefix = switch line.kind {
        case .info: "* "
        case .headerOut: "> "
        case .headerIn: "< "
        }
        return prefix + Sanitized.text(line.text) + "\n"
    }
}
