// glibc's malloc defaults cost the transfer path page faults. The loop thread and the delegate queue each get their
// own arena, and glibc trims a thread's arena (madvise) as soon as 128 KiB lie free at its top; it also mmaps each
// 256 KiB gather buffer until a first free raises its threshold. At 50 transfers at once, buffers and bodies come
// and go faster than that, so the same pages were handed back and faulted in again: perf showed madvise,
// sysmalloc and clear_page, and 2,000 small files cost 2,200-5,000 page faults instead of 1,800.
import CMalloc

enum MallocTuning {
    /// Called once, before any thread starts. Gather buffers come from the heap, and up to 16 MiB free at an
    /// arena's top stays there for the next transfer. The 2 MiB delivery credit, not trimming, bounds memory.
    static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, 1 << 20)
        _ = mallopt(M_TRIM_THRESHOLD, 16 << 20)
    }
}
