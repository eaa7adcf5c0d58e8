// The requests one transfer sent, read back from its flow: the first, then one per followed redirect, each with the
// response it got, its bytes, and the metrics transaction that timed it. What a HAR file lists as entries.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SluiceEngine

public struct TransferHop: Equatable, Sendable {
    public var url: String
    public var method: String
    public var requestHeaders: [HeaderLine]
    /// When the request started (the task began running, or the redirect was followed), on the uptime clock.
    public var started: UInt64
    /// When its response's head came, and when it ended.
    public var responded: UInt64?
    public var ended: UInt64
    public var response: Response?
    /// Where this response redirected to, when the redirect was followed.
    public var redirectURL: String?
    /// Parts of a multipart/x-mixed-replace response after the first.
    public var extraParts = 0
    /// Body bytes the delegate got (or, for a download, the file holds).
    public var bytes: Int64 = 0
    public var error: TransferError?
    public var transaction: TransactionMetrics?
    /// The task that sent it (the data task of a conversion) and the last one to carry it.
    public var taskID: Int

    /// The hops of a transfer (a data task and the download task it may have become).
    public static func of(_ chain: [TaskFlow]) -> [TransferHop] {
        guard let first = chain.first else { return [] }
        let start = first.events.first { if case .stateChanged(.running) = $0.event { true } else { false } }?.time
            ?? first.events.first?.time ?? first.added
        var hops = [TransferHop(url: first.url, method: first.method, requestHeaders: first.requestHeaders, started: start,
                                ended: start, taskID: first.id)]
        var metrics: TaskMetrics?
        var dataBytes: Int64 = 0
        for flow in chain {
            for e in flow.events {
                let i = hops.count - 1
                hops[i].ended = max(hops[i].ended, e.lastTime)
                hops[i].taskID = flow.id
                switch e.event {
                case .willPerformHTTPRedirection(let r, let target):
                    hops[i].response = r
                    hops[i].responded = e.time
                    hops[i].redirectURL = target.absoluteString
                case .redirectAnswer(let followed):
                    guard let followed else {
                        hops[i].redirectURL = nil  // the redirect response is the task's response
                        break
                    }
                    let method = SequenceText.method(after: hops[i].response?.statusCode, from: hops[i].method)
                    hops.append(TransferHop(url: followed.absoluteString, method: method, requestHeaders: hops[i].requestHeaders,
                                            started: e.time, ended: e.time, taskID: flow.id))
                case .didReceiveResponse(let r):
                    if let part = r.part, part > 0 {
                        hops[i].extraParts += 1
                    } else {
                        hops[i].response = r
                        hops[i].responded = hops[i].responded ?? e.time
                    }
                case .didReceiveData:
                    dataBytes += e.bytes
                    hops[i].bytes = max(hops[i].bytes, dataBytes)
                case .didWriteData:
                    if case .didWriteData(_, let total, _) = e.lastEvent { hops[i].bytes = max(hops[i].bytes, total) }
                case .didCompleteWithError(let error):
                    hops[i].error = error
                case .didFinishCollectingMetrics(let m):
                    metrics = m
                default:
                    break
                }
            }
        }
        // One transaction per request sent, in order; matched by position when the counts agree, else by URL.
        if let transactions = metrics?.transactions {
            if transactions.count == hops.count {
                for i in hops.indices { hops[i].transaction = transactions[i] }
            } else {
                var pool = transactions
                for i in hops.indices {
                    if let j = pool.firstIndex(where: { $0.url.absoluteString == hops[i].url }) {
                        hops[i].transaction = pool.remove(at: j)
                    }
                }
            }
        }
        return hops
    }
}
