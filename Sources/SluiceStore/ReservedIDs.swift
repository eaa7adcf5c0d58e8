// The ids this store reserved whose rows it has not written yet: an update of one of them makes the row.

/// Kept as sorted ranges, not one entry per id, because a reservation can be large. A reservation normally
/// lies past every earlier one (the store's sequence only grows), so adding one is an append.
struct ReservedIDs {
    private var ranges: [Range<Int64>] = []

    mutating func add(_ ids: Range<Int64>) {
        guard !ids.isEmpty else { return }
        if let last = ranges.last, last.upperBound == ids.lowerBound {
            ranges[ranges.count - 1] = last.lowerBound..<ids.upperBound
        } else if ranges.last.map({ $0.upperBound <= ids.lowerBound }) ?? true {
            ranges.append(ids)
        } else {
            let index = ranges.firstIndex { $0.lowerBound > ids.lowerBound } ?? ranges.count
            ranges.insert(ids, at: index)
        }
    }

    func contains(_ id: Int64) -> Bool {
        index(of: id) != nil
    }

    /// The id's row was written (or removed): from now on it is an ordinary row.
    mutating func remove(_ id: Int64) {
        guard let index = index(of: id) else { return }
        let range = ranges[index]
        let pieces = [range.lowerBound..<id, (id + 1)..<range.upperBound].filter { !$0.isEmpty }
        ranges.replaceSubrange(index...index, with: pieces)
    }

    /// The range holding `id`, by binary search.
    private func index(of id: Int64) -> Int? {
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound <= id {
                low = middle + 1
            } else if ranges[middle].lowerBound > id {
                high = middle
            } else {
                return middle
            }
        }
        return nil
    }
}
