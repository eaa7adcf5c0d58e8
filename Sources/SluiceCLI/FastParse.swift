// What GetFastParse and OpenFastParse share: the walk over the plain shapes of a line, and values that may be
// given once.

enum FastParse {
    /// Walks `arguments`: a word not starting with `-` is a URL, a known flag is set, a known option takes the
    /// next word (which must not start with `-`). False as soon as a word is none of these or its setter refuses
    /// it: the line is then left to ArgumentParser.
    static func walk<Flag: RawRepresentable<String>, Option: RawRepresentable<String>>(
        _ arguments: ArraySlice<String>, url: (String) -> Void, flag setFlag: (Flag) -> Bool,
        option setOption: (Option, String) -> Bool
    ) -> Bool {
        var rest = arguments
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-") else {
                url(argument)
                continue
            }
            if let flag = Flag(rawValue: argument) {
                guard setFlag(flag) else { return false }
                continue
            }
            guard let option = Option(rawValue: argument), let value = rest.popFirst(), !value.hasPrefix("-"),
                  setOption(option, value) else { return false }
        }
        return true
    }

    /// Sets a single-valued option; false when it was given already or the value did not convert.
    static func once<T>(_ field: inout T?, _ value: T?) -> Bool {
        guard field == nil, let value else { return false }
        field = value
        return true
    }

    /// Sets a flag; false when it was given already (ArgumentParser decides what that means).
    static func once(_ field: inout Bool) -> Bool {
        guard !field else { return false }
        field = true
        return true
    }
}
