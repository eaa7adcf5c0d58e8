// Turns the engine's uptime clock into dates: one reading of both clocks taken together by the caller (the pure
// view-model reads no clock), then ISO 8601 text as HAR files want it.

public struct WallClock: Equatable, Sendable {
    /// An uptime reading (DispatchTime's clock, nanoseconds)...
    public let uptime: UInt64
    /// ...and the real time at that moment, in nanoseconds since 1970-01-01 UTC.
    public let unixNanoseconds: Int64

    public init(uptime: UInt64, unixNanoseconds: Int64) {
        self.uptime = uptime
        self.unixNanoseconds = unixNanoseconds
    }

    /// "2026-11-23T16:33:00.123Z" for the moment `time` on the uptime clock.
    public func iso8601(_ time: UInt64) -> String {
        let offset = Int64(bitPattern: time &- uptime)
        return Self.iso8601(unixNanoseconds: unixNanoseconds &+ offset)
    }

    public static func iso8601(unixNanoseconds: Int64) -> String {
        let ms = unixNanoseconds >= 0 ? unixNanoseconds / 1_000_000 : (unixNanoseconds - 999_999) / 1_000_000
        var days = ms >= 0 ? ms / 86_400_000 : (ms - 86_399_999) / 86_400_000
        let inDay = ms - days * 86_400_000
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ v: Int64) -> String { String(v).leftPadded(to: 2) }
        return "\(String(year).leftPadded(to: 4))-\(two(month))-\(two(day))T\(two(inDay / 3_600_000)):"
            + "\(two(inDay / 60000 % 60)):\(two(inDay / 1000 % 60)).\(String(inDay % 1000).leftPadded(to: 3))Z"
    }
}
