// A data task the UI converts to a download (`d`, or `becomeDownload` at its response) is as crash-safe as one
// added as a download: its bytes go to NAME.sluice-part beside its target and its checkpoint to NAME.sluice-resume,
// so a kill -9 leaves a visible file the next run continues, never a hidden `.sluice-XXXXXX.download`.
import Dispatch
import Foundation
import SluiceEngine
import SluiceScenarioServer
@testable import SluiceTUI
import SluiceViewModel
import Testing

@Suite struct ConversionTests {
    /// Drains the app's events until `done` holds of the model, or a minute passes.
    func drain(_ app: TransferApp, _ model: inout Model, until done: (Model) -> Bool) async throws -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        while DispatchTime.now().uptimeNanoseconds < deadline {
            _ = app.drainEvents(into: &model)
            if done(model) { return true }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return false
    }

    /// The app says every task ended only once the download a data task became has ended: the data task's row is
    /// done at the conversion, the download's row from then on is not (`--exit-when-done` and a quit ask this).
    @Test func everythingEndedWaitsForTheDownloadAConversionMade() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path)
        defer { app.session.invalidateAndCancel() }
        // The first 1,024 bytes, then nothing until the gate opens: the conversion comes while the body is held.
        let gate = "ended-\(UInt32.random(in: 0...UInt32.max))"
        guard case .success(let row) = app.add(server.url("/drip?bytes=4096&chunk=1024&interval=10&gate=\(gate)&name=held.bin").absoluteString,
                                                kind: .data) else {
            Issue.record("refused")
            return
        }
        var model = Model()
        #expect(try await drain(app, &model) { $0.row(row)?.bytes == 1024 })
        #expect(!app.allCompleted, "the data task runs")
        #expect(app.carryOut(.convert(row)) == nil)
        #expect(try await drain(app, &model) { model in model.rows.contains { $0.id != row && $0.kind == .download } })
        #expect(!app.allCompleted, "the download runs, held by the server")
        server.openGate(gate)
        #expect(try await drain(app, &model) { model in model.rows.contains { $0.kind == .download && $0.savedPath != nil } })
        app.waitUntilStopped(seconds: 30)
        #expect(app.allCompleted)
        #expect(dir.entries == ["held.bin"], "\(dir.entries)")
    }

    @Test func aConvertedDownloadKeepsItsBytesBesideItsTargetWithACheckpoint() async throws {
        let server = try CLIServers.shared()
        let dir = try Scratch()
        defer { dir.remove() }
        let app = TransferApp(outputDirectory: dir.path)
        defer { app.session.invalidateAndCancel() }
        // 100,000 bytes, then the server holds the rest: the process is "killed" while it waits.
        let url = server.url("/bytes/300000?stall=100000&name=conv.bin&t=\(UInt32.random(in: 0...UInt32.max))")
        guard case .success(let row) = app.add(url.absoluteString, kind: .data) else {
            Issue.record("refused")
            return
        }
        var model = Model()
        #expect(try await drain(app, &model) { $0.row(row)?.bytes == 100_000 })
        #expect(app.carryOut(.convert(row)) == nil)
        let resume = dir.path + "/conv.bin.sluice-resume"
        #expect(try await drain(app, &model) { _ in FileManager.default.fileExists(atPath: resume) })
        #expect(dir.entries == ["conv.bin.sluice-part", "conv.bin.sluice-resume"], "\(dir.entries)")
        let checkpoint = FileManager.default.contents(atPath: resume).flatMap(ResumeData.decode)
        #expect(checkpoint?.path == dir.path + "/conv.bin.sluice-part")
        #expect(checkpoint?.bytesOnDisk == 100_000)
        #expect(FileManager.default.contents(atPath: dir.path + "/conv.bin.sluice-part") == Data(ScenarioPattern.bytes(offset: 0, count: 100_000)),
                "the bytes shown before the conversion are the file's first")
    }
}
