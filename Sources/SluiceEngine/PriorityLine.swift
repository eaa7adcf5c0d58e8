// A line of waiting things that leave highest priority first, and in arrival order within one priority: the
// order of ConnectionWaitList (a host's connections) and TaskPlaces (the session's running tasks).

struct PriorityLine<Element> {
    /// From `head` on, in leaving order; the ones before `head` have left.
    private var entries: [(element: Element, priority: Float)] = []
    private var head = 0

    var isEmpty: Bool { head == entries.count }

    /// Behind every entry of the same or a higher priority: a binary search, as thousands may wait, and an append
    /// when all share one priority.
    mutating func append(_ element: Element, priority: Float) {
        var low = head
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].priority >= priority { low = mid + 1 } else { high = mid }
        }
        entries.insert((element, priority), at: low)
    }

    /// The first in line, taken out of it; nil when none waits.
    mutating func popFirst() -> Element? {
        guard head < entries.count else { return nil }
        let first = entries[head].element
        head += 1
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= entries.count {
            entries.removeFirst(head)  // the ones that left, once they are half the array
            head = 0
        }
        return first
    }

    /// The first waiting element that matches, taken out of the line; nil when none does.
    mutating func remove(where matches: (Element) -> Bool) -> Element? {
        guard let index = entries[head...].firstIndex(where: { matches($0.element) }) else { return nil }
        return entries.remove(at: index).element
    }

    func contains(where matches: (Element) -> Bool) -> Bool { entries[head...].contains { matches($0.element) } }
}
