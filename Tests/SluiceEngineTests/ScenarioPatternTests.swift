// The pattern's bytes copied from one period are the bytes `byte(at:)` defines, across the period's seam too.
import SluiceScenarioServer
import Testing

@Suite struct ScenarioPatternTests {
    static let ranges: [(offset: Int64, count: Int)] = [
        (0, 0), (0, 1), (0, 100), (65_500, 100), (65_521, 65_521), (3 * 65_521 - 7, 200_000), (1 << 40, 1000),
    ]

    @Test(arguments: ranges)
    func aRangeIsItsBytesOneByOne(offset: Int64, count: Int) {
        let bytes = ScenarioPattern.bytes(offset: offset, count: count)
        #expect(bytes.count == count)
        let wrong = bytes.indices.filter { bytes[$0] != ScenarioPattern.byte(at: offset + Int64($0)) }
        #expect(wrong.isEmpty, "\(wrong.count) bytes differ, the first at \(wrong.first ?? -1)")
    }
}
