// Browsers' "Copy as cURL (bash)" output, as Chrome 124 and Firefox 128 write it (hosts and secrets made up).

enum CurlPasteFixtures {
    /// Chrome, a JSON POST from a page: -b cookies, --data-raw with $'...' (Chrome writes ! as \u0021).
    static let chromePost = #"""
        curl 'https://shop.example.com/api/cart/items?ref=nav' \
          -H 'accept: application/json, text/plain, */*' \
          -H 'accept-language: en-GB,en-US;q=0.9,en;q=0.8' \
          -H 'content-type: application/json' \
          -b 'sid=s%3AQ2x1Yk9.abc123; _ga=GA1.1.1234567890.1700000000; theme=dark' \
          -H 'origin: https://shop.example.com' \
          -H 'priority: u=1, i' \
          -H 'referer: https://shop.example.com/cart' \
          -H 'sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"' \
          -H 'sec-ch-ua-mobile: ?0' \
          -H 'sec-ch-ua-platform: "Linux"' \
          -H 'sec-fetch-dest: empty' \
          -H 'sec-fetch-mode: cors' \
          -H 'sec-fetch-site: same-origin' \
          -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' \
          --data-raw $'{"sku":"A-1","note":"it\'s a gift\u0021\nwrap it","qty":2}'
        """#

    /// Chrome, a file behind a login: a signed URL and session cookies, no body.
    static let chromeDownload = #"""
        curl 'https://cdn.example.net/files/report-2026.pdf?sig=9f8e7d&exp=1799999999' \
          -H 'accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8' \
          -H 'accept-language: en-US,en;q=0.9' \
          -b 'session=eyJhbGciOiJIUzI1NiJ9.e30.sig; cf_clearance=xyz-123' \
          -H 'sec-fetch-dest: document' \
          -H 'sec-fetch-mode: navigate' \
          -H 'upgrade-insecure-requests: 1' \
          -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36'
        """#

    /// Firefox, a form login: --compressed and -X POST before the headers, the Cookie as a header, --data-raw.
    static let firefoxForm = #"""
        curl 'https://forum.example.org/login' \
          --compressed \
          -X POST \
          -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' \
          -H 'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' \
          -H 'Accept-Language: en-US,en;q=0.5' \
          -H 'Accept-Encoding: gzip, deflate, br, zstd' \
          -H 'Content-Type: application/x-www-form-urlencoded' \
          -H 'Origin: https://forum.example.org' \
          -H 'Connection: keep-alive' \
          -H 'Referer: https://forum.example.org/login' \
          -H 'Cookie: csrftoken=Zx9QkA; lang=en' \
          -H 'Upgrade-Insecure-Requests: 1' \
          -H 'Sec-Fetch-Dest: document' \
          -H 'Sec-Fetch-Mode: navigate' \
          -H 'Sec-Fetch-Site: same-origin' \
          -H 'Sec-Fetch-User: ?1' \
          -H 'Priority: u=0, i' \
          --data-raw 'csrfmiddlewaretoken=Zx9QkA&username=alice&password=p%40ss'
        """#

    /// Firefox, a JSON PUT whose body needs $'...': a quote, a line break, and ü written as \xfc (a byte, as bash
    /// makes it), with an Authorization header.
    static let firefoxJSON = #"""
        curl 'https://api.example.org/v2/people/42' \
          -X PUT \
          -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0' \
          -H 'Accept: application/json' \
          -H 'Accept-Language: en-US,en;q=0.5' \
          -H 'Accept-Encoding: gzip, deflate, br, zstd' \
          -H 'Content-Type: application/json' \
          -H 'Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.signature' \
          -H 'Origin: https://app.example.org' \
          -H 'Connection: keep-alive' \
          -H 'Sec-Fetch-Dest: empty' \
          -H 'Sec-Fetch-Mode: cors' \
          -H 'Sec-Fetch-Site: same-site' \
          --data-raw $'{"name":"O\'Brien","city":"Z\xfcrich","note":"line one\nline two"}'
        """#

    static let all = [chromePost, chromeDownload, firefoxForm, firefoxJSON]
}
