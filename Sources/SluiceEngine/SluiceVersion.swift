// Which sluice this is, and on which libcurl: what `sluice --version` prints and a bug report quotes.
import CCurl

public enum SluiceVersion {
    /// Raised by hand at a release.
    public static let number = "0.9.0"

    /// What a session sends as its User-Agent unless told otherwise (`SessionConfiguration.userAgent`), in the
    /// form curl's and wget's take: "sluice/0.9.0".
    public static let userAgent = "sluice/" + number

    /// "sluice 0.9.0 libcurl/7.88.1 OpenSSL/3.0.22 zlib/1.2.13 ... nghttp2/1.52.0", as curl's first line names
    /// libcurl and the libraries it was built with.
    public static var line: String {
        guard let libcurl = curl_version() else { return "sluice \(number)" }
        return "sluice \(number) \(String(cString: libcurl))"
    }
}
