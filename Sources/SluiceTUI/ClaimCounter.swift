// One owner's claims of download names (an app's, a `get --output-dir` batch's): per name in a directory, the
// first suffix not yet tried, so that a list of thousands of downloads of one name does not try each taken name
// again (see `DownloadCompanions.claim`).
import SluiceViewModel

public struct ClaimCounter: Sendable {
    private var next: [String: Int] = [:]

    public init() {}

    /// `DownloadCompanions.claim` from the first suffix not tried yet for that name; a claim moves it on.
    public mutating func claim(in directory: String, suggested: String?, url: String, listed: DirectoryNames? = nil,
                               isHeld: (String) -> Bool) -> Result<DownloadCompanions.Claim, PlacementError> {
        let key = directory + "/" + SafeFileName.sanitize(suggested)
        let claimed = DownloadCompanions.claim(in: directory, suggested: suggested, url: url, from: next[key] ?? 0,
                                               listed: listed, isHeld: isHeld)
        if case .success(let found) = claimed { next[key] = max(next[key] ?? 0, found.attempt + 1) }
        return claimed
    }
}
