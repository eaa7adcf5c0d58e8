// Dates as cookies carry them (RFC 6265 section 5.1.1: lenient about the format, strict about the values).

enum HTTPDate {
    /// Seconds since 1970 for "Wed, 21 Oct 2015 07:28:00 GMT" and its older spellings; nil when a part is
    /// missing or out of range.
    static func parse(_ text: String) -> Double? {
        var time: (Int, Int, Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        let tokens = text.split { !($0.isLetter || $0.isNumber || $0 == ":") }
        for token in tokens {
            if time == nil, token.contains(":") {
                let f = token.split(separator: ":").compactMap { Int($0.prefix(2)) }
                if f.count == 3 { time = (f[0], f[1], f[2]); continue }
            }
            if day == nil, token.count <= 2, let d = Int(token) { day = d; continue }
            if month == nil, token.count >= 3,
               let m = months.firstIndex(of: token.prefix(3).lowercased()) { month = m + 1; continue }
            if year == nil, (2...4).contains(token.count), let y = Int(token) { year = y; continue }
        }
        guard let (h, mi, s) = time, let day, let month, var year else { return nil }
        if year < 70 { year += 2000 } else if year < 100 { year += 1900 }
        guard (1...31).contains(day), year >= 1601, h < 24, mi < 60, s < 60 else { return nil }
        return Double(daysFromCivil(year, month, day) * 86_400 + h * 3600 + mi * 60 + s)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
