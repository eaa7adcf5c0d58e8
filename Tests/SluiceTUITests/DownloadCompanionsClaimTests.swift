// Claiming a download's name in a real directory: the first free name of several downloads of one name, a start
// past the names already claimed, a user's file never taken, another process's download left to it, and nothing
// created before the download starts.
import Foundation
import SluiceEngine
@testable import SluiceTUI
import Testing

struct DownloadCompanionsClaimTests {
    private func directory() throws -> String {
        let path = NSTemporaryDirectory() + "sluice-claim-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Claims as an app does: the names it claimed before are held by its downloads (not started yet, so with no
    /// file on disk).
    private func claim(_ directory: String, from first: Int = 0, held: inout Set<String>) throws -> (String, Int) {
        let taken = held
        let claimed = try DownloadCompanions.claim(in: directory, suggested: "file", url: "http://h/file", from: first,
                                                   isHeld: { taken.contains($0) }).get()
        #expect(claimed.isFree == (claimed.resumeData == nil))
        held.insert(claimed.companions.target)
        return (claimed.companions.name, claimed.attempt)
    }

    @Test func downloadsOfOneNameTakeTheNextFreeNamesAndSayWhichAttempt() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/file.1", contents: Data("the user's".utf8)))
        var held: Set<String> = []
        #expect(try claim(dir, held: &held) == ("file", 0))
        #expect(try claim(dir, held: &held) == ("file.2", 2), "file.1 is a user's file: passed over")
        #expect(try String(contentsOfFile: dir + "/file.1", encoding: .utf8) == "the user's")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["file.1"], "a claim creates nothing")
    }

