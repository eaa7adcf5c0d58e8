// The short way into `sluice get` and `sluice put`: their own parser instead of the whole command tree's.
import ArgumentParser

enum DirectParse {
    /// `get ...` or `put ...` parsed by that command alone, or nil to go the long way. ArgumentParser's parse of the
    /// tree reflects on the root, on the default subcommand (`open`) and on the matched one twice, which was a
    /// fifth of `sluice get`'s start-up (docs/performance.md). Only a successful parse is taken: help, errors and
    /// anything else are left to `parseAsRoot`, so what they print is unchanged. The plainest `get` lines do not
    /// reach ArgumentParser at all (GetFastParse).
    static func command(_ arguments: [String]) -> (any ParsableCommand)? {
        guard let name = arguments.first else { return nil }
        let rest = Array(arguments.dropFirst())
        switch name {
        case GetCommand.configuration.commandName:
            return GetFastParse.command(arguments) ?? (try? GetCommand.parse(rest))
        case PutCommand.configuration.commandName: return try? PutCommand.parse(rest)
        default: return nil
        }
    }
}
