// The delegate's answer to a response: go on, stop, or carry on as a download.

public enum ResponseDisposition: String, Sendable, Codable {
    case allow
    case cancel
    case becomeDownload
}
