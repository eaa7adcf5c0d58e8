// Task metrics as short readable text: for the timeline line and the detail pane's timing line.
import SluiceEngine

public enum MetricsText {
    /// "0.42 ms", "12.3 ms", "1.25 s".
    public static func duration(_ seconds: Double) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(12)
        appendDuration(seconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// "2 requests, 12.3 ms". Made as bytes, once: every task's timeline has this line, and the pieces joined as
    /// strings (a number, a plural, a duration made of three more) cost 3,400 instructions a task (callgrind).
    public static func summary(_ metrics: TaskMetrics) -> String {
        let n = metrics.transactions.count
        var text: [UInt8] = []
        text.reserveCapacity(24)
        appendDigits(n, to: &text)
        text.append(contentsOf: n == 1 ? " request, ".utf8 : " requests, ".utf8)
        appendDuration(metrics.duration, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The last request: where it went and when each step ended, from its start.
    public static func timing(_ t: TransactionMetrics) -> String {
        var parts: [String] = []
        if let address = t.remoteAddress {
            parts.append(t.remotePort.map { "\(Sanitized.text(address)):\($0)" } ?? Sanitized.text(address))
        }
        if let name = t.networkProtocol { parts.append(name) }
        if t.isReusedConnection {
            parts.append("reused connection")
        } else {
            parts.append("dns " + duration(t.domainLookupEnd))
            parts.append("connect " + duration(t.connectEnd))
            if let tls = t.secureConnectionEnd { parts.append("tls " + duration(tls)) }
        }
        parts.append("first byte " + duration(t.responseStart))
        parts.append("total " + duration(t.total))
        return parts.joined(separator: "  ")
    }
}

extension MetricsText {
    static func appendDuration(_ seconds: Double, to text: inout [UInt8]) {
        let ms = seconds * 1000
        if ms < 10 {
            appendFixed(ms, places: 2, to: &text)
            text.append(contentsOf: " ms".utf8)
        } else if ms < 1000 {
            appendFixed(ms, places: 1, to: &text)
            text.append(contentsOf: " ms".utf8)
        } else {
            appendFixed(seconds, places: 2, to: &text)
            text.append(contentsOf: " s".utf8)
        }
    }

    /// Fixed decimals (two or one after the point) without Foundation's formatter.
    static func appendFixed(_ value: Double, places: Int, to text: inout [UInt8]) {
        let scale = places == 2 ? 100 : 10
        let scaled = Int((Swift.max(0, value) * Double(scale)).rounded())
        appendDigits(scaled / scale, to: &text)
        text.append(UInt8(ascii: "."))
        let fraction = scaled % scale
        if places == 2 && fraction < 10 { text.append(UInt8(ascii: "0")) }
        appendDigits(fraction, to: &text)
    }

    /// A number of zero or more in decimal.
    static func appendDigits(_ value: Int, to text: inout [UInt8]) {
        var value = Swift.max(0, value)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            text.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
