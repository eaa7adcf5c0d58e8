// What each scenario's tasks must have seen when its last task completes; a list of what was not so.
import SluiceEngine

enum Expectation {
    static func problems(_ plan: Plan, _ chain: [TaskRecord]) -> [String] {
        guard let first = chain.first else { return ["no task was recorded"] }
        var found: [String] = []
        func expect(_ ok: Bool, _ what: @autoclosure () -> String) { if !ok { found.append(what()) } }
        func expectWholeBody(_ r: TaskRecord) {
            expect(r.error == nil, "error \(describe(r.error))")
            expect(r.status == 200, "status \(r.status.map(String.init) ?? "none")")
            expect(r.bytes == plan.size, "\(r.bytes) of \(plan.size) body bytes delivered")
            expect(r.patternMatches, "the body's bytes differ from what the server sent")
        }
        func expectWholeFile(_ r: TaskRecord, label: String) {
            expect(r.error == nil, "\(label): error \(describe(r.error))")
            expect(r.finishedDownloads == 1, "\(label): didFinishDownloadingTo \(r.finishedDownloads) times")
            expect(r.fileSize == plan.size, "\(label): file of \(r.fileSize.map(String.init) ?? "no") bytes, not \(plan.size)")
            expect(r.fileMatches, "\(label): the file's bytes differ from what the server sent")
        }
        func expectError(_ r: TaskRecord, _ code: TransferError.Code) {
            expect(r.error?.code == code, "expected \(code.rawValue), got \(describe(r.error))")
        }
        func expectLength(_ n: Int) { expect(chain.count == n, "\(chain.count) tasks in the chain, not \(n)") }

        switch plan.scenario {
        case .data, .chunked:
            expectWholeBody(first)
        case .suspendResume, .suspendBeforeResponse:
            expectWholeBody(first)
            expect(first.deliveredWhileSuspended == 0, "\(first.deliveredWhileSuspended) chunks delivered while suspended")
            expect(!first.completedWhileSuspended, "didCompleteWithError while suspended, before resume()")
            expect(first.acted || plan.scenario == .suspendBeforeResponse, "never suspended")
        case .download:
            expectWholeFile(first, label: "download")
        case .dropData, .shortBody:
            expectError(first, .networkConnectionLost)
            expect(first.bytes == plan.cut, "\(first.bytes) bytes delivered before the drop, not \(plan.cut)")
            expect(first.patternMatches, "the bytes before the drop differ from what the server sent")
        case .dropDownloadResumed:
            expectError(first, .networkConnectionLost)
            if plan.cut > 0 {
                expect(first.resumeData != nil, "no resume data after \(plan.cut) bytes on disk")
                expectLength(2)
                if chain.count == 2 {
                    expect(chain[1].resumedAt == plan.cut, "resumed at \(chain[1].resumedAt.map(String.init) ?? "no offset"), not \(plan.cut)")
                    expectWholeFile(chain[1], label: "resumed")
                }
            } else {
                expect(first.resumeData == nil, "resume data for an empty partial file")
                expectLength(1)
            }
        case .cancelAtStart:
            expectError(first, .cancelled)
        case .cancelAtResponse:
            expectError(first, .cancelled)
            expect(first.bytes == 0, "\(first.bytes) body bytes delivered after a .cancel disposition")
            expect(first.responses == 1, "\(first.responses) responses")
        case .cancelMidBody:
            expectError(first, .cancelled)
            expect(first.bytes > 0 && first.bytes < plan.size, "\(first.bytes) of \(plan.size) bytes before the cancel")
        case .cancelDownloadResumed:
            expectError(first, .cancelled)
            expect(first.resumeData != nil, "no resume data from cancel(byProducingResumeData:)")
            expectLength(2)
            if chain.count == 2 {
                let offset = chain[1].resumedAt ?? -1
                expect(offset > 0 && offset <= plan.cut, "resumed at \(offset), outside 1...\(plan.cut)")
                expectWholeFile(chain[1], label: "resumed")
            }
        case .cancelDownloadPlain:
            expectError(first, .cancelled)
            expect(first.error?.resumeData == nil, "resume data after a plain cancel()")
            expect(first.finishedDownloads == 0, "didFinishDownloadingTo after a cancel")
        case .convert:
            if first.became == nil {
                // The body ended before the conversion reached the transfer: a whole data task is right too.
                expectWholeBody(first)
                expectLength(1)
            } else {
                expectLength(2)
                expect(first.completions == 0, "the converted data task completed \(first.completions) times")
                if chain.count == 2 {
                    expect(chain[1].prepended == true, "prependReceivedData refused the \(first.bytes) bytes")
                    expectWholeFile(chain[1], label: "converted")
                }
            }
        case .becomeDownload:
            expectLength(2)
            expect(first.bytes == 0, "\(first.bytes) bytes reached the data task before .becomeDownload")
            expect(first.completions == 0, "the data task completed \(first.completions) times")
            if chain.count == 2 { expectWholeFile(chain[1], label: "became") }
        case .notFound:
            expect(first.error == nil, "error \(describe(first.error))")
            expect(first.status == 404, "status \(first.status.map(String.init) ?? "none")")
        case .redirect:
            expectWholeBody(first)
        case .multipart:
            expect(first.error == nil, "error \(describe(first.error))")
            expect(first.responses == 3, "\(first.responses) responses, not 3")
            expect(first.bytes == plan.size, "\(first.bytes) of \(plan.size) bytes")
        case .refused:
            expectError(first, .cannotConnectToHost)
        case .timeout:
            expectError(first, .timedOut)
            expect(first.responses == 1, "\(first.responses) responses before the silence, not 1")
        }
        return found
    }

    private static func describe(_ error: TransferError?) -> String {
        error.map { "\($0.code.rawValue) (\($0.message))" } ?? "none"
    }
}
