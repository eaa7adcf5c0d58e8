// Running the same `sluice -d` command again: what an earlier run saved here, file still in place, is not fetched
// again; anything else (cancelled, failed, moved away, elsewhere, a partial file beside it) is.
import Foundation
@testable import SluiceCLI
import SluiceStore
import Testing

@Suite struct SavedEarlierTests {
    func record(_ url: String, _ target: String, _ state: StoredTask.State, outcome: String? = nil,
                kind: StoredTask.Kind = .download) -> StoredTask {
        StoredTask(url: url, kind: kind, state: state, destination: target, createdAt: 0, outcome: outcome)
    }

    @Test func aSavedFileStillInPlaceIsNotFetchedAgain() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        for name in ["a", "b", "c", "d", "e", "g", "e.sluice-part"] {
            #expect(FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8)))
        }
        let saved = SavedEarlier([
            record("http://h/a", dir.path + "/a", .completed, outcome: "saved"),
            record("http://h/b", dir.path + "/b", .running),                        // finished after the store last heard
            record("http://h/c", dir.path + "/c", .cancelled, outcome: "cancelled"),
            record("http://h/d", dir.path + "/d", .failed, outcome: "HTTP 404"),
            record("http://h/e", dir.path + "/e", .running),                        // its partial file is still there
            record("http://h/f", dir.path + "/f", .completed, outcome: "saved"),    // moved away since
            record("http://h/g", dir.path + "/g", .completed, outcome: "finished", kind: .data),
            record("http://h/x", "/elsewhere/x", .completed, outcome: "saved"),
        ], in: dir.path)
        #expect(saved.path(for: "http://h/a") == dir.path + "/a")
        #expect(saved.path(for: "http://h/b") == dir.path + "/b")
        for url in ["http://h/c", "http://h/d", "http://h/e", "http://h/f", "http://h/g", "http://h/x", "http://h/zzz"] {
            #expect(saved.path(for: url) == nil, "\(url)")
        }
    }

    /// `sluice -d URL` in one directory left alone what an earlier run left unfinished in another; the same
    /// directory's unfinished downloads are resumed as before (the same command run again), and so is everything
    /// when no URL is given (`OpenCommand.unfinished` is only asked then).
    @Test func aCommandGivenURLsLeavesUnfinishedDownloadsOfOtherDirectoriesAlone() {
        var records = [record("http://h/a", "/here/a", .running), record("http://h/b", "/there/b", .suspended),
                       record("http://h/c", "/there/c", .completed, outcome: "saved"), record("http://h/d", "/there/sub/d", .queued)]
        for i in records.indices { records[i].id = Int64(i + 1) }
        #expect(OpenCommand.unfinished(records, outside: "/here") == [2, 4])
        #expect(OpenCommand.unfinished(records, outside: "/there") == [1, 4])
        #expect(OpenCommand.notice(repeats: 0, alreadySaved: 0, otherDirectories: 2)
                == "2 unfinished downloads of an earlier run in other directories left as they are: sluice alone resumes them")
    }

    /// A `--fresh` run killed partway left a newer, unfinished download of a URL an older run had saved: the
    /// restore continues it, so the URL is not counted as saved.
    @Test func aURLWhoseNewerDownloadIsUnderWayIsNotSkipped() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        for name in ["a", "a.1.sluice-part"] {
            #expect(FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8)))
        }
        let saved = SavedEarlier([
            record("http://h/a", dir.path + "/a", .completed, outcome: "saved"),
            record("http://h/a", dir.path + "/a.1", .running),
        ], in: dir.path)
        #expect(saved.path(for: "http://h/a") == nil)
    }

    /// Killed after the file was linked into place and before its partial name was removed: the two names are one
    /// file, and the download is complete.
    @Test func aPartialNameThatIsTheFileItselfCountsAsInPlace() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        #expect(FileManager.default.createFile(atPath: dir.path + "/a", contents: Data("x".utf8)))
        #expect(link(dir.path + "/a", dir.path + "/a.sluice-part") == 0)
        #expect(FileManager.default.createFile(atPath: dir.path + "/b", contents: Data("x".utf8)))
        #expect(FileManager.default.createFile(atPath: dir.path + "/b.sluice-part", contents: Data("x".utf8)))
        let saved = SavedEarlier([record("http://h/a", dir.path + "/a", .running), record("http://h/b", dir.path + "/b", .running)],
                                 in: dir.path)
        #expect(saved.path(for: "http://h/a") == dir.path + "/a")
        #expect(saved.path(for: "http://h/b") == nil, "another file under the partial name is a download under way")
    }

    /// Only the URLs of this command are looked up: a long history of downloads into the same directory costs no
    /// `stat` per past download.
    @Test func onlyTheGivenURLsAreLookedAt() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        for name in ["a", "b"] {
            #expect(FileManager.default.createFile(atPath: dir.path + "/" + name, contents: Data("x".utf8)))
        }
        let records = [record("http://h/a", dir.path + "/a", .completed, outcome: "saved"),
                       record("http://h/b", dir.path + "/b", .completed, outcome: "saved")]
        let saved = SavedEarlier(records, in: dir.path, given: ["http://h/b", "http://h/c"])
        #expect(saved.path(for: "http://h/a") == nil)
        #expect(saved.path(for: "http://h/b") == dir.path + "/b")
        #expect(SavedEarlier(records, in: dir.path, given: ["http://h/c"]).isEmpty)
    }

    @Test func aDirectoryIsNotAFile() throws {
        let dir = try Scratch()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.path + "/a", withIntermediateDirectories: false)
        let saved = SavedEarlier([record("http://h/a", dir.path + "/a", .completed, outcome: "saved")], in: dir.path)
        #expect(saved.isEmpty)
    }

    @Test func theNoticeNamesRepeatsAndFilesAlreadySaved() {
        #expect(OpenCommand.notice(repeats: 0, alreadySaved: 0) == nil)
        #expect(OpenCommand.notice(repeats: 1, alreadySaved: 0) == "1 URL was given again; each URL is downloaded once")
        #expect(OpenCommand.notice(repeats: 0, alreadySaved: 3)
                == "3 URLs were saved by an earlier run and are there; not fetched again (--fresh fetches anew)")
        #expect(OpenCommand.notice(repeats: 2, alreadySaved: 1)
                == "2 URLs were given again; each URL is downloaded once; 1 URL was saved by an earlier run and is there; not fetched again (--fresh fetches anew)")
    }
}
