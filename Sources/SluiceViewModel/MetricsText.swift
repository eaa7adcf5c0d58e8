// Task metrics as short readable text: for the timeline line and the detail pane's timing line.
import SluiceEngine

public enum MetricsText {
    /// "0.42 ms", "12.3 ms", "1.25 s".
    public static func duration(_ seconds: Double) -> String {
        let ms = seconds * 1000
        if ms < 10 { return String(format2: ms) + " ms" }
        if ms < 1000 { return String(format1: ms) + " ms" }
        return String(format2: seconds) + " s"
    }

    /// "2 requests, 12.3 ms".
    public static func summary(_ metrics: TaskMetrics) -> String {
        let n = metrics.transactions.count
        return "\(n) request\(n == 1 ? "" : "s"), \(duration(metrics.duration))"
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

private extension String {
    /// Fixed decimals without Foundation's formatter: two or one after the point.
    init(format2 value: Double) { self = Self.fixed(value, places: 2) }
    init(format1 value: Double) { self = Self.fixed(value, places: 1) }

    static func fixed(_ value: Double, places: Int) -> String {
        let scale = places == 2 ? 100.0 : 10.0
        let scaled = Int((Swift.max(0, value) * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(scaled % Int(scale))
        return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
