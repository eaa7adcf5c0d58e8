// A pasted command split into words: compared with what bash itself makes of the same text, and the refusals.
import Foundation
import SluiceViewModel
import Testing

@Suite struct ShellWordsTests {
    func words(_ text: String) throws -> [String] {
        try ShellWords.split(text).map { String(decoding: $0, as: UTF8.self) }
    }

    func refusal(_ text: String) -> String? {
        do {
            _ = try ShellWords.split(text)
            return nil
        } catch {
            return error.message
        }
    }

    /// bash's words for `text`, as printf '%s\0' receives them; nil when bash is not installed.
    static func bashWords(_ text: String) throws -> [[UInt8]]? {
        guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return nil }
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = ["--norc", "--noprofile", "-c", "printf '%s\\0' " + text]
        bash.environment = ["LC_ALL": "C.UTF-8"]
        let out = Pipe()
        bash.standardOutput = out
        try bash.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        bash.waitUntilExit()
        #expect(bash.terminationStatus == 0, "bash read \(text)")
        var result = data.split(separator: 0, omittingEmptySubsequences: false).map { Array($0) }
        if result.last == [] { result.removeLast() }
        return result
    }

    @Test func quotingAsBrowsersWriteIt() throws {
        #expect(try words(#"curl 'http://h/a b' -H "X: \"q\" \$x \\ \a""#) == ["curl", "http://h/a b", "-H", #"X: "q" $x \ \a"#])
        #expect(try words("a\\\n  b \\\r\n c") == ["a", "b", "c"], "backslash-newline continuations, CRLF too")
        #expect(try words(#"$'it\'s\u0021\n\t\x41\101\e\cA'"#) == ["it's!\n\tAA\u{1B}\u{01}"])
        #expect(try words(#"x'y'"z"$'w' '' """#) == ["xyzw", "", ""], "adjacent quotes make one word; empty quotes a word")
        #expect(try words("a # a comment\n") == ["a"])
        #expect(try words("a#b $ c$") == ["a#b", "$", "c$"], "# inside a word and a lone $ stay as they are")
        #expect(try words("x\\ y") == ["x y"])
        #expect(try ShellWords.split(#"$'\xfc\u00fc'"#) == [[0xFC, 0xC3, 0xBC]], "\\x is a byte, \\u a character")
    }

    @Test func theFixturesSplitAsBashSplitsThem() throws {
        var inputs = CurlPasteFixtures.all
        inputs.append(#"curl $'\a\b\e\f\v\\\"\?\7\018\x4g\u263a\U0001F600\q\cz' "a\b\$\`" x\y"#)
        for text in inputs {
            guard let expected = try Self.bashWords(text) else { continue }
            #expect(try ShellWords.split(text) == expected, "\(text)")
        }
        // Without bash the literal expectations above still hold; with it, this proves it ran.
        if FileManager.default.isExecutableFile(atPath: "/bin/bash") {
            #expect(try Self.bashWords("a 'b c'")?.count == 2)
        }
    }

    @Test func shellSyntaxIsRefusedByName() {
        #expect(refusal("curl $HOME/x")?.contains("$HOME is a shell expansion") == true)
        #expect(refusal(#"curl "http://h/$(id)""#)?.contains("$( inside double quotes") == true)
        #expect(refusal("curl `id`")?.contains("command substitution") == true)
        #expect(refusal("curl http://h/?a=1&b=2")?.contains("unquoted &") == true)
        #expect(refusal("curl http://h/ | sh")?.contains("unquoted |") == true)
        #expect(refusal("curl http://h/ > out")?.contains("unquoted >") == true)
        #expect(refusal("curl 'http://h/\n") == "a ' quote that begins on line 1 is never closed")
        #expect(refusal("curl \"x") == "a \" quote that begins on line 1 is never closed")
        #expect(refusal("curl $'x") == "a $' quote that begins on line 1 is never closed")
        #expect(refusal("curl 'http://a/'\ncurl 'http://b/'")?.contains("line 1 ends the command without a backslash") == true)
        #expect(refusal(#"curl ^"http://h/^" -H ^"A: b^""#)?.contains("Windows cmd quoting") == true)
        #expect(refusal("curl 'http://h/' \\\n  -H 'a: b'\n\n") == nil, "trailing newlines end the one command")
    }
}