    @Test func aPartialFileAnotherDownloadMadeIsPassedOverAndOneWithACheckpointIsContinued() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/file.1.sluice-part", contents: Data("someone's".utf8)))
        let free = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", from: 1, isHeld: { _ in false }).get()
        #expect(free.companions.name == "file.2" && free.isFree, "a partial file with no checkpoint of this URL is taken")
        let resume = ResumeData(url: "http://h/file", path: dir + "/file.1.sluice-part", bytesOnDisk: 9, etag: nil,
                                lastModified: nil, expectedLength: 20)
        #expect(DownloadCompanions(target: dir + "/file.1").saveResume(resume.encoded()))
        let continued = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", from: 1, isHeld: { _ in false }).get()
        #expect(continued.companions.name == "file.1" && !continued.isFree && continued.resumeData != nil)
    }

    /// Another process is downloading this URL into file.sluice-part (its lock held): neither a claim nor a rerun's
    /// look for left-overs continues it, though its checkpoint is this URL's.
    @Test func aPartialFileAnotherProcessIsWritingIsPassedOverEvenWithThisURLsCheckpoint() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let partial = dir + "/file.sluice-part"
        #expect(FileManager.default.createFile(atPath: partial, contents: Data("being written".utf8)))
        let resume = ResumeData(url: "http://h/file", path: partial, bytesOnDisk: 13, etag: nil, lastModified: nil,
                                expectedLength: 20)
        #expect(DownloadCompanions(target: dir + "/file").saveResume(resume.encoded()))
        let writer = open(partial, O_WRONLY)
        #expect(writer >= 0 && PartialFileLock.take(writer, patience: 0))
        let claimed = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", isHeld: { _ in false }).get()
        #expect(claimed.companions.name == "file.1" && claimed.isFree && claimed.resumeData == nil)
        #expect(DownloadCompanions.leftOver(in: dir, suggested: "file", url: "http://h/file") == nil)
        close(writer)  // the writer gone (its process ended): its download is continued
        let continued = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", isHeld: { _ in false }).get()
        #expect(continued.companions.name == "file" && continued.resumeData != nil)
        #expect(DownloadCompanions.leftOver(in: dir, suggested: "file", url: "http://h/file")?.1 != nil)
    }

    /// A pair moved here from another directory: its checkpoint still names the partial file where it was made,
    /// and the download continues this one (a tester's moved pair started over and left its partial file behind).
    @Test func aMovedPairIsContinuedFromItsOwnPartialFile() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let here = DownloadCompanions(target: dir + "/file")
        #expect(FileManager.default.createFile(atPath: here.partialPath, contents: Data(count: 10)))
        let resume = ResumeData(url: "http://h/file", path: "/elsewhere/file.sluice-part", bytesOnDisk: 10,
                                etag: "\"e\"", lastModified: nil, expectedLength: 100)
        #expect(here.saveResume(resume.encoded()))
        let found = DownloadCompanions.leftOver(in: dir, suggested: "file", url: "http://h/file")
        #expect(found?.0 == here)
        #expect(found?.1.flatMap(ResumeData.decode) == resume.placed(at: here.partialPath, size: 10))
        try FileManager.default.removeItem(atPath: here.partialPath)
        #expect(here.checkpoint() == .absent, "without its partial file a checkpoint continues nothing")
    }

    @Test func aClaimStartsWhereTheCallerSaysAndStillSkipsTakenNames() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var held: Set<String> = []
        #expect(try claim(dir, from: 5, held: &held) == ("file.5", 5), "names below the start are not tried")
        #expect(try claim(dir, from: 5, held: &held) == ("file.6", 6))
    }

    /// Names read once answer for the disk: a name they list neither the file nor the partial file of is free
    /// (even if made since: the download's exclusive create and non-replacing link meet that), and a listed one is
    /// checked on disk as without them (a user's file passed over, this URL's checkpoint continued).
    @Test func namesReadOnceAnswerForTheDiskAndAListedNameIsCheckedThere() throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/file", contents: Data("the user's".utf8)))
        #expect(FileManager.default.createFile(atPath: dir + "/file.1.sluice-part", contents: Data("123456789".utf8)))
        let resume = ResumeData(url: "http://h/file", path: dir + "/file.1.sluice-part", bytesOnDisk: 9, etag: nil,
                                lastModified: nil, expectedLength: 20)
        #expect(DownloadCompanions(target: dir + "/file.1").saveResume(resume.encoded()))
        let names = try #require(DirectoryNames(of: dir))
        #expect(names.contains("file") && names.contains("file.1.sluice-resume") && !names.contains("."))
        let continued = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", listed: names,
                                                     isHeld: { _ in false }).get()
        #expect(continued.companions.name == "file.1" && continued.resumeData != nil, "listed: checked on disk")
        #expect(FileManager.default.createFile(atPath: dir + "/file.2", contents: Data("made since".utf8)))
        let listedFree = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", from: 2,
                                                      listed: names, isHeld: { _ in false }).get()
        #expect(listedFree.companions.name == "file.2" && listedFree.isFree, "not listed: free without asking the disk")
        let asked = try DownloadCompanions.claim(in: dir, suggested: "file", url: "http://h/file", from: 2,
                                                 isHeld: { _ in false }).get()
        #expect(asked.companions.name == "file.3", "the disk, asked, knows file.2")
        #expect(DirectoryNames(of: dir + "/missing") == nil)
    }

    /// A name of 250 bytes is a file name the disk takes; NAME.sluice-part is not ("File name too long"). The
    /// companions of such a name are shortened and end in a hash of it all, so each long name has its own.
    @Test func companionsOfALongNameStayWithinAFileNamesLength() throws {
        let short = DownloadCompanions(target: "/d/file.bin")
        #expect(short.partialPath == "/d/file.bin.sluice-part" && short.resumePath == "/d/file.bin.sluice-resume")
        let long = DownloadCompanions(target: "/d/" + String(repeating: "é", count: 125))  // 250 bytes
        // An odd prefix: the cut falls inside an "é" and steps back to where it starts.
        let other = DownloadCompanions(target: "/d/a" + String(repeating: "é", count: 124) + "e")
        for path in [long.partialPath, long.resumePath + ".new", other.partialPath] {
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            #expect(name.utf8.count <= 255, "\(name.utf8.count)")
        }
        #expect(long.partialPath.hasPrefix("/d/éé") && long.partialPath.hasSuffix(".sluice-part"))
        #expect(String(validating: Array(other.partialPath.utf8), as: UTF8.self) != nil, "cut where a character starts")
        #expect(long.partialPath != other.partialPath, "two long names, two partial files")
        #expect(long.partialName == long.partialPath.split(separator: "/").last.map(String.init))
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let onDisk = DownloadCompanions(target: dir + "/" + String(repeating: "e", count: 250))
        #expect(FileManager.default.createFile(atPath: onDisk.partialPath, contents: Data("x".utf8)))
        #expect(onDisk.saveResume(Data("{}".utf8)))
    }

    @Test func aTargetSplitsAtItsLastSlashWhateverTheNameStartsWith() {
        let cases: [(target: String, directory: String, name: String)] = [
            ("/d/e/file.bin", "/d/e", "file.bin"), ("/file", "/", "file"), ("file", ".", "file"),
            ("/d/été.bin", "/d", "été.bin"),
            // A name that starts with a combining mark: "/" and the mark are one Character, so a search by
            // Character found the slash before "d" and named the file "d/\u{301}x".
            ("/d/\u{301}x", "/d", "\u{301}x"),
        ]
        for (target, directory, name) in cases {
            let companions = DownloadCompanions(target: target)
            #expect(companions.directory == directory, "\(target)")
            #expect(companions.name == name, "\(target)")
            #expect(companions.partialName == name + ".sluice-part", "\(target)")
        }
    }
}

