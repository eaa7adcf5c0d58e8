// The one-byte probe a refresh and `-C -` make: it asks for the bytes as a download receives them. It accepted
// every encoding, as a data task does, and a server compressing that type (nginx's `gzip on`) answered 200 with
// gzip instead of 206: the refresh was refused as "the new URL does not say the file's size" (found by a tester).
import Foundation
import SluiceEngine
import SluiceScenarioServer
import SluiceTUI
import Testing

@Suite struct URLProbeTests {
    @Test func aServerThatCompressesWhatItMayStillAnswersTheRange() async throws {
        let server = try CLIServers.shared()
        let url = server.url("/ranged/5000?gzip=accepted&t=\(UInt32.random(in: 0...UInt32.max))")
        let answer = await offThePool { URLProbe.answer(Request(url: url), configuration: SessionConfiguration()) }
        let new = try answer.get()
        #expect(new.status == 206 && new.size == 5000 && new.sent == 0...0, "\(new)")
    }
}
