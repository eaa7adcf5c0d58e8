// Why a transfer's bytes are held: the reasons overlap, and the bytes flow only when none is left.

struct TransferHolds: Equatable {
    enum Reason: UInt8, CaseIterable {
        case suspended = 1
        case awaitingDisposition = 2
        case backpressure = 4
    }

    private var bits: UInt8 = 0

    var isHeld: Bool { bits != 0 }

    func contains(_ reason: Reason) -> Bool { bits & reason.rawValue != 0 }

    func isOnly(_ reason: Reason) -> Bool { bits == reason.rawValue }

    /// Adds a reason; returns true when the transfer went from flowing to held.
    mutating func hold(_ reason: Reason) -> Bool {
        let wasHeld = isHeld
        bits |= reason.rawValue
        return !wasHeld
    }

    /// Removes a reason; returns true when the transfer went from held to flowing.
    mutating func release(_ reason: Reason) -> Bool {
        let wasHeld = isHeld
        bits &= ~reason.rawValue
        return wasHeld && !isHeld
    }
}
