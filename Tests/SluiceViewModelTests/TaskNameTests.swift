// What rows are called: the server's file name, else the URL's last segment decoded and cleaned, else the host.
import Foundation
import SluiceEngine
import SluiceViewModel
import Testing

@Suite struct TaskNameTests {
    @Test func theLastPathSegmentDecodedWithoutQueryOrFragment() {
        #expect(TaskName.of(url: "http://127.0.0.1:8080/drip?bytes=40000000&name=x.bin") == "drip")
        #expect(TaskName.of(url: "https://example.org/files/My%20Report%202024.pdf#page=2") == "My Report 2024.pdf")
        #expect(TaskName.of(url: "https://example.org/a/b/") == "b", "a trailing slash names the directory")
        #expect(TaskName.of(url: "https://example.org/%E4%BE%8B%E3%81%88.zip") == "例え.zip")
        #expect(TaskName.of(url: "file:///tmp/some/file.iso") == "file.iso")
    }

    @Test func theServersFileNameComesFirst() {
        #expect(TaskName.of(url: "http://h/download?id=7", dispositionName: "report.pdf") == "report.pdf")
        #expect(TaskName.of(url: "http://h/x.bin", dispositionName: "../../etc/passwd") == "passwd")
        #expect(TaskName.of(url: "http://h/x.bin", dispositionName: "") == "x.bin", "an empty file name is no name")
    }

    @Test func theHostWhenThePathNamesNothing() {
        #expect(TaskName.of(url: "https://example.org/") == "example.org")
        #expect(TaskName.of(url: "https://user:secret@example.org:8443") == "example.org:8443", "never the credentials")
        #expect(TaskName.of(url: "https://example.org/..") == "example.org")
        #expect(TaskName.host(of: "http://user@h:81/x") == "h:81")
        #expect(TaskName.host(of: "data:text/plain,hi") == nil)
        #expect(TaskName.host(of: "file:///tmp/x") == nil)
    }

    /// A download's file is named by the URL's path only: a URL that names no file is saved as index.html, as wget
    /// and aria2 save it, whether by `get -O` or `-d` (the row is still called by its host).
    @Test func aURLThatNamesNoFileIsSavedAsIndexHTML() {
        #expect(TaskName.fileName(of: "https://example.org:8443/") == nil)
        #expect(TaskName.fileName(of: "https://example.org/..") == nil)
        #expect(TaskName.fileName(of: "https://example.org/a/My%20File.iso?x=1") == "My File.iso")
        #expect(SafeFileName.sanitize(TaskName.fileName(of: "https://example.org/")) == "index.html")
        #expect(SafeFileName.sanitize(nil) == "index.html" && SafeFileName.sanitize("..") == "index.html")
    }

    /// A name cut to 200 bytes keeps its extension, so that the saved file still opens with the right program.
    @Test func aLongNameIsCutBeforeItsExtension() {
        let long = String(repeating: "a", count: 300) + ".tar.gz"
        let cut = SafeFileName.sanitize(long)
        #expect(cut.utf8.count == 200 && cut.hasSuffix("aaa.gz"), "\(cut)")
        let noExtension = String(repeating: "b", count: 250)
        #expect(SafeFileName.sanitize(noExtension) == String(repeating: "b", count: 200))
        let wide = String(repeating: "例", count: 100) + ".pdf"  // 3 bytes each: cut on a character
        let cutWide = SafeFileName.sanitize(wide)
        #expect(cutWide.utf8.count <= 200 && cutWide.hasSuffix("例.pdf"), "\(cutWide)")
        let oddDot = String(repeating: "c", count: 220) + ".this-is-no-extension-at-all"
        #expect(SafeFileName.sanitize(oddDot).utf8.count == 200)
    }

