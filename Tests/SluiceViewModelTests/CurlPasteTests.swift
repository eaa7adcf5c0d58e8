// Pasted "Copy as cURL" commands read into requests: the browsers' fixtures, curl's flags, and what a paste may not do.
import SluiceViewModel
import Testing

@Suite struct CurlPasteTests {
    func refusal(_ text: String) -> String? {
        do {
            _ = try CurlPaste.parse(text)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func chromePost() throws {
        let paste = try CurlPaste.parse(CurlPasteFixtures.chromePost)
        #expect(paste.urls == ["https://shop.example.com/api/cart/items?ref=nav"])
        #expect(paste.method == nil && paste.effectiveMethod == "POST", "--data-raw implies POST, as curl")
        #expect(paste.headers.count == 13)
        #expect(paste.headers.first == "accept: application/json, text/plain, */*")
        #expect(paste.headers.contains(#"sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99""#))
        #expect(paste.cookies == ["sid=s%3AQ2x1Yk9.abc123; _ga=GA1.1.1234567890.1700000000; theme=dark"])
        #expect(paste.body == Array(#"{"sku":"A-1","note":"it's a gift!"#.utf8) + [10] + Array(#"wrap it","qty":2}"#.utf8))
        #expect(paste.ignoredFlags.isEmpty && paste.warning == nil)
    }

    @Test func chromeDownload() throws {
        let paste = try CurlPaste.parse(CurlPasteFixtures.chromeDownload)
        #expect(paste.urls == ["https://cdn.example.net/files/report-2026.pdf?sig=9f8e7d&exp=1799999999"])
        #expect(paste.effectiveMethod == "GET" && paste.body == nil)
        #expect(paste.cookies == ["session=eyJhbGciOiJIUzI1NiJ9.e30.sig; cf_clearance=xyz-123"])
        #expect(paste.headers.count == 6)
    }

    @Test func firefoxForm() throws {
        let paste = try CurlPaste.parse(CurlPasteFixtures.firefoxForm)
        #expect(paste.urls == ["https://forum.example.org/login"])
        #expect(paste.method == "POST" && paste.compressed)
        #expect(paste.headers.contains("Cookie: csrftoken=Zx9QkA; lang=en") && paste.cookies.isEmpty)
        #expect(paste.headers.contains("Accept-Encoding: gzip, deflate, br, zstd"))
        #expect(paste.body == Array("csrfmiddlewaretoken=Zx9QkA&username=alice&password=p%40ss".utf8))
        #expect(paste.warning == nil)
    }

    @Test func firefoxJSON() throws {
        let paste = try CurlPaste.parse(CurlPasteFixtures.firefoxJSON)
        #expect(paste.method == "PUT")
        #expect(paste.headers.contains("Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature"))
        let body = Array(#"{"name":"O'Brien","city":"Z"#.utf8) + [0xFC] + Array(#"rich","note":"line one"#.utf8) + [10]
            + Array(#"line two"}"#.utf8)
        #expect(paste.body == body)
    }

    @Test func curlsFlags() throws {
        let paste = try CurlPaste.parse("""
            curl -sSL -XPATCH --url http://h/a http://h/b -H 'X: 1' -A 'agent/1' -e http://from/ -u bob:pw -k \
              --http1.1 -x socks5h://127.0.0.1:1080 -o 'out #1' -g -d a=1 -d 'b=2' --data-binary c=3 \
              --data-urlencode 'q=a b&c' --data-urlencode '=x/y' --data-urlencode 'plain text' --data-ascii z
            """)
        #expect(paste.urls == ["http://h/a", "http://h/b"])
        #expect(paste.method == "PATCH" && paste.followsRedirects)
        #expect(paste.headers == ["X: 1", "User-Agent: agent/1", "Referer: http://from/"])
        #expect(paste.user == "bob:pw" && paste.insecure && paste.httpVersion == .http1_1)
        #expect(paste.proxy == "socks5h://127.0.0.1:1080" && paste.output == "out #1" && paste.globOff)
        #expect(paste.body == Array("a=1&b=2&c=3&q=a+b%26c&x%2Fy&plain+text&z".utf8))
        #expect(paste.ignoredFlags.isEmpty, "\(paste.ignoredFlags)")
        #expect(try CurlPaste.parse("curl --http2 http://h/").httpVersion == .http2)
        #expect(try CurlPaste.parse("http://h/ -b a=1").cookies == ["a=1"], "the word curl may be left out")
        #expect(try CurlPaste.parse("/usr/bin/curl -kLo f http://h/").output == "f")
    }

    /// `-G` sends the data as each URL's query, with GET, as curl does (it went as a POST's body), typed beside the
    /// paste too; flags that make another method or body than a paste carries are refused, not ignored (a form or a
    /// JSON post went as a GET and exited 0). Found by a tester.
    @Test func dataGoesIntoTheQueryWithGAndOtherBodiesAreRefused() throws {
        let get = try CurlPaste.parse("curl -G -d a=1 --data-urlencode 'q=x y' 'http://h/s?k=v#top' http://h/t")
        #expect(get.urls == ["http://h/s?k=v&a=1&q=x+y#top", "http://h/t?a=1&q=x+y"])
        #expect(get.body == nil && get.effectiveMethod == "GET")
        #expect(try CurlPaste.parse("curl --get -d a=1 http://h/").urls == ["http://h/?a=1"])
        #expect(try CurlPaste.parse("curl -d a=1 http://h/", dataInQuery: true).urls == ["http://h/?a=1"], "a -G typed beside it")
        #expect(try CurlPaste.parse("curl -d a=1 http://h/").effectiveMethod == "POST")
        #expect(refusal("curl -G --data-raw 'a b' http://h/")?.hasPrefix("-G: the pasted data is not a URL query") == true)
        for flag in ["--json '{\"a\":1}'", "-F a=b", "--form a=b", "--form-string a=b", "-T /etc/hostname", "--upload-file x", "-I", "--head", "-sI"] {
            let message = refusal("curl \(flag) http://h/")
            #expect(message?.contains("makes another request than sluice would send from a paste") == true, "\(flag): \(message ?? "taken")")
        }
    }

    @Test func unknownFlagsAreNamedOnceWithoutTheirValues() throws {
        let paste = try CurlPaste.parse("curl --speed-time 5 -y 30 http://h/ --oauth2-bearer SECRET -Z -Z -vs --tlsv1.3")
        #expect(paste.urls == ["http://h/"], "a flag's value is not taken for a URL")
        #expect(paste.ignoredFlags == ["--speed-time", "-y", "--oauth2-bearer", "-Z", "-v", "--tlsv1.3"])
        let warning = try #require(paste.warning)
        #expect(warning == "the pasted command's --speed-time, -y, --oauth2-bearer, -Z, -v, --tlsv1.3 are not taken from a paste and are ignored")
        #expect(!warning.contains("SECRET"))
        #expect(try CurlPaste.parse("curl -Z http://h/").warning == "the pasted command's -Z is not taken from a paste and is ignored")
    }

    /// An install script's line: -f (an error page must not reach `| sh`), -m, --connect-timeout, --max-redirs and
    /// the --retry family are taken, in curl's meanings; a value that is not a number is refused.
    @Test func aScriptsLimitsAreTaken() throws {
        let paste = try CurlPaste.parse("""
            curl -fsSL -m 60 --connect-timeout 2.5 --max-redirs -1 --retry 3 --retry-delay 2 --retry-max-time 30               --retry-connrefused --retry-all-errors https://get.example/install.sh
            """)
        var expected = CurlPaste.Limits()
        expected.fail = true
        expected.maxTime = 60
        expected.connectTimeout = 2.5
        expected.maxRedirects = -1
        expected.retries = 3
        expected.retryDelay = 2
        expected.retryMaxTime = 30
        expected.retryConnectionRefused = true
        expected.retryAllErrors = true
        #expect(paste.limits == expected)
        #expect(paste.ignoredFlags.isEmpty && paste.followsRedirects)
        #expect(paste.limits.unused == "-m, --connect-timeout, --max-redirs, --retry", "-f: an add never saves an error page")
        #expect(try CurlPaste.parse("curl -sS http://h/").limits.unused == nil)
        #expect(try CurlPaste.parse("curl -sm5 http://h/").limits.maxTime == 5, "a bundle: -s, then -m 5")
        #expect(try CurlPaste.parse("curl --fail-with-body http://h/").limits.failWithBody)
        #expect(refusal("curl -fsSL --fail-with-body http://h/") == "the pasted command gives both -f and --fail-with-body, which curl refuses too")
        #expect(refusal("curl -m soon http://h/") == "-m soon: not a number of seconds")
        #expect(refusal("curl --retry 2.5 http://h/") == "--retry 2.5: not a whole number")
    }

    @Test func aPasteNeverReadsALocalFile() {
        #expect(refusal("curl -d @/home/u/.ssh/id_rsa http://h/")?.contains("-d @/home/u/.ssh/id_rsa reads a local file") == true)
        #expect(refusal("curl --data-binary @x http://h/")?.contains("reads a local file") == true)
        #expect(refusal("curl -H @headers.txt http://h/")?.contains("reads a local file") == true)
        #expect(refusal("curl --data-urlencode name@file http://h/")?.contains("reads a local file") == true)
        #expect(refusal("curl -b cookies.txt http://h/")?.contains("names a cookie file") == true)
        #expect((try? CurlPaste.parse("curl --data-raw @literal http://h/"))?.body == Array("@literal".utf8),
                "--data-raw takes @ as a character")
    }

    @Test func otherRefusals() {
        #expect(refusal("curl -H 'X: 1'") == "the pasted command has no URL")
        #expect(refusal("wget http://h/")?.hasPrefix("not a curl command") == true)
        #expect(refusal("curl http://h/ -H") == "-H needs a value")
        #expect(refusal("curl http://h/ --url") == "--url needs a value")
        #expect(refusal("curl 'http://h/") == "a ' quote that begins on line 1 is never closed")
    }
}
