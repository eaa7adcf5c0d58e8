// An option that takes a value takes the next word, as curl's do, even when it starts with a dash.
import ArgumentParser
import Testing
@testable import SluiceCLI

@Suite struct DashValueTests {
    @Test func aValueStartingWithADashIsTheOptionsValue() throws {
        let get = try #require(try SluiceCommand.parseAsRoot(["get", "-r", "-500", "-d", "-x=1", "-A", "-", "-H", "-X: y",
                                                              "--limit-rate", "-5", "http://h/"]) as? GetCommand)
        #expect(get.range == "-500")
        #expect(get.shortData.values == ["-x=1"])
        #expect(get.requestOptions.userAgent == "-")
        #expect(get.requestOptions.headers == ["-X: y"])
        #expect(get.retryOptions.limitRate == "-5")
        #expect(get.urls == ["http://h/"])
    }

    @Test func aNegativeNumberIsRefusedForWhatItIs() throws {
        // Before, ArgumentParser said "Missing value for '--limit-rate <speed>'".
        let get = try #require(try SluiceCommand.parseAsRoot(["get", "--limit-rate", "-5", "http://h/"]) as? GetCommand)
        #expect(throws: CLIFailure.self) { try get.retryOptions.rateLimit() }
    }

    @Test func theURLsAndTheManagersOptionsTakeDashedValuesToo() throws {
        let open = try #require(try SluiceCommand.parseAsRoot(["open", "--limit-rate", "-1", "-H", "-A: b", "http://h/"]) as? OpenCommand)
        #expect(open.retryOptions.limitRate == "-1")
        #expect(open.requestOptions.headers == ["-A: b"])
    }
}
