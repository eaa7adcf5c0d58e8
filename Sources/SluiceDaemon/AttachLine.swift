// The lines of `GET /attach`: what an attached UI needs to hold the same model as the daemon. The first is the
// model as it stands, then each batch of events as the daemon's own model takes it in. Swift's Codable JSON of the
// view-model's types: a wire format between two sluice binaries, not an interface for scripts (`/events` is).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine
import SluiceViewModel

public struct AttachSnapshot: Codable, Sendable, Equatable {
    /// Bumped whenever the encoding of the view-model's types changes: a UI refuses a daemon of another version
    /// rather than misreading it.
    public static let currentVersion = 1

    public var version = AttachSnapshot.currentVersion
    public let identifier: String
    public let rows: [TaskRow]
    public let sessionRateLimit: Int64?
    public let outputDirectory: String
}

public enum AttachLine: Codable, Sendable {
    case snapshot(AttachSnapshot)
    case events([ModelEvent])
    /// A finished row removed (from the history too): not a model event, the UI's `x` does it to its own model.
    case removed(Int)

    /// One line of JSON with its newline; nil if it cannot be encoded (never expected: every part is Codable).
    var text: String? {
        guard let data = try? JSONEncoder().encode(self) else { return nil }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func parse(_ line: String) -> AttachLine? { try? JSONDecoder().decode(AttachLine.self, from: Data(line.utf8)) }
}

extension ModelEvent {
    /// Ticks are the clock: each UI reads its own (uptime is the same clock in every process on the machine).
    var isKept: Bool {
        if case .tick = self { return false }
        return true
    }
}
