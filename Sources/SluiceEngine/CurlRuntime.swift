// One-time process setup libcurl needs before any thread uses it.
import CCurl
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

enum CurlRuntime {
    /// curl_global_init is not thread-safe; a static let runs it exactly once, before the first loop starts.
    static let ready: Bool = {
        signal(SIGPIPE, SIG_IGN)  // a peer closing a socket must not kill the process
        signal(SIGXFSZ, SIG_IGN)  // past a file-size limit, write() fails with EFBIG: a clear error, not a kill
        return curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    static func message(for code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
