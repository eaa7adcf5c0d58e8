// Resuming a download with the caller's own request: resume data records the URL only, so a download that needed
// headers (a cookie, a token, a Referer) would otherwise continue without them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Session {
    /// Continues the download in `resumeData` with `request` (its headers; the Range and If-Range the engine adds
    /// replace any of the caller's). Throws when the data is not resume data or names another URL.
    public func downloadTask(with request: Request, resumeData: Data) throws(TransferError) -> DownloadTask {
        guard let resume = ResumeData.decode(resumeData) else {
            throw TransferError(.cannotReadFile, "the resume data is damaged or not Sluice resume data")
        }
        guard resume.url == request.url.absoluteString else {
            throw TransferError(.cannotReadFile, "the resume data belongs to \(resume.url), not \(request.url.absoluteString)")
        }
        return register { DownloadTask(identifier: $0, request: request, session: self, resumeFrom: resume) }
    }
}
