// curl's URL globbing: each pattern's URLs compared with curl's own expansion of it, the #N names, and the errors.
import Foundation
import SluiceViewModel
import Testing

@Suite struct URLGlobTests {
    func urls(_ pattern: String) throws -> [String] {
        try URLGlob(pattern).expansions().map(\.url)
    }

    func refusal(_ pattern: String) -> String? {
        do {
            _ = try URLGlob(pattern)
            return nil
        } catch {
            return error.message
        }
    }

    /// The URLs curl 7.88 itself tries for `pattern` (file: URLs that do not exist; -w prints each one), or nil
    /// without curl.
    static func curlExpansion(_ pattern: String) throws -> [String]? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else { return nil }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-w", "%{url_effective}\\n", "-o", "/dev/null", pattern]
        let out = Pipe()
        curl.standardOutput = out
        try curl.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Patterns and what curl 7.88 gave for them (checked again against the curl installed, when there is one).
    static let cases: [(String, [String])] = [
        ("file:///nonexistent/{a,b}[1-2]", ["a1", "a2", "b1", "b2"]),
        ("file:///nonexistent/[001-003]", ["001", "002", "003"]),
        ("file:///nonexistent/[08-11]", ["08", "09", "10", "11"]),
        ("file:///nonexistent/[8-11]", ["8", "9", "10", "11"]),
        ("file:///nonexistent/[1-0002]", ["1", "2"]),
        ("file:///nonexistent/[1-10:4]", ["1", "5", "9"]),
        ("file:///nonexistent/[a-e:2]", ["a", "c", "e"]),
        ("file:///nonexistent/[A-C]", ["A", "B", "C"]),
        ("file:///nonexistent/[5-5]", ["5"]),
        ("file:///nonexistent/{,x}y", ["y", "xy"]),
        ("file:///nonexistent/{a\\,b,c}", ["a,b", "c"]),
        ("file:///nonexistent/\\[1-2\\]", ["[1-2]"]),
        ("file:///nonexistent/[1-2]{x,y}[a-b]", ["1xa", "1xb", "1ya", "1yb", "2xa", "2xb", "2ya", "2yb"]),
        ("file:///nonexistent/[]", ["[]"]),
    ]

    @Test func theSameURLsAsCurl() throws {
        var comparedWithCurl = 0
        for (pattern, tails) in Self.cases {
            let mine = try urls(pattern)
            #expect(mine == tails.map { "file:///nonexistent/" + $0 }, "\(pattern)")
            if let theirs = try Self.curlExpansion(pattern) {
                #expect(mine == theirs, "\(pattern): curl gives \(theirs)")
                comparedWithCurl += 1
            }
        }
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") { #expect(comparedWithCurl == Self.cases.count) }
        #expect(try urls("http://[::1]:8080/f[1-2]") == ["http://[::1]:8080/f1", "http://[::1]:8080/f2"], "IPv6 stays")
        #expect(try urls("http://[fe80::1%25eth0]/") == ["http://[fe80::1%25eth0]/"])
        #expect(try URLGlob("http://h/plain").isPlain)
        #expect(try URLGlob("http://h/[1-50]").count == 50)
    }

    @Test func outputNames() throws {
        let expansions = try URLGlob("http://h/{a,b}/[1-2]").expansions()
        #expect(expansions.map { URLGlob.fill("x#1-#2-#3-#0-#-#12#a", with: $0.values) }
                == ["xa-1-#3-#0-#-#12#a", "xa-2-#3-#0-#-#12#a", "xb-1-#3-#0-#-#12#a", "xb-2-#3-#0-#-#12#a"],
                "what curl 7.88 names those files")
        #expect(URLGlob.isTemplate("f#1.txt") && !URLGlob.isTemplate("f#.txt") && !URLGlob.isTemplate("f#"))
    }

    @Test func errorsAsCurlNamesThem() {
        #expect(refusal("http://h/[3-1]")?.hasPrefix("bad range in URL position") == true)
        #expect(refusal("http://h/[1-3")?.hasPrefix("bad range in URL position") == true)
        #expect(refusal("http://h/[a-Z]")?.hasPrefix("bad range") == true)
        #expect(refusal("http://h/[1-3:0]")?.hasPrefix("bad range") == true)
        #expect(refusal("http://h/[1-3:3]")?.hasPrefix("bad range") == true)
        #expect(refusal("http://h/[1-z]")?.hasPrefix("bad range") == true)
        #expect(refusal("http://h/[5]")?.hasPrefix("bad range") == true)
        #expect(refusal("http://h/[-1-2]")?.hasPrefix("bad range specification") == true)
        #expect(refusal("http://h/{a,b") == "unmatched brace in URL position 10: http://h/{a,b")
        #expect(refusal("http://h/a}")?.hasPrefix("unmatched close brace/bracket") == true)
        #expect(refusal("http://h/x]")?.hasPrefix("unmatched close brace/bracket") == true)
        #expect(refusal("http://h/{a,{b}}")?.hasPrefix("nested brace") == true)
        #expect(refusal("http://h/{a,[b]}")?.hasPrefix("nested brace") == true)
        #expect(refusal("http://h/{}")?.hasPrefix("empty string within braces") == true)
        #expect(refusal("http://h/{a,b]")?.hasPrefix("unexpected close bracket") == true)
        #expect(refusal("http://h/[1-999999][1-999999]")?.contains("expands to more than 1000000 URLs") == true)
    }
}
