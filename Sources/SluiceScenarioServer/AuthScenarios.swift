// The authentication scenarios, httpbin-style: Basic, Digest (qop=auth) and Bearer, each a 401 with its
// challenge until the request carries the right answer.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOHTTP1

enum AuthScenarios {
    static let realm = "sluice"
    static let nonce = "7ba1c2d3e4f5a6b7c8d9e0f1a2b3c4d5"

    /// `/basic-auth/USER/PASS`, `/digest-auth/USER/PASS`, `/bearer/TOKEN`: the status, headers and body to send;
    /// with `to=URL`, a granted request is redirected there.
    static func answer(kind: String, parts: [String], query: [String: String], head: HTTPRequestHead)
        -> (HTTPResponseStatus, HTTPHeaders, String) {
        let authorization = head.headers.first(name: "Authorization") ?? ""
        let user = parts.count > 1 ? parts[1] : "user"
        let secret = parts.count > 2 ? parts[2] : "pass"
        let granted: Bool
        let challenge: String
        switch kind {
        case "basic-auth":
            granted = authorization == "Basic " + Data("\(user):\(secret)".utf8).base64EncodedString()
            challenge = "Basic realm=\"\(realm)\""
        case "digest-auth":
            granted = digestMatches(authorization, user: user, password: secret, method: head.method.rawValue)
            challenge = "Digest realm=\"\(realm)\", qop=\"auth\", nonce=\"\(nonce)\", opaque=\"0a1b2c\", algorithm=MD5"
        default:  // bearer: the path's second part is the token
            granted = authorization == "Bearer \(user)"
            challenge = "Bearer realm=\"\(realm)\""
        }
        if granted, let to = query["to"] {  // then a redirect: where the credential must not follow
            return (.found, HTTPHeaders([("Location", to), ("Content-Length", "0")]), "")
        }
        if granted {
            return (.ok, HTTPHeaders([("Content-Type", "text/plain")]), "authenticated \(user)\n")
        }
        return (.unauthorized, HTTPHeaders([("WWW-Authenticate", challenge), ("Content-Type", "text/plain")]),
                "credentials needed\n")
    }

    /// Checks an `Authorization: Digest ...` answer (RFC 7616, MD5, qop=auth).
    static func digestMatches(_ header: String, user: String, password: String, method: String) -> Bool {
        guard header.hasPrefix("Digest ") else { return false }
        let p = parameters(String(header.dropFirst(7)))
        guard p["username"] == user, p["realm"] == realm, p["nonce"] == nonce, let uri = p["uri"],
              let response = p["response"] else { return false }
        let ha1 = MD5.hex("\(user):\(realm):\(password)")
        let ha2 = MD5.hex("\(method):\(uri)")
        let expected: String
        if let qop = p["qop"], let nc = p["nc"], let cnonce = p["cnonce"] {
            expected = MD5.hex("\(ha1):\(nonce):\(nc):\(cnonce):\(qop):\(ha2)")
        } else {
            expected = MD5.hex("\(ha1):\(nonce):\(ha2)")
        }
        return response == expected
    }

    /// `name=value, name="quoted value"` pairs.
    static func parameters(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var rest = Substring(text)
        while !rest.isEmpty {
            rest = rest.drop { $0 == " " || $0 == "," }
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = String(rest[..<equals].filter { $0 != " " }).lowercased()
            rest = rest[rest.index(after: equals)...]
            var value = ""
            if rest.first == "\"" {
                rest = rest.dropFirst()
                let end = rest.firstIndex(of: "\"") ?? rest.endIndex
                value = String(rest[..<end])
                rest = end < rest.endIndex ? rest[rest.index(after: end)...] : ""
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = String(rest[..<end].filter { $0 != " " })
                rest = rest[end...]
            }
            result[name] = value
        }
        return result
    }
}
