// `sluice attach`'s driver on a real daemon process: two UIs attached at once hold the same model, each key's
// request reaches the daemon and both see its effect, detaching leaves the transfers running, a UI attached later
// gets the whole model, a removed row leaves every UI, and stopping the daemon ends every UI with a reason.
import Foundation
import SluiceDaemon
import SluiceScenarioServer
import SluiceTUI
import SluiceViewModel
import Testing

/// One attached UI's side, without a screen: its driver, and the model and flows its loop would hold.
final class AttachedView: @unchecked Sendable {  // used by one test task at a time
    let driver: AttachedDaemon
    var model = Model()
    var flows = PendingFlows()

    init(_ fixture: DaemonFixture) {
        driver = AttachedDaemon(client: fixture.client, directory: fixture.output)
    }

    func drain() { _ = driver.drain(into: &model, flows: &flows) }

    /// The facts both UIs must agree on, row by row.
    var facts: [String] {
        model.rows.map { "#\($0.id) \($0.stateWord) \($0.bytes) limit \($0.rateLimit.map(String.init) ?? "-") queue \($0.queuePosition.map(String.init) ?? "-")" }
    }
}

@Suite(.serialized, .enabled(if: DaemonFixture.binary != nil, "needs the built sluice executable"))
struct DaemonAttachTests {
    @Test func twoAttachedUIsShowTheSameStateAndDriveTheDaemon() async throws {
        let server = try DaemonServers.shared()
        try await withDaemon { fixture in
            #expect(try await fixture.sluice(["daemon"]).status == 0)
            let one = AttachedView(fixture)
            let two = AttachedView(fixture)
            func both(_ what: String, _ condition: @escaping (AttachedView) -> Bool) async throws {
                try await fixture.waitUntil(what) {
                    one.drain()
                    two.drain()
                    return condition(one) && condition(two)
                }
                #expect(one.facts == two.facts, "\(what): both UIs hold the same rows")
            }

            // A key in one UI: an add. Both see the row and its bytes arrive.
            let stalled = server.url("/bytes/500000?stall=100000").absoluteString
            #expect(one.driver.perform(.add(stalled, .download)) == nil)
            try await both("the download's first bytes") { $0.model.row(1)?.bytes == 100_000 }
            #expect(one.model.row(1)?.note == "saving to \(fixture.output)/500000")

            // Suspend and a limit from the second UI; both see them.
            #expect(two.driver.perform(.suspend(1)) == nil)
            try await both("suspended") { $0.model.row(1)?.state == .suspended }
            #expect(two.driver.perform(.suspend(1)) == "#1 is suspended, not running", "the daemon's refusal is the message")
            #expect(two.driver.perform(.setTaskRate(1, 1000)) == "#1 at most 1000 B/s")
            try await both("the limit") { $0.model.row(1)?.rateLimit == 1000 }

            // The queue: one at a time, two more waiting, the last moved to the front.
            #expect(one.driver.perform(.setConcurrency(1)) == "at most 1 transfer at once")
            #expect(one.driver.perform(.resume(1)) == nil)
            for n in 2...3 { #expect(one.driver.perform(.add(server.url("/bytes/1000?n=\(n)").absoluteString, .download)) == nil) }
            try await both("two queued") { $0.model.rows.count == 3 && $0.model.counts.queued == 2 }
            #expect(two.driver.perform(.move(3, by: 1)) == nil)
            try await both("#3 first in the queue") { $0.model.row(3)?.queuePosition == 1 && $0.model.row(2)?.queuePosition == 2 }

            // One UI detaches: the transfer goes on, the other UI still follows it.
            one.driver.quit(model: Model())
            #expect(two.driver.perform(.setTaskRate(1, nil)) == "#1 has no limit of its own")
            #expect(two.driver.perform(.cancel(1)) == nil)
            try await fixture.waitUntil("#1 cancelled and the queue run") {
                two.drain()
                return two.model.row(1)?.outcome == .cancelled && two.model.rows.filter { $0.outcome == .finished }.count == 2
            }
            #expect(one.driver.ended == nil, "detaching is not an ending")

            // A UI attached now gets the whole model at once.
            let three = AttachedView(fixture)
            try await fixture.waitUntil("the snapshot") { three.drain(); return three.model.rows.count == 3 }
            two.drain()
            #expect(three.facts == two.facts)
            #expect(three.model.row(2)?.savedPath == two.model.row(2)?.savedPath)
            #expect(three.model.row(1)?.timeline.map(\.name) == two.model.row(1)?.timeline.map(\.name), "with each row's timeline")

            // x in one UI removes the row from every UI (and from the daemon).
            _ = three.model.remove(1)
            three.driver.forget(1)
            try await fixture.waitUntil("#1 gone from the other UI") { two.drain(); return two.model.row(1) == nil }
            #expect(try fixture.tasks().map { $0["id"] as? Int } == [2, 3])

            // Q in one UI stops the daemon: the others end, saying why.
            #expect(three.driver.stopDaemon() == nil)
            try await fixture.waitUntil("the other UI ends") { two.driver.ended != nil }
            #expect(two.driver.ended?.contains("stopped") == true)
            #expect(three.driver.ended == nil, "the UI that stopped it just leaves")
        }
    }
}
