// An ordered list of header fields with case-insensitive lookup, as servers send them.

public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)]

    public init(_ fields: [(name: String, value: String)] = []) { self.fields = fields }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    /// All values of a field joined by ", " (RFC 9110 field combination), or nil when absent.
    public subscript(name: String) -> String? {
        // One pass, no array: a response's head is looked up several times per request (3,700 instructions a
        // lookup with filter, map and joined).
        // By index and length first: iterating the pairs copied (retained and released) every field's value.
        var combined: String?
        let length = name.utf8.count
        for i in fields.indices where fields[i].name.utf8.count == length && fields[i].name.caseInsensitiveEquals(name) {
            let value = fields[i].value
            combined = combined.map { $0 + ", " + value } ?? value
        }
        return combined
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func add(_ name: String, _ value: String) { fields.append((name: name, value: value)) }

    mutating func reserveCapacity(_ count: Int) { fields.reserveCapacity(count) }

    public mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveEquals(name) } }

    public var isEmpty: Bool { fields.isEmpty }
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// Exact: `map` and `Array(_:)` make their array once at its size instead of growing it by doubling (a
    /// response's headers were copied into a row's three times over, 3,700 instructions a response).
    public var underestimatedCount: Int { fields.count }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}

extension String {
    /// ASCII case-insensitive equality without allocating (header names and URL schemes are ASCII tokens).
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // On the contiguous bytes where the strings have them (native strings do): zip over two UTF8Views
        // cost 120 instructions a byte.
        let contiguous = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                for i in 0..<a.count where !Self.sameIgnoringASCIICase(a[i], b[i]) { return false }
                return true
            }
        }
        if let contiguous, let equal = contiguous { return equal }
        return zip(utf8, other.utf8).allSatisfy(Self.sameIgnoringASCIICase)
    }

    private static func sameIgnoringASCIICase(_ a: UInt8, _ b: UInt8) -> Bool {
        a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 97 && (a | 0x20) <= 122)
    }
}

/// As a list of `[name, value]` pairs, in order (tuples have no Codable of their own).
extension HTTPHeaders: Codable {
    public init(from decoder: any Decoder) throws {
        let pairs = try decoder.singleValueContainer().decode([[String]].self)
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(pairs.count)
        for pair in pairs {
            guard pair.count == 2 else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a header is [name, value]"))
            }
            fields.append((name: pair[0], value: pair[1]))
        }
        self.init(fields)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields.map { [$0.name, $0.value] })
    }
}
