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
        case 55, 56: return .networkConnectionLost              // SEND_ERROR, RECV_ERROR
        case 61: return .cannotDecodeContent                    // BAD_CONTENT_ENCODING
        case 100: return .badServerResponse                     // TOO_LARGE (newer libcurl)
        default: return .unknown
        }
    }
}
