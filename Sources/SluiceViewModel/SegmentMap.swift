// A split download's file as one line of cells, as aria2's console shows its pieces: each cell a stretch of the
// file, full where every byte is on disk, half where some are, empty where none are yet.
import SluiceEngine

public enum SegmentMap {
    /// `width` cells over the whole file.
    public static func text(_ segments: [DownloadSegment], width: Int, ascii: Bool = false) -> String {
        guard width > 0, let total = segments.map(\.end).max(), total > 0 else { return "" }
        let (full, some, none): (Character, Character, Character) = ascii ? ("#", "+", ".") : ("█", "▒", "░")
        var cells: [Character] = []
        cells.reserveCapacity(width)
        for cell in 0..<width {
            let from = total * Int64(cell) / Int64(width)
            let to = max(from + 1, total * Int64(cell + 1) / Int64(width))
            var done: Int64 = 0
            for segment in segments where segment.end > from && segment.start < to {
                // The bytes on disk of this segment are start..<next.
                done += max(0, min(to, segment.next) - max(from, segment.start))
            }
            cells.append(done >= to - from ? full : done > 0 ? some : none)
        }
        return String(cells)
    }
}