    /// A server's name never ends as a download's companions do: a `-O` download named `f.sluice-resume` would
    /// be taken for the checkpoint of `f` (found by a tester), and one named `f.sluice-part` for its bytes.
    @Test func aServersNameNeverTakesACompanionsEnding() {
        #expect(SafeFileName.sanitize("med.bin.sluice-resume") == "med.bin.sluice-resume_")
        #expect(SafeFileName.sanitize("med.bin.sluice-part") == "med.bin.sluice-part_")
        #expect(SafeFileName.sanitize("med.bin.sluice-resume.new") == "med.bin.sluice-resume.new_")
        #expect(SafeFileName.sanitize("/a/b/x.sluice-part") == "x.sluice-part_", "the last component, also on the full walk")
        #expect(SafeFileName.sanitize("ünïcode.sluice-part") == "ünïcode.sluice-part_")
        #expect(SafeFileName.sanitize("notes.sluice-partial") == "notes.sluice-partial", "only the endings themselves")
        #expect(SafeFileName.sanitize("m.bin") == "m.bin")
    }

    @Test func aQualifiedNameAddsTheQuery() {
        #expect(TaskName.qualified("drip", url: "http://h/drip?a=1&name=x%20y.bin#frag") == "drip?a=1&name=x y.bin")
        #expect(TaskName.qualified("f.bin", url: "http://h/f.bin#x") == "f.bin")
        #expect(TaskName.qualified("get", url: "http://h/get?q=%1B[2J") == "get?q=\\x1b[2J", "sanitized")
    }

    @Test func aDataURLIsNamedByItsText() {
        #expect(TaskName.of(url: "data:text/plain,hello") == "data:text/plain,hello")
    }

    @Test func hostileNamesAreCleaned() {
        // Control characters (raw or percent-encoded), bidi overrides and leading dots never reach the row.
        let name = TaskName.of(url: "http://h/%1B%5B2Jevil%E2%80%AEgpj.exe")
        #expect(!name.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x202E })
        #expect(name == "[2Jevilgpj.exe")
        #expect(TaskName.of(url: "http://h/x", dispositionName: "\u{1B}]0;owned\u{07}.bin") == "]0;owned.bin")
        #expect(TaskName.of(url: "http://h/x", dispositionName: "\u{2066}a\u{2069}\u{200F}.txt") == "a.txt")
        #expect(TaskName.of(url: "http://h/%2E%2E%2Fhidden") == "hidden", "an encoded slash is still a separator")
        #expect(TaskName.of(url: "http://h/bad%ZZ%4") == "bad%ZZ%4", "a broken escape stays as it is")
    }

    @Test func theModelNamesARowAtItsResponse() {
        var m = Model()
        m.apply(.added(id: 1, url: "http://h/redirect/2", kind: .data, requestHeaders: [], at: 0))
        #expect(m.row(1)?.name == "2")
        let final = Response(url: URL(string: "http://h/files/final.tar.gz")!, statusCode: 200, headers: [:], expectedContentLength: 1)
        m.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 1, event: .didReceiveResponse(final))))
        #expect(m.row(1)?.name == "final.tar.gz", "named as a download of it would be saved: the final URL's name")
        let named = Response(url: URL(string: "http://h/get")!, statusCode: 200,
                             headers: ["Content-Disposition": "attachment; filename=\"real.iso\""], expectedContentLength: 1)
        m.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 2, event: .didReceiveResponse(named))))
        #expect(m.row(1)?.name == "real.iso")
        #expect(m.row(1)?.host == "h")
    }
}

@Suite struct TaskFailureTests {
    func words(_ code: TransferError.Code, _ message: String = "", bytes: Int64 = 0, fraction: Double? = nil) -> [String] {
        TaskFailure(code: code, message: message, bytes: bytes, fraction: fraction).words
    }

    @Test func reasonsInPlainWordsLongestFirst() {
        #expect(words(.networkConnectionLost, bytes: 1_290_000, fraction: 0.43) == ["connection lost at 43%", "lost at 43%", "lost"])
        #expect(words(.networkConnectionLost, bytes: 1_572_864) == ["connection lost after 1.5 MiB", "lost after 1.5 MiB", "lost"])
        #expect(words(.networkConnectionLost) == ["connection lost", "lost"])
        #expect(words(.timedOut) == ["timed out"])
        #expect(words(.cannotConnectToHost, "Failed to connect to 127.0.0.1 port 9 after 0 ms: Connection refused").last == "refused")
        #expect(words(.cannotConnectToHost, "Couldn't connect to server") == ["cannot connect", "no connection"])
        #expect(words(.serverCertificateUntrusted)[0] == "certificate not trusted")
        #expect(words(.unknown) == ["failed"])
        for code in TransferError.Code.allCases {
            let list = words(code, bytes: 10, fraction: 0.5)
            #expect(!list.isEmpty && list.allSatisfy { $0.count <= 29 }, "\(code): \(list)")
            #expect(list.last.map { $0.count <= 16 } == true, "\(code) has words for a narrow cell")
        }
    }

