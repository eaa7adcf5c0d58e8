// The add prompt's text: one URL, a URL pattern as curl globs it, or a pasted curl command whose request the task
// takes; and a pasted command's line breaks (Enter after ` \`) continue the line instead of submitting it.
import Foundation
import SluiceEngine
@testable import SluiceTUI
import SluiceViewModel
import Testing

struct AddedTextTests {
    @Test func aPastedCommandGivesItsRequest() throws {
        let text = "curl 'https://example.org/a?b=1' -H 'Accept-Encoding: gzip, br, zstd' -H 'Referer: https://example.org/' -b 'sid=1' -b 'x=2' -u 'me:pw' --data-raw 'q=1' --compressed"
        let added = try AddedText.read(text).get()
        #expect(added.urls == ["https://example.org/a?b=1"])
        let url = try #require(URL(string: added.urls[0]))
        let request = try #require(added.request(for: url))
        #expect(request.method == "POST")
        #expect(request.headers["Accept-Encoding"] == nil, "left to what libcurl can decode")
        #expect(request.headers["Referer"] == "https://example.org/")
        #expect(request.headers["Cookie"] == "sid=1; x=2")
        #expect(request.headers["Authorization"] == "Basic bWU6cHc=")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.body == Data("q=1".utf8))
    }

    @Test func addingTakesEachURLStopsAtTheFirstProblemAndSaysHowMany() {
        var seen: [String] = []
        #expect(AddedText.add("http://h/f[1-3]") { _, url in seen.append(url); return nil } == "added 3 tasks")
        #expect(seen == ["http://h/f1", "http://h/f2", "http://h/f3"])
        seen = []
        #expect(AddedText.add("http://h/g[1-3]") { _, url in seen.append(url); return url.hasSuffix("2") ? "full" : nil } == "full")
        #expect(seen == ["http://h/g1", "http://h/g2"], "nothing after the refusal")
        #expect(AddedText.add("http://h/one") { _, _ in nil } == nil, "one task: nothing to say")
        #expect(AddedText.add("curl 'http://h/p' --connect-timeout 5") { added, _ in added.paste == nil ? "no paste" : nil }?
                    .hasPrefix("added; ") == true, "the paste's unused flag is said")
        #expect(AddedText.add("curl -H 'a: b'") { _, _ in "called" } == "the pasted command has no URL", "a paste without a URL adds nothing")
    }

    @Test func patternsExpandAndPlainURLsStayPlain() throws {
        #expect(try AddedText.read("http://h/f[1-3].bin").get().urls == ["http://h/f1.bin", "http://h/f2.bin", "http://h/f3.bin"])
        #expect(try AddedText.read("  http://h/{a,b}").get().urls == ["http://h/a", "http://h/b"])
        let plain = try AddedText.read("http://h/x").get()
        #expect(plain.urls == ["http://h/x"] && plain.paste == nil && plain.request(for: URL(string: "http://h/x")!) == nil)
        #expect(throws: AddError.self) { try AddedText.read("http://h/[1-").get() }
        #expect(throws: AddError.self) { try AddedText.read("http://h/[1-99999]").get() }
        #expect(throws: AddError.self) { try AddedText.read("curl -k https://h/").get() }
        #expect(throws: AddError.self) { try AddedText.read("curl 'unterminated").get() }
    }

    @Test func enterAfterABackslashContinuesAPastedCommand() {
        var ui = UIState()
        var model = Model()
        ui.mode = .prompt(.addURL, "curl 'http://h/' \\")
        #expect(KeyHandler.handle(.enter, ui: &ui, model: &model).isEmpty)
        #expect(ui.mode == .prompt(.addURL, "curl 'http://h/'  "))
        ui.mode = .prompt(.addURL, "curl 'http://h/' -H 'A: b'")
        #expect(KeyHandler.handle(.enter, ui: &ui, model: &model) == [.intent(.add("curl 'http://h/' -H 'A: b'", .data))])
    }
}

struct DetailPaneSecretsTests {
    @Test func requestCookiesAndCredentialsAreShownRedacted() {
        let row = TaskRow(id: 1, url: "http://h/x", kind: .download,
                          requestHeaders: [HeaderLine("Cookie", "sid=s3cret; theme=dark"), HeaderLine("Authorization", "Bearer t0ken"),
                                           HeaderLine("Referer", "http://h/")], at: 0)
        let text = DetailPane.lines(row, now: 0, scroll: 0, width: 120, ascii: false).map(\.text).joined(separator: "\n")
        #expect(text.contains("Cookie: sid=[redacted]; theme=[redacted]"))
        #expect(text.contains("Authorization: Bearer [redacted]"))
        #expect(text.contains("Referer: http://h/"))
        #expect(!text.contains("s3cret") && !text.contains("t0ken"))
    }
}
