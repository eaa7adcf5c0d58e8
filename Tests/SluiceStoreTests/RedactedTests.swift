// Secrets in request headers as listings show them: schemes and cookie names stay, the values never do.
import SluiceStore
import Testing

@Suite struct RedactedTests {
    @Test func secretsKeepOnlyWhatIdentifiesThem() {
        #expect(Redacted.value("Basic YWxpY2U6czNjcmV0", ofHeader: "Authorization") == "Basic [redacted]")
        #expect(Redacted.value("eyJhbGciOi", ofHeader: "proxy-authorization") == "[redacted]")
        #expect(Redacted.value("sid=s%3AQ2x1; _ga=GA1.1; theme=dark", ofHeader: "COOKIE")
                == "sid=[redacted]; _ga=[redacted]; theme=[redacted]")
        #expect(Redacted.value("text/html", ofHeader: "Accept") == "text/html")
        #expect(Redacted.isSecret("cookie") && Redacted.isSecret("Authorization") && !Redacted.isSecret("Referer"))
    }

    @Test func headerLines() {
        #expect(Redacted.headerLine("Cookie: csrftoken=Zx9QkA; lang=en") == "Cookie: csrftoken=[redacted]; lang=[redacted]")
        #expect(Redacted.headerLine("authorization:Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature") == "authorization: Bearer [redacted]")
        #expect(Redacted.headerLine("accept: */*") == "accept: */*")
        #expect(Redacted.headerLine("no colon here") == "no colon here")
    }

    @Test func storedHeadersShowTheSame() {
        #expect(StoredHeader(name: "Cookie", value: "a=1; b=2").displayValue == "a=[redacted]; b=[redacted]")
        #expect(StoredHeader(name: "Authorization", value: "Digest x=y").displayValue == "Digest [redacted]")
    }

    /// A password in a URL is shown as wget shows it; the rest of the URL, and a user name alone, stay.
    @Test func aURLsPasswordIsHidden() {
        #expect(Redacted.url("http://carol:TopSecret9@127.0.0.1:18199/bytes/12") == "http://carol:*password*@127.0.0.1:18199/bytes/12")
        #expect(Redacted.url("https://bob@h/x") == "https://bob@h/x")
        #expect(Redacted.url("http://h/a@b:c") == "http://h/a@b:c", "an @ in the path is no user")
        #expect(Redacted.url("http://u:p:q@h:8080/x?y=@") == "http://u:*password*@h:8080/x?y=@")
        #expect(Redacted.url("data:,a:b@c") == "data:,a:b@c")
    }
}
