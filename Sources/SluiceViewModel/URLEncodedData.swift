// curl's --data-urlencode, for the command line and for a pasted command alike: which part of the argument is
// encoded, and how (curl 7.88's: a space as `+`, as a form encodes it, and every other byte but letters, digits
// and `-._~` as %XX).

public enum URLEncodedData {
    /// One argument's part of the body: CONTENT, =CONTENT and NAME=CONTENT encode the content (never the name);
    /// @FILE and NAME@FILE encode a file's content, which `file` reads (or refuses: a paste reads no file). The
    /// first of `=` and `@` decides, as in curl.
    public static func part<Failure: Error>(_ argument: [UInt8], file: ([UInt8]) throws(Failure) -> [UInt8]) throws(Failure) -> [UInt8] {
        guard let mark = argument.firstIndex(where: { $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "@") }) else {
            return percentEncoded(argument)
        }
        let name = Array(argument[..<mark])
        let rest = Array(argument[(mark + 1)...])
        let content = percentEncoded(argument[mark] == UInt8(ascii: "@") ? try file(rest) : rest)
        return name.isEmpty ? content : name + [UInt8(ascii: "=")] + content
    }

    /// A space as `+`; everything else but letters, digits and `-._~` as %XX.
    public static func percentEncoded(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return out
    }
}
