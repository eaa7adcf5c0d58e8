// The Swift peer for the benchmarks: the same jobs done with FoundationNetworking's URLSession, as a Swift
// program on Linux would do them today. Built by the benchmark scripts with `swiftc -O`; not part of the package.
//   urlsession-peer get URL            body to stdout (a data task, chunks written as they arrive)
//   urlsession-peer file URL OUT       a download task, the file moved to OUT
//   urlsession-peer many N LIST DIR    every URL in LIST (one per line), N at once, each body to DIR/<last path part>
//                                     (DIR "-": every body to stdout as it completes)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class StreamToStdout: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var failed = false
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(1, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { failed = true; return }
                offset += n
            }
        }
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if error != nil { failed = true }
        done.signal()
    }
}

let args = CommandLine.arguments
guard args.count >= 3 else {
    FileHandle.standardError.write("usage: urlsession-peer get URL | file URL OUT | many N LIST DIR\n".data(using: .utf8)!)
    exit(2)
}
switch args[1] {
case "get":
    let delegate = StreamToStdout()
    let session = URLSession(configuration: .default, delegate: delegate, delegateQueue: nil)
    session.dataTask(with: URL(string: args[2])!).resume()
    delegate.done.wait()
    exit(delegate.failed ? 1 : 0)
case "file":
    let done = DispatchSemaphore(value: 0)
    var ok = false
    URLSession.shared.downloadTask(with: URL(string: args[2])!) { location, _, error in
        if let location, error == nil {
            try? FileManager.default.removeItem(atPath: args[3])
            ok = (try? FileManager.default.moveItem(at: location, to: URL(fileURLWithPath: args[3]))) != nil
        }
        done.signal()
    }.resume()
    done.wait()
    exit(ok ? 0 : 1)
case "many":
    let limit = Int(args[2]) ?? 50
    let urls = try! String(contentsOfFile: args[3], encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    let directory = args[4]
    let configuration = URLSessionConfiguration.default
    configuration.httpMaximumConnectionsPerHost = limit
    let session = URLSession(configuration: configuration)
    let slots = DispatchSemaphore(value: limit)
    let group = DispatchGroup()
    let failures = NSLock()
    var failed = 0
    for text in urls {
        slots.wait()
        group.enter()
        let url = URL(string: text)!
        session.dataTask(with: url) { data, _, error in
            if let data, error == nil {
                if directory == "-" {
                    failures.lock(); FileHandle.standardOutput.write(data); failures.unlock()
                } else {
                    FileManager.default.createFile(atPath: directory + "/" + url.lastPathComponent, contents: data)
                }
            } else {
                failures.lock(); failed += 1; failures.unlock()
            }
            slots.signal()
            group.leave()
        }.resume()
    }
    group.wait()
    exit(failed == 0 ? 0 : 1)
default:
    exit(2)
}
