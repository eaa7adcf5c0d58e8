// The bytes a data task keeps for a conversion: in order, bounded, handed over without a copy.
import Foundation
@testable import SluiceTUI
import Testing

@Suite struct KeptBytesTests {
    @Test func keepsBytesInOrderUpToTheCapacity() {
        let kept = KeptBytes(capacity: 5 << 20)
        let a = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0) })
        let b = Data(repeating: 7, count: 2_000_000)
        #expect(kept.append(a))
        #expect(kept.append(b))
        #expect(kept.count == 5_000_000)
        #expect(!kept.append(Data(repeating: 1, count: 300_000)), "past the capacity nothing more is kept")
        let taken = kept.take()
        #expect(taken == a + b)
        #expect(kept.count == 0)
        #expect(kept.take().isEmpty)
    }

    @Test func aSmallBodyStaysInOrdinaryMemoryAndMovesWholeWhenItGrows() {
        let kept = KeptBytes(capacity: 4 << 20)
        let first = Data((0..<(KeptBytes.smallLimit - 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let second = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        #expect(kept.append(first))
        #expect(kept.append(second), "past the small limit the bytes move to the mapping")
        #expect(kept.append(Data([1, 2, 3])))
        #expect(kept.take() == first + second + Data([1, 2, 3]))
        let small = KeptBytes(capacity: 32 << 20)
        #expect(small.append(Data(repeating: 9, count: 16384)))
        #expect(small.take() == Data(repeating: 9, count: 16384))
    }

    @Test func zeroCapacityKeepsNothing() {
        let kept = KeptBytes(capacity: 0)
        #expect(!kept.append(Data([1])))
        #expect(kept.append(Data()))
        #expect(kept.take().isEmpty)
    }
}
