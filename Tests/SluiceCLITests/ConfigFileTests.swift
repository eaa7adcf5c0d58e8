// The config file: the shared TOML subset, every broken-file error with its line and key, and what wins over what.
import Foundation
import SluiceViewModel
import Testing
@testable import SluiceCLI

@Suite struct ConfigFileTests {
    let sample = """
        # defaults
        jobs = 4
        limit-rate = "2M"   # a comment after a value
        timeout = 30.5
        output-dir = '~/Downloads'
        on-complete = "notify-send \\"done\\""

        [hosts."example.com"]
        user-agent = "Mozilla/5.0"
        headers = { "X-Token" = "abc", Accept = "*/*" }
        netrc = true
        split = 4

        [hosts."*.cdn.net"]
        connections = 2
        headers = ["Referer: https://cdn.net/", "X-B: two: colons"]

        [hosts."files.org".headers]
        X-C = "c"
        """

    @Test func aWholeFileReadsWithItsLines() throws {
        let config = try SluiceConfig.parse(sample, file: "c.toml")
        #expect(config.jobs == Setting(value: 4, source: .file("c.toml", line: 2)))
        #expect(config.limitRate == Setting(value: "2M", source: .file("c.toml", line: 3)))
        #expect(config.timeout == Setting(value: 30.5, source: .file("c.toml", line: 4)))
        #expect(config.outputDir.value == "~/Downloads")
        #expect(config.onComplete.value == "notify-send \"done\"")
        #expect(config.split == Setting(value: 1, source: .defaultValue))
        #expect(config.hosts.map(\.pattern) == ["example.com", "*.cdn.net", "files.org"])
        let example = try #require(config.rule(for: "EXAMPLE.com"))
        #expect(example.headers.map { "\($0.name): \($0.value)@\($0.line)" }
                == ["User-Agent: Mozilla/5.0@9", "X-Token: abc@10", "Accept: */*@10"])
        #expect(example.netrc?.value == true)
        #expect(example.split == Setting(value: 4, source: .file("c.toml", line: 12)))
        #expect(config.rule(for: "a.b.cdn.net")?.connections?.value == 2)
        #expect(config.rule(for: "cdn.net") == nil, "*.cdn.net is the names under it")
        #expect(config.rule(for: "xcdn.net") == nil)
        #expect(config.rule(for: "a.cdn.net")?.headers.last.map { "\($0.name)=\($0.value)" } == "X-B=two: colons")
        #expect(config.rule(for: "files.org")?.headers.map(\.name) == ["X-C"])
    }

    @Test func theFilesTimeoutReachesTheUIAndTheDaemonOnlyWhenSet() throws {
        #expect(try SluiceConfig.parse("timeout = 30\n", file: "c.toml").requestTimeout == 30)
        #expect(try SluiceConfig.parse("jobs = 2\n", file: "c.toml").requestTimeout == nil, "the engine's 60 s")
    }

    @Test func anExactHostBeatsAWildcardAndTheLongestWildcardWins() throws {
        let config = try SluiceConfig.parse("""
            [hosts."*.net"]
            split = 2
            [hosts."*.cdn.net"]
            split = 3
            [hosts."a.cdn.net"]
            split = 4
            """, file: "f")
        #expect(config.rule(for: "a.cdn.net")?.split?.value == 4)
        #expect(config.rule(for: "b.cdn.net")?.split?.value == 3)
        #expect(config.rule(for: "b.net")?.split?.value == 2)
    }

    @Test(arguments: [
        ("jobs = 4\nbogus = 1", 2, "bogus", "unknown key"),
        ("jobs = \"4\"", 1, "jobs", "expected an integer, found a string"),
        ("\njobs = 0", 2, "jobs", "out of range"),
        ("split = 17", 1, "split", "out of range (1 to 16)"),
        ("timeout = -1", 1, "timeout", "more than 0"),
        ("limit-rate = \"fast\"", 1, "limit-rate", "not a speed"),
        ("limit-rate = true", 1, "limit-rate", "expected a speed"),
        ("theme = \"\"", 1, "theme", "must not be empty"),
        ("jobs = 2\njobs = 3", 2, "jobs", "set twice (first on line 1)"),
        ("theme = \"dark", 1, "theme", "unterminated string"),
        ("theme = 'dark", 1, "theme", "unterminated string"),
        ("theme = \"\"\"dark\"\"\"", 1, "theme", "multi-line strings are not supported"),
        ("theme = dark", 1, "theme", "not a value: dark (a string needs quotes)"),
        ("theme = \"a\\qb\"", 1, "theme", "unknown escape \\q"),
        ("jobs = 4 5", 1, "jobs", "unexpected text after the value"),
        ("jobs", 1, nil, "expected `key = value`"),
        ("jobs =", 1, "jobs", "no value after ="),
        ("a.b = 1", 1, nil, "dotted keys are not supported"),
        ("[hosts.\"x.org\"\nsplit = 2", 1, nil, "bad table header [hosts.\"x.org\": no closing ]"),
        ("[hosts.\"x.org]", 1, nil, "bad table header"),
        ("[hosts..x]", 1, nil, "bad table header"),
        ("[[hosts]]", 1, nil, "arrays of tables are not supported"),
        ("[hosts.\"x.org\"]\n[hosts.\"x.org\"]", 2, nil, "defined twice (first on line 1)"),
        ("[proxy]\nx = 1", 2, nil, "unknown table [proxy]"),
        ("[hosts]\nsplit = 1", 2, "split", "[hosts] holds only"),
        ("[hosts.\"x.org\"]\nspeed = 1", 2, "speed", "unknown key in [hosts.\"x.org\"]"),
        ("[hosts.\"x.org\"]\nnetrc = \"yes\"", 2, "netrc", "expected true or false"),
        ("[hosts.\"x.org\"]\nheaders = 3", 2, "headers", "expected a table"),
        ("[hosts.\"x.org\"]\nheaders = [\"no colon\"]", 2, "headers", "\"Name: value\""),
        ("[hosts.\"x.org\"]\nheaders = { \"Bad Name\" = \"v\" }", 2, "headers", "not a header name"),
        ("[hosts.\"x.org\"]\nheaders = { A = 1 }", 2, "headers", "must be a string"),
        ("[hosts.\"x.org\"]\nheaders = [\"A: 1\"", 2, "headers", "unterminated array"),
        ("[hosts.\"x.org\"]\nheaders = { A = \"1\"", 2, "headers", "unterminated inline table"),
        ("[hosts.\"x.org\"]\nuser-agent = \"a\\nb\"", 2, "user-agent", "line break"),
        ("[hosts.\"x.org\"]\nproxy = \"http://p:3128\"", 2, "proxy", "per-host proxy is not supported"),
        ("[hosts.\"x org\"]\nsplit = 2", 2, nil, "not a host name"),
        ("[hosts.\"x.org\".more]\nsplit = 2", 2, nil, "a host rule holds only a headers table"),
    ] as [(String, Int, String?, String)])
    func aBrokenFileNamesFileLineAndKey(text: String, line: Int, key: String?, message: String) {
        #expect {
            try SluiceConfig.parse(text, file: "/home/u/.config/sluice/config.toml")
        } throws: { error in
            guard let e = error as? TOMLError else { return false }
            return e.file == "/home/u/.config/sluice/config.toml" && e.line == line && e.key == key && e.message.contains(message)
        }
    }

    @Test func theErrorTextNamesFileLineAndKey() {
        let error = TOMLError(file: "/c.toml", line: 3, key: "jobs", message: "expected an integer, found a string")
        #expect(error.description == "/c.toml:3: jobs: expected an integer, found a string")
    }

    @Test func theSubsetReadsItsValues() throws {
        let entries = try TOMLSubset.document("""
            a = -12_000
            b = 1.5e3
            c = [1, "two", false, ]
            d = { x = 'lit\\n', "y z" = [] }
            e = "\\u00fc\\t#not a comment" # a comment
            """, file: "f")
        #expect(entries.map(\.value) == [
            .integer(-12000), .float(1500), .array([.integer(1), .string("two"), .bool(false)]),
            .table([("x", .string("lit\\n")), ("y z", .array([]))]), .string("ü\t#not a comment"),
        ])
        #expect(entries.map(\.line) == [1, 2, 3, 4, 5])
    }

    // MARK: where the file is

    @Test func theFileIsNamedThenSluiceConfigThenXDGThenHome() {
        let env = ["SLUICE_CONFIG": "/s.toml", "XDG_CONFIG_HOME": "/x", "HOME": "/h"]
        #expect(ConfigFile.locate(named: "/n.toml", environment: env)! == ("/n.toml", true))
        #expect(ConfigFile.locate(named: nil, environment: env)! == ("/s.toml", true))
        #expect(ConfigFile.locate(named: nil, environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])! == ("/x/sluice/config.toml", false))
        #expect(ConfigFile.locate(named: nil, environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"])!
                == ("/h/.config/sluice/config.toml", false), "XDG says a relative path is to be ignored")
    }

    @Test func aMissingDefaultFileIsNoConfigButAMissingNamedOneIsAnError() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        let none = try ConfigFile.load(named: nil, environment: ["XDG_CONFIG_HOME": dir.path])
        #expect(none == SluiceConfig())
        #expect(throws: CLIFailure.self) { try ConfigFile.load(named: dir.path + "/missing.toml", environment: [:]) }
        #expect(throws: CLIFailure.self) { try ConfigFile.load(named: nil, environment: ["SLUICE_CONFIG": dir.path + "/missing.toml"]) }
        try FileManager.default.createDirectory(atPath: dir.path + "/sluice", withIntermediateDirectories: true)
        try "jobs = 3\n".write(toFile: dir.path + "/sluice/config.toml", atomically: true, encoding: .utf8)
        #expect(try ConfigFile.load(named: nil, environment: ["XDG_CONFIG_HOME": dir.path]).jobs.value == 3)
        try "jobs = 3\njobs = x\n".write(toFile: dir.path + "/sluice/config.toml", atomically: true, encoding: .utf8)
        do {
            _ = try ConfigFile.load(named: nil, environment: ["XDG_CONFIG_HOME": dir.path])
            Issue.record("a broken file must stop")
        } catch let failure as CLIFailure {
            #expect(failure.message == "config: \(dir.path)/sluice/config.toml:2: jobs: not a value: x (a string needs quotes)")
            #expect(failure.code == 2)
        }
    }

    // MARK: precedence

    @Test func theCommandLineWinsOverTheFileWhichWinsOverTheDefaults() throws {
        let config = try SluiceConfig.parse("jobs = 3\ntimeout = 9\nretry = 2\nlimit-rate = \"1M\"\nsplit = 4\n", file: "f")
        var given = try GetCommand.parse(["http://h/", "-j", "8", "--limit-rate", "5k", "-o", "out"])
        config.applyDefaults(to: &given)
        #expect(given.jobs == 8 && given.retryOptions.limitRate == "5k", "given flags stay")
        #expect(given.timeout == 9 && given.retryOptions.retry == 2 && given.splitOptions.splitGiven == 4, "the file fills the rest")

        var plain = try GetCommand.parse(["http://h/"])
        SluiceConfig().applyDefaults(to: &plain)
        #expect(plain.jobs == nil && plain.timeout == nil && plain.retryOptions.retry == nil, "no file: get's own defaults")
        var toStdout = try GetCommand.parse(["http://h/"])
        config.applyDefaults(to: &toStdout)
        #expect(toStdout.splitOptions.splitGiven == nil, "a split needs -o FILE, so the file's split is not forced on stdout")
    }

    @Test func aHostRuleWinsOverTheFileForItsHost() throws {
        let config = try SluiceConfig.parse("split = 2\n[hosts.\"h.org\"]\nsplit = 6\nlimit-rate = \"300k\"\n", file: "f")
        var host = try GetCommand.parse(["http://h.org/x", "-o", "out"])
        config.applyDefaults(to: &host)
        #expect(host.splitOptions.splitGiven == 6 && host.retryOptions.limitRate == "300k")
        var other = try GetCommand.parse(["http://other.org/x", "-o", "out"])
        config.applyDefaults(to: &other)
        #expect(other.splitOptions.splitGiven == 2 && other.retryOptions.limitRate == nil)
        var typed = try GetCommand.parse(["http://h.org/x", "-o", "out", "--split", "3"])
        config.applyDefaults(to: &typed)
        #expect(typed.splitOptions.splitGiven == 3)
    }

    @Test func aHostsConnectionsCapsTheSplitTheFileGivesAndABatchUnderThatOneRule() throws {
        let config = try SluiceConfig.parse("split = 8\n[hosts.\"*.h.org\"]\nconnections = 3\n[hosts.\"b.org\"]\nsplit = 2\n", file: "f")
        var capped = try GetCommand.parse(["http://a.h.org/x", "-o", "out"])
        config.applyDefaults(to: &capped)
        #expect(capped.splitOptions.splitGiven == 3, "the file's 8, at most the host's 3 connections")
        var typed = try GetCommand.parse(["http://a.h.org/x", "-o", "out", "--split", "5"])
        config.applyDefaults(to: &typed)
        #expect(typed.splitOptions.splitGiven == 5, "a typed --split is the user's own call")
        let urls = ["http://a.h.org/1", "http://b.h.org/2", "http://b.org/3"].compactMap(URL.init(string:))
        #expect(config.sharedConnections(of: Array(urls.prefix(2))) == 3)
        #expect(config.sharedConnections(of: urls) == nil, "libcurl's limit is every host's: not when b.org is in the list")
        #expect(config.connections(forHost: "z.h.org") == 3 && config.connections(forHost: "b.org") == nil)
    }

    @Test func configShowsAFlagGivenAsTheCommandLinesAndLeavesTheOthersAsTheFileHasThem() throws {
        var config = try SluiceConfig.parse("jobs = 4\ntheme = \"night\"\nlimit-rate = \"2M\"\n", file: "f")
        let given = try GivenSettings.parse(["-j", "8", "--on-error", "echo x"])
        try given.apply(to: &config)
        let rows = Dictionary(uniqueKeysWithValues: ConfigReport(config).settings.map { ($0.key, "\($0.value ?? "-") @ \($0.source)") })
        #expect(rows["jobs"] == "8 @ command line" && rows["on-error"] == "echo x @ command line")
        #expect(rows["theme"] == "night @ f:2" && rows["limit-rate"] == "2M @ f:3", "an absent flag leaves the file's")
        #expect(rows["split"] == "1 @ default")
        var bad = config
        #expect(throws: CLIFailure.self) { try GivenSettings.parse(["--limit-rate", "fast"]).apply(to: &bad) }
        #expect(throws: CLIFailure.self) { try GivenSettings.parse(["--split", "99"]).apply(to: &bad) }
    }

    /// Without a file, `sluice config` says where it looked, so that a user knows where to write one.
    @Test func withoutAFileConfigSaysWhereItLooked() throws {
        let home = ["HOME": "/home/u"]
        let looked = try #require(ConfigFile.locate(named: nil, environment: home)).path
        let text = ConfigReport(SluiceConfig(), lookedFor: looked).text()
        #expect(text.hasPrefix("# config file: none (no /home/u/.config/sluice/config.toml)\n"), "\(text)")
        let json = try ConfigReport(SluiceConfig(), lookedFor: looked).json()
        #expect(json.contains("\"lookedFor\":\"\\/home\\/u\\/.config\\/sluice\\/config.toml\"") || json.contains("\"lookedFor\":\"/home/u/.config/sluice/config.toml\""), "\(json)")
        let named = try SluiceConfig.parse("jobs = 2\n", file: "/etc/x.toml")
        #expect(ConfigReport(named, lookedFor: "/etc/x.toml").text().hasPrefix("# config file: /etc/x.toml\n"))
    }

    @Test func aRuleHeaderIsAddedUnlessMinusHNamesIt() throws {
        let config = try SluiceConfig.parse("[hosts.\"h.org\"]\nuser-agent = \"rule-agent\"\nheaders = { X-A = \"rule\", X-Gone = \"rule\" }\n", file: "f")
        let command = try GetCommand.parse(["http://h.org/", "-H", "x-a: typed", "-H", "X-Gone:"])
        var prepared = try command.requestOptions.prepare(askPassword: { _ in nil })
        prepared.hostRules = HostRulesApplied(config)
        let request = prepared.request(for: try #require(URL(string: "http://h.org/")))
        #expect(request.headers["User-Agent"] == "rule-agent")
        #expect(request.headers["X-A"] == "typed")
        #expect(request.headers["X-Gone"].map { $0.isEmpty } ?? true, "-H 'Name:' removes even the rule's")
        let elsewhere = prepared.request(for: try #require(URL(string: "http://other.org/")))
        #expect(elsewhere.headers["User-Agent"] == nil)
    }

    @Test func theUIsFlagsWinOverTheFile() throws {
        let config = try SluiceConfig.parse("jobs = 3\nper-host = 2\nsplit = 4\noutput-dir = \"/dl\"\ntheme = \"mono\"\n", file: "f")
        var given = try OpenCommand.parse(["http://h/", "-j", "9", "--output-dir", "/typed", "--split", "2"])
        config.applyDefaults(to: &given)
        #expect(given.jobs == 9 && given.split == 2 && given.interface.outputDir == "/typed", "given flags stay")
        #expect(given.perHost == 2 && given.interface.theme == "mono", "the file fills the rest")
        var plain = try OpenCommand.parse(["http://h/"])
        SluiceConfig().applyDefaults(to: &plain)
        #expect(plain.jobs == nil && plain.split == nil && plain.interface.outputDir == "." && plain.interface.theme == "default")
    }

    @Test func addTakesTheFilesSplitForDownloadsOnly() throws {
        let config = try SluiceConfig.parse("split = 3\n[hosts.\"h.org\"]\nsplit = 5\n", file: "f")
        #expect(config.split(forURL: "http://h.org/a") == 5)
        #expect(config.split(forURL: "http://o.org/a") == 3)
        #expect(SluiceConfig().split(forURL: "http://o.org/a") == nil)
    }
}
