// Spare libcurl easy handles, reset and reused: creating one per request showed up in the profile of 2,000
// small transfers, and a reused handle keeps its buffers and caches.
import CCurl

/// Loop thread only.
final class EasyHandles {
    /// Unchecked: loop thread only, and touched twice a request (a dynamic exclusivity check each otherwise).
    @exclusivity(unchecked) private var spare: [UnsafeMutableRawPointer] = []
    private let keep: Int

    init(keep: Int = 64) { self.keep = keep }

    deinit { spare.forEach { curl_easy_cleanup($0) } }

    func take() -> UnsafeMutableRawPointer? { spare.popLast() ?? curl_easy_init() }

    /// Back to its defaults (every option, including callbacks and private data) and kept for the next request.
    func give(_ easy: UnsafeMutableRawPointer) {
        guard spare.count < keep else { return curl_easy_cleanup(easy) }
        curl_easy_reset(easy)
        spare.append(easy)
    }
}
