// Maps libcurl result codes to TransferError codes; pure, so every code is covered by a test and none can trap.

enum CurlErrorMapping {
    /// `raw` is a CURLcode value; `message` is libcurl's error-buffer text (used to tell cases that share a code).
    static func code(forCurlCode raw: Int, message: String) -> TransferError.Code {
        switch raw {
        case 1:  // UNSUPPORTED_PROTOCOL; also what 7.88 reports for a reply that is not HTTP at all
            return message.contains("HTTP/0.9") ? .badServerResponse : .unsupportedURL
        case 3: return .badURL                                  // URL_MALFORMAT
        case 5, 6: return .cannotFindHost                       // COULDNT_RESOLVE_PROXY, _HOST
        case 7: return .cannotConnectToHost                     // COULDNT_CONNECT
        case 97:  // PROXY: a SOCKS handshake failed ("User was rejected by the SOCKS5 server", "host unreachable")
            return message.lowercased().contains("rejected") ? .proxyAuthenticationRequired : .cannotConnectToHost
        case 8: return .badServerResponse                       // WEIRD_SERVER_REPLY
        case 16, 92: return .networkConnectionLost              // HTTP2, HTTP2_STREAM
        case 18: return .networkConnectionLost                  // PARTIAL_FILE: body shorter than announced
        case 23: return .cannotWriteToFile                      // WRITE_ERROR
        case 26: return .cannotReadFile                         // READ_ERROR
        case 27:  // OUT_OF_MEMORY; 7.88 also uses it for absurdly large headers
            return message.lowercased().contains("header") ? .badServerResponse : .unknown
        case 28: return .timedOut                               // OPERATION_TIMEDOUT
        case 35, 58, 59, 64, 66, 77, 80, 83, 90, 91, 98:         // TLS handshake and setup failures
            return .secureConnectionFailed
        case 60: return .serverCertificateUntrusted             // PEER_FAILED_VERIFICATION
        case 37: return .fileDoesNotExist                       // FILE_COULDNT_READ_FILE
        case 42: return .cancelled                              // ABORTED_BY_CALLBACK
        case 47: return .tooManyRedirects
        case 52: return .networkConnectionLost                  // GOT_NOTHING
        case 55: return .networkConnectionLost                  // SEND_ERROR
        case 56:  // RECV_ERROR; also a proxy's refusal of CONNECT: "CONNECT tunnel failed, response 407"
            guard message.contains("CONNECT tunnel failed") else { return .networkConnectionLost }
            // No server has been reached yet, so a 401 is the proxy's too (tinyproxy 1.11 answers a wrong
            // password with 401).
            return message.hasSuffix(" 407") || message.hasSuffix(" 401") ? .proxyAuthenticationRequired : .cannotConnectToHost
        case 61: return .cannotDecodeContent                    // BAD_CONTENT_ENCODING
        case 100: return .badServerResponse                     // TOO_LARGE (newer libcurl)
        default: return .unknown
        }
    }

    /// The reason in a refused certificate's message: OpenSSL's verify error as libcurl words it ("SSL
    /// certificate problem: certificate has expired") or libcurl's own host check; GnuTLS's wording too.
    static func certificateProblem(_ message: String) -> CertificateProblem {
        let text = message.lowercased()
        func has(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        if has("subject name matches target host", "does not match target host", "hostname mismatch",
               "does not match the expected name") {
            return .hostMismatch
        }
        if has("not yet valid", "not yet activated") { return .notYetValid }
        if has("expired") { return .expired }
        if has("revoked") { return .revoked }
        if has("in certificate chain", "local issuer", "unable to get issuer", "verify the first certificate",
               "issuer is unknown", "signer not found") {
            return .untrustedIssuer
        }
        if has("self-signed", "self signed") { return .selfSigned }
        return .other
    }
}