    @Test func theDetailKeepsTheWholeMessage() {
        let f = TaskFailure(TransferError(.timedOut, "Operation timed out after 60000 milliseconds with 0 bytes received\u{1B}[2J",
                                          curlCode: 28), bytes: 0, fraction: nil)
        #expect(f.detail == "timedOut (curl 28): Operation timed out after 60000 milliseconds with 0 bytes received\\x1b[2J")
    }

    @Test func theRowCountsAnHTTPErrorAsAFailureButNotAsABrokenTransfer() {
        var row = TaskRow(id: 1, url: "http://h/x", kind: .data, at: 0)
        row.state = .completed
        row.outcome = .finished
        row.status = 503
        #expect(row.failureWords == ["HTTP 503"])
        #expect(row.isFailed)
        #expect(row.stateWord == "finished", "a data task's body came whole; its failure column says the status")
        row.status = 200
        #expect(row.failureWords == nil && !row.isFailed)
    }

    /// A download answered with an error status saved nothing: it failed, as the store, `ls --json`'s outcome and the
    /// exit status (22) say.
    @Test func aDownloadAnsweredWithAnErrorStatusFailed() {
        var row = TaskRow(id: 1, url: "http://h/x", kind: .download, at: 0)
        row.state = .completed
        row.outcome = .finished
        row.status = 404
        #expect(row.stateWord == "failed")
        row.status = 200
        #expect(row.stateWord == "finished")
    }

    @Test func aRefusedResumeShowsTheServersStatusNotTheFirstAttempts() throws {
        var model = Model()
        let url = try #require(URL(string: "http://h/x"))
        func record(_ at: UInt64, _ event: TaskEvent) -> ModelEvent {
            .engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: at, event: event))
        }
        model.apply(.added(id: 1, url: url.absoluteString, kind: .download, requestHeaders: [], at: 0))
        model.apply(record(1, .didReceiveResponse(Response(url: url, statusCode: 200, headers: [:], expectedContentLength: 20))))  // the first attempt
        let refused = TransactionMetrics(url: url, statusCode: 403)
        model.apply(record(2, .didFinishCollectingMetrics(TaskMetrics(transactions: [refused], redirectCount: 0, duration: 0.1))))
        model.apply(record(3, .didCompleteWithError(TransferError(.badServerResponse, "the server answered 403 to the request to resume at byte 10"))))
        let row = try #require(model.row(1))
        #expect(row.status == 403)
        #expect(row.failureWords == ["the server answered 403", "HTTP 403"], "\(row.failureWords ?? [])")
    }

    @Test func aTaskThatNeverRanIsQueued() {
        var m = Model()
        m.apply(.added(id: 1, url: "http://h/x", kind: .data, requestHeaders: [], at: 0))
        m.apply(.added(id: 2, url: "http://h/y", kind: .data, requestHeaders: [], at: 0))
        #expect(m.row(1)?.stateWord == "queued")
        m.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 1, event: .stateChanged(.running))))
        m.apply(.engine(TaskEventRecord(taskIdentifier: 1, uptimeNanoseconds: 2, event: .stateChanged(.suspended))))
        #expect(m.row(1)?.stateWord == "suspended", "suspended by the user, not waiting for its turn")
        #expect(m.counts.active == 0 && m.counts.suspended == 1 && m.counts.queued == 1, "\(m.counts)")
        m.apply(.engine(TaskEventRecord(taskIdentifier: 2, uptimeNanoseconds: 3, event: .stateChanged(.running))))
        #expect(m.counts.active == 1 && m.counts.suspended == 1 && m.counts.queued == 0, "\(m.counts)")
    }
}
