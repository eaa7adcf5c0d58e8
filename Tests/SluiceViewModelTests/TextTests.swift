// Text shown to users: sanitizing server text, byte counts.
import Foundation
import SluiceEngine
import SluiceViewModel
import Testing

@Suite struct SanitizedTests {
    @Test func controlCharactersBecomeVisible() {
        #expect(Sanitized.text("a\u{1B}[31mb\r\n\u{9B}c") == "a\\x1b[31mb\\x0d\\x0a\\x9bc")
        #expect(Sanitized.text("plain ünïcode 漢字") == "plain ünïcode 漢字")
    }
}

@Suite struct ByteCountTextTests {
    @Test func units() {
        #expect(ByteCountText.format(512) == "512 B")
        #expect(ByteCountText.format(1536) == "1.5 KiB")
        #expect(ByteCountText.format(1 << 30) == "1.0 GiB")
        #expect(ByteCountText.format(300 << 20) == "300 MiB")
    }
}

@Suite struct MetricsTextTests {
    @Test func durationsKeepThreeSignificantDigits() {
        #expect(MetricsText.duration(0.000_42) == "0.42 ms")
        #expect(MetricsText.duration(0.012_34) == "12.3 ms")
        #expect(MetricsText.duration(1.254) == "1.25 s")
        #expect(MetricsText.duration(0) == "0.00 ms")
        // The edges of each form, and what rounds over them.
        #expect(MetricsText.duration(0.000_050_4) == "0.05 ms")
        #expect(MetricsText.duration(0.009_05) == "9.05 ms")
        #expect(MetricsText.duration(0.009_999_9) == "10.00 ms")
        #expect(MetricsText.duration(0.010) == "10.0 ms")
        #expect(MetricsText.duration(0.999_97) == "1000.0 ms")
        #expect(MetricsText.duration(1234.567) == "1234.57 s")
        #expect(MetricsText.duration(-1) == "0.00 ms")
    }

    @Test func theSummaryCountsRequests() {
        let t = TransactionMetrics(url: URL(string: "http://h/")!)
        #expect(MetricsText.summary(TaskMetrics(transactions: [t], redirectCount: 0, duration: 0.0034)) == "1 request, 3.40 ms")
        #expect(MetricsText.summary(TaskMetrics(transactions: [t, t], redirectCount: 1, duration: 0.5)) == "2 requests, 500.0 ms")
    }

    @Test func timingShowsTheConnectionStepsOnlyForANewConnection() {
        var t = TransactionMetrics(url: URL(string: "http://h/")!, statusCode: 200, networkProtocol: "http/1.1",
                                   remoteAddress: "127.0.0.1", remotePort: 8080, domainLookupEnd: 0.0001, connectEnd: 0.0002,
                                   requestStart: 0.0003, responseStart: 0.0011, total: 0.0025)
        #expect(MetricsText.timing(t) == "127.0.0.1:8080  http/1.1  dns 0.10 ms  connect 0.20 ms  first byte 1.10 ms  total 2.50 ms")
        t.isReusedConnection = true
        t.secureConnectionEnd = 0.0005
        #expect(MetricsText.timing(t) == "127.0.0.1:8080  http/1.1  reused connection  first byte 1.10 ms  total 2.50 ms")
        t.isReusedConnection = false
        #expect(MetricsText.timing(t).contains("tls 0.50 ms"))
    }
}
