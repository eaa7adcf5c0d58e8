// When a download's bytes may go on from a new URL: same size and the same strong validator, or --force when the
// first response had none; each refusal says what differs.
import SluiceViewModel
import Testing

struct RefreshCheckTests {
    private let old = RefreshCheck.Old(size: 1000, etag: "\"v1\"", lastModified: "Tue, 03 Nov 2026 10:00:00 GMT")

    @Test func theSameFileGoesOn() {
        #expect(RefreshCheck.decide(old: old, new: .init(status: 206, size: 1000, etag: "\"v1\"", lastModified: nil), force: false) == .reuse)
        let byDate = RefreshCheck.Old(size: 1000, etag: nil, lastModified: "Tue, 03 Nov 2026 10:00:00 GMT")
        #expect(RefreshCheck.decide(old: byDate, new: .init(status: 200, size: 1000, etag: nil, lastModified: byDate.lastModified), force: false) == .reuse)
    }

    @Test func anythingElseIsRefusedSayingWhat() {
        func why(_ new: RefreshCheck.New, _ old: RefreshCheck.Old? = nil, force: Bool = false) -> String {
            if case .refuse(let text) = RefreshCheck.decide(old: old ?? self.old, new: new, force: force) { return text }
            return "accepted"
        }
        #expect(why(.init(status: 403, size: nil, etag: nil, lastModified: nil)) == "the new URL answers 403, not the file")
        #expect(why(.init(status: 206, size: 1004, etag: "\"v1\"", lastModified: nil)) == "the new URL's file is 1004 bytes, the partial one's 1000")
        #expect(why(.init(status: 206, size: 1000, etag: "\"v2\"", lastModified: nil)) == "the new URL's ETag is \"v2\", the partial file's \"v1\"")
        #expect(why(.init(status: 206, size: 1000, etag: nil, lastModified: nil)).contains("ETag is missing"))
        #expect(why(.init(status: 206, size: nil, etag: "\"v1\"", lastModified: nil)) == "the new URL does not say the file's size")
        let weak = RefreshCheck.Old(size: 1000, etag: "W/\"v1\"", lastModified: nil)
        #expect(why(.init(status: 206, size: 1000, etag: "W/\"v1\"", lastModified: nil), weak) != "accepted", "a weak ETag is not enough")
        let bare = RefreshCheck.Old(size: 1000, etag: nil, lastModified: nil)
        #expect(why(.init(status: 206, size: 1000, etag: "\"x\"", lastModified: nil), bare).contains("--force"))
        #expect(why(.init(status: 206, size: 1000, etag: "\"x\"", lastModified: nil), bare, force: true) == "accepted")
        #expect(why(.init(status: 206, size: 999, etag: nil, lastModified: nil), bare, force: true) != "accepted", "--force never splices another size")
    }
}
