// `sluice get` and `sluice put` are parsed by their own parser when it succeeds, and by the whole tree otherwise,
// so help and errors read as before.
import ArgumentParser
import Testing
@testable import SluiceCLI

@Suite struct DirectParseTests {
    @Test func getAndPutTakeTheShortWay() throws {
        let get = try #require(DirectParse.command(["get", "-u", "a:b", "--digest", "http://h/"]) as? GetCommand)
        #expect(get.urls == ["http://h/"])
        #expect(DirectParse.command(["put", "file", "http://h/"]) is PutCommand)
    }

    @Test func everythingElseGoesTheLongWay() {
        for arguments in [[], ["http://h/"], ["open", "http://h/"], ["get", "--help"], ["get", "-X"], ["get", "--bogus"],
                          ["serve"], ["--help"], ["help", "get"]] {
            #expect(DirectParse.command(arguments) == nil, "\(arguments)")
        }
    }

    @Test func theShortWayParsesAsTheTreeDoes() throws {
        let arguments = ["get", "-j", "3", "-H", "X: y", "--timeout", "5", "http://h/a", "http://h/b"]
        let short = try #require(DirectParse.command(arguments) as? GetCommand)
        let tree = try #require(try SluiceCommand.parseAsRoot(arguments) as? GetCommand)
        #expect(short.urls == tree.urls && short.jobs == tree.jobs && short.timeout == tree.timeout)
        #expect(short.requestOptions.headers == tree.requestOptions.headers)
    }
}
