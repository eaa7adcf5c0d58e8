// A command's URLs: all checked before any transfer, the plain ones parsed only when asked for, to the same URL.
import Foundation
@testable import SluiceCLI
import SluiceViewModel
import Testing

@Suite struct URLTargetsTests {
    @Test func eachURLIsWhatParsingItGives() throws {
        let texts = ["http://127.0.0.1:8080/a", "https://h/x#frag", "file:///tmp/x", "HTTP://H:1/b?c=d", "data:,hi"]
        let targets = try URLTargets(texts)
        #expect(targets.count == texts.count)
        for (position, text) in texts.enumerated() {
            #expect(targets.url(at: position) == ParsedURL.parse(text), "\(text)")
        }
        #expect(try targets.all().map(\.absoluteString) == texts)
    }

    @Test func aWrongURLAnywhereStopsTheCommand() {
        for texts in [["ftp://x/y"], ["http://a/1", "not a url", "http://a/2"], ["http://a/1", "http://"]] {
            do {
                _ = try URLTargets(texts)
                Issue.record("accepted \(texts)")
            } catch let failure as CLIFailure {
                #expect(failure.code == 2)
                #expect(failure.message.hasPrefix("not a URL sluice can fetch: "))
            } catch {
                Issue.record("\(error)")
            }
        }
    }

    /// A mistyped command is said to be neither a URL nor a command.
    @Test func aBareWordIsSaidToBeNoCommandEither() {
        #expect(URLTargets.refused("sotp").message == "not a URL sluice can fetch: sotp (nor a command: sluice --help lists them)")
        #expect(URLTargets.refused("ftp://x/y").message == "not a URL sluice can fetch: ftp://x/y")
    }
}
