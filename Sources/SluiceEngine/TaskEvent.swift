// The one stream of delegate events that every observer sees: the CLI's --trace, the view-model, tests.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

public enum TaskEvent: Sendable, Equatable, Codable {
    case stateChanged(TaskState)
    case didReceiveResponse(Response)
    case disposition(ResponseDisposition)
    case didReceiveData(bytes: Int)
    case didCompleteWithError(TransferError?)
    /// On the data task: the transfer now belongs to the download task with this identifier.
    case didBecomeDownloadTask(Int)
    case didWriteData(bytes: Int64, total: Int64, expected: Int64)
    case didFinishDownloadingTo(URL)
    case didResumeAtOffset(offset: Int64, expected: Int64)
    case didSendBodyData(bytes: Int64, total: Int64, expected: Int64)
    /// A redirect response and the URL the engine proposes to follow.
    case willPerformHTTPRedirection(Response, to: URL)
    /// The delegate's answer: the URL it follows, or nil when the redirect response is taken as the response.
    case redirectAnswer(URL?)
    case didFinishCollectingMetrics(TaskMetrics)
    /// A 401 or 407 asks for a credential for this space; `previousFailureCount` were refused before.
    case didReceiveChallenge(ProtectionSpace, previousFailureCount: Int)
    /// The delegate's disposition, by name (the credential itself is never in an event).
    case challengeAnswer(String)
    /// A streamed upload must be sent again and the delegate is asked for a new stream.
    case needNewBodyStream
    /// A 1xx response before the final one.
    case didReceiveInformationalResponse(Response)
    /// A split download stopped using this mirror (`DownloadTask.mirrors`), for this reason; its ranges went back
    /// to the other URLs. Not a delegate call: the delegate still sees one download.
    case mirrorDropped(URL, reason: String)

    /// The delegate method's short name, as `--trace` prints it.
    public var name: String {
        switch self {
        case .stateChanged: "stateChanged"
        case .didReceiveResponse: "didReceiveResponse"
        case .disposition: "disposition"
        case .didReceiveData: "didReceiveData"
        case .didCompleteWithError: "didCompleteWithError"
        case .didBecomeDownloadTask: "didBecomeDownloadTask"
        case .didWriteData: "didWriteData"
        case .didFinishDownloadingTo: "didFinishDownloadingTo"
        case .didResumeAtOffset: "didResumeAtOffset"
        case .didSendBodyData: "didSendBodyData"
        case .willPerformHTTPRedirection: "willPerformHTTPRedirection"
        case .redirectAnswer: "redirectAnswer"
        case .didFinishCollectingMetrics: "didFinishCollectingMetrics"
        case .didReceiveChallenge: "didReceiveChallenge"
        case .challengeAnswer: "challengeAnswer"
        case .didReceiveInformationalResponse: "didReceiveInformationalResponse"
        case .needNewBodyStream: "needNewBodyStream"
        case .mirrorDropped: "mirrorDropped"
        }
    }
}

public struct TaskEventRecord: Sendable, Codable {
    public let taskIdentifier: Int
    /// Monotonic time of the event, in nanoseconds (DispatchTime's uptime clock).
    public let uptimeNanoseconds: UInt64
    public let event: TaskEvent

    public init(taskIdentifier: Int, uptimeNanoseconds: UInt64, event: TaskEvent) {
        self.taskIdentifier = taskIdentifier
        self.uptimeNanoseconds = uptimeNanoseconds
        self.event = event
    }
}

/// Called on the session's delegate queue, in delegate order, just before the matching delegate method.
public typealias TaskEventMonitor = @Sendable (TaskEventRecord) -> Void

func uptimeNow() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
