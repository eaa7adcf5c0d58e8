// `sluice get --mermaid` and `--har` on real flows against the scenario server: redirects, a multipart stream, a
// conversion, failures, several tasks in one diagram, bodies; and no existing file is ever replaced.
import Foundation
import SluiceScenarioServer
import Testing
@testable import SluiceCLI

@Suite struct FlowExportTests {
    /// Runs `sluice get ARGS -o FIFO --mermaid M --har H` (a data task whose body a reader drains) and reads both files.
    func record(_ path: String, _ extra: [String] = [], fifo: Bool = true) async throws -> (failure: CLIFailure?, mermaid: String, har: [String: Any]) {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        var arguments = [server.url(path).absoluteString, "--mermaid", dir.path + "/flow.mmd", "--har", dir.path + "/flow.har"] + extra
        var reader: StreamReader?
        if fifo {
            try #require(mkfifo(dir.path + "/body", 0o600) == 0)
            reader = StreamReader.fifo(dir.path + "/body")
            arguments += ["-o", dir.path + "/body"]
        }
        let failure = await runGet(arguments)
        _ = await reader?.finish(unblocking: dir.path + "/body")
        let mermaid = try #require(FileManager.default.contents(atPath: dir.path + "/flow.mmd"), "no Mermaid file; \(failure?.message ?? "")")
        let har = try #require(FileManager.default.contents(atPath: dir.path + "/flow.har"))
        let object = try #require(try JSONSerialization.jsonObject(with: har) as? [String: Any])
        return (failure, String(decoding: mermaid, as: UTF8.self), try #require(object["log"] as? [String: Any]))
    }

    func entries(_ log: [String: Any]) -> [[String: Any]] { log["entries"] as? [[String: Any]] ?? [] }
    func response(_ entry: [String: Any]) -> [String: Any] { entry["response"] as? [String: Any] ?? [:] }
    func request(_ entry: [String: Any]) -> [String: Any] { entry["request"] as? [String: Any] ?? [:] }

    /// Every line of the diagram is a statement Mermaid's sequence grammar knows, and no text carries a raw `;` or
    /// `#` (which would end or change the statement) outside an entity code.
    func expectWellFormed(_ mermaid: String) {
        let lines = mermaid.split(separator: "\n").map(String.init)
        #expect(lines.first == "sequenceDiagram")
        let statement = /^    (title [^\n]*|participant (D|S|T\d+) as [A-Za-z0-9 ]+|(D|S|T\d+)(->>|-->>|--\)|-\))(D|S|T\d+): [^\n]*|Note over (D|S|T\d+)(,(D|S|T\d+))?: [^\n]*)$/
        for line in lines.dropFirst() {
            #expect(line.wholeMatch(of: statement) != nil, "not a statement: \(line)")
            let text = line.replacing(/#\d+;/, with: "")
            #expect(!text.contains(";") && !text.contains("#") && !text.contains("<") && !text.contains("%"), "raw: \(line)")
        }
    }

    @Test func redirectsAreEachAnEntryAndEachAQuestion() async throws {
        let (failure, mermaid, log) = try await record("/redirect/2?status=302")
        #expect(failure == nil, "\(failure?.message ?? "")")
        expectWellFormed(mermaid)
        #expect(mermaid.components(separatedBy: "T1->>S: ").count - 1 == 3, "three requests sent:\n\(mermaid)")
        #expect(mermaid.components(separatedBy: "willPerformHTTPRedirection").count - 1 == 2)
        #expect(mermaid.contains("participant T1 as URLSessionDataTask 1") && mermaid.contains("participant D as URLSessionDelegate"))
        let list = entries(log)
        #expect(list.map { response($0)["status"] as? Int } == [302, 302, 200])
        for (entry, next) in zip(list, list.dropFirst()) {
            #expect(response(entry)["redirectURL"] as? String == request(next)["url"] as? String, "each redirect leads to the next entry")
        }
        for entry in list {
            let timings = try #require(entry["timings"] as? [String: Double])
            let phases = ["dns", "connect", "send", "wait", "receive"].compactMap { timings[$0] }.filter { $0 >= 0 }
            #expect(abs(phases.reduce(0, +) - (entry["time"] as? Double ?? -1)) < 0.01, "time is the sum of the timings")
            #expect(entry["serverIPAddress"] as? String == "127.0.0.1")
            #expect((entry["startedDateTime"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
        }
        #expect(((list.last.map(response)?["content"] as? [String: Any])?["size"] as? Int) == 16)
        #expect(log["version"] as? String == "1.2")
    }

    @Test func aMultipartStreamIsOneRequestWithEachPartAsked() async throws {
        let (failure, mermaid, log) = try await record("/multipart?parts=3&size=10&interval=10")
        #expect(failure == nil)
        expectWellFormed(mermaid)
        for part in 0..<3 { #expect(mermaid.contains("S-->>T1: ") && mermaid.contains("part \(part)#58; 200 OK"), "part \(part)") }
        #expect(mermaid.components(separatedBy: "completionHandler(.allow)").count - 1 == 3)
        let list = entries(log)
        #expect(list.count == 1)
        let content = try #require(list.first.map(response)?["content"] as? [String: Any])
        #expect((content["comment"] as? String)?.contains("3 parts") == true)
    }

    @Test func aConversionGetsItsOwnLifelineAndStaysOneEntry() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet([server.url("/bytes/300000").absoluteString, "-o", dir.path + "/file.bin", "--disposition", "becomeDownload",
                              "--mermaid", dir.path + "/flow.mmd", "--har", dir.path + "/flow.har"])
        #expect(failure == nil)
        let mermaid = try String(contentsOfFile: dir.path + "/flow.mmd", encoding: .utf8)
        expectWellFormed(mermaid)
        #expect(mermaid.contains("participant T2 as URLSessionDownloadTask 2"))
        #expect(mermaid.contains("T1->>D: ") && mermaid.contains("urlSession(_#58;dataTask#58;didBecome#58;) download task 2"))
        #expect(mermaid.contains("T1-)T2: "), "the hand-over drawn between the two tasks")
        #expect(mermaid.contains("T2--)D: ") && mermaid.contains("didWriteData"))
        let log = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/flow.har")))
            as? [String: Any])?["log"] as? [String: Any])
        let list = entries(log)
        #expect(list.count == 1, "one request, whatever task carried it")
        let content = try #require(list.first.map(response)?["content"] as? [String: Any])
        #expect(content["size"] as? Int == 300_000)
        #expect((content["comment"] as? String)?.contains("continued as download task 2") == true)
        #expect(dir.entries.sorted() == ["file.bin", "flow.har", "flow.mmd"], "no temporary file left")
    }

    @Test func aDroppedConnectionIsWrittenWithItsError() async throws {
        let (failure, mermaid, log) = try await record("/bytes/300000?drop=100000")
        #expect(failure?.code == 1, "the transfer failed, the files were still written")
        expectWellFormed(mermaid)
        #expect(mermaid.contains("didCompleteWithError#58;) networkConnectionLost"))
        let entry = try #require(entries(log).first)
        #expect(response(entry)["status"] as? Int == 200)
        #expect((entry["_error"] as? String)?.hasPrefix("networkConnectionLost: ") == true)
    }

    @Test func aRefusedConnectionHasNoResponse() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        // The garbage port answers with bytes that are not HTTP: a failure before any response.
        let url = "http://127.0.0.1:\(server.garbagePort)/x"
        let failure = await runGet([url, "-o", dir.path + "/x.bin", "--mermaid", dir.path + "/f.mmd", "--har", dir.path + "/f.har"])
        #expect(failure?.code == 1)
        let log = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/f.har")))
            as? [String: Any])?["log"] as? [String: Any])
        let entry = try #require(entries(log).first)
        #expect(response(entry)["status"] as? Int == 0 && request(entry)["url"] as? String == url)
        #expect(entry["_error"] != nil)
        expectWellFormed(try String(contentsOfFile: dir.path + "/f.mmd", encoding: .utf8))
    }

    @Test func severalURLsMakeOneDiagram() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/out", withIntermediateDirectories: true)
        let urls = ["/bytes/1000?name=a.bin", "/redirect/1", "/bytes/2000?name=b.bin"].map { server.url($0).absoluteString }
        let failure = await runGet(urls + ["--output-dir", dir.path + "/out", "--mermaid", dir.path + "/all.mmd", "--har", dir.path + "/all.har"])
        #expect(failure == nil)
        let mermaid = try String(contentsOfFile: dir.path + "/all.mmd", encoding: .utf8)
        expectWellFormed(mermaid)
        for id in 1...3 { #expect(mermaid.contains("participant T\(id) as URLSessionDownloadTask \(id)")) }
        #expect(mermaid.contains("title sluice get, observed delegate flow of tasks 1, 2, 3"))
        let log = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/all.har")))
            as? [String: Any])?["log"] as? [String: Any])
        #expect(entries(log).count == 4, "three transfers, one redirect")
    }

    @Test func bodiesOnlyWhenAskedBase64WhenBinary() async throws {
        let (_, _, plain) = try await record("/bytes/1000")
        let content = try #require(entries(plain).first.map(response)?["content"] as? [String: Any])
        #expect(content["text"] == nil, "no body by default")
        let (failure, _, withBodies) = try await record("/bytes/1000", ["--har-bodies"])
        #expect(failure == nil)
        let binary = try #require(entries(withBodies).first.map(response)?["content"] as? [String: Any])
        #expect(binary["encoding"] as? String == "base64")
        #expect(Data(base64Encoded: binary["text"] as? String ?? "") == Data(ScenarioPattern.bytes(offset: 0, count: 1000)))
        let (_, _, text) = try await record("/multipart?parts=1&size=10", ["--har-bodies"])
        let part = try #require(entries(text).first.map(response)?["content"] as? [String: Any])
        #expect(part["text"] as? String == "aaaaaaaaaa",
                "text/plain as text")
        #expect(part["encoding"] == nil)
    }

    @Test func bodiesOfAConversionAreTheWholeFile() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let failure = await runGet([server.url("/bytes/50000").absoluteString, "-o", dir.path + "/f.bin", "--disposition", "becomeDownload",
                              "--har", dir.path + "/f.har", "--har-bodies"])
        #expect(failure == nil)
        let log = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.path + "/f.har")))
            as? [String: Any])?["log"] as? [String: Any])
        let content = try #require(entries(log).first.map(response)?["content"] as? [String: Any])
        #expect(Data(base64Encoded: content["text"] as? String ?? "") == Data(ScenarioPattern.bytes(offset: 0, count: 50000)))
    }

    @Test func anExistingFileIsNeverReplaced() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let mine = dir.path + "/mine.mmd"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: mine))
        let failure = await runGet([server.url("/bytes/10").absoluteString, "-o", dir.path + "/x", "--mermaid", mine])
        #expect(failure?.code == 1 && failure?.message.contains("already exists") == true)
        #expect(try String(contentsOfFile: mine, encoding: .utf8) == "keep me\n")
        #expect(dir.entries == ["mine.mmd"], "refused before any transfer")
        #expect(await runGet([server.url("/bytes/10").absoluteString, "--har-bodies"]) != nil, "--har-bodies needs --har")
        let two = await runGet([server.url("/a").absoluteString, server.url("/b").absoluteString, "--har", dir.path + "/h.har", "--har-bodies"])
        #expect(two?.code == 2, "--har-bodies takes one URL")
    }
}
