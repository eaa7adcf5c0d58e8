// The soak's scenarios: what each task does to its transfer, drawn from a seeded generator, and what its outcome
// must then be.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum Scenario: String, CaseIterable {
    case data                   // a data task, Content-Length body, allowed
    case chunked                // the same body in chunked encoding
    case download               // a download task
    case dropData               // Content-Length N, the connection closed after M bytes
    case dropDownloadResumed    // a download dropped after M bytes, resumed from its resume data
    case shortBody              // /short: a lying Content-Length
    case cancelAtStart          // cancel() right after resume()
    case cancelAtResponse       // the disposition answers .cancel
    case cancelMidBody          // cancel() at the first chunk of a slow body
    case cancelDownloadResumed  // cancel(byProducingResumeData:) at the first bytes written, then resumed
    case cancelDownloadPlain    // cancel() of a download: nothing kept
    case suspendResume          // suspend() at the first chunk, resume() a few ms later from another thread
    case suspendBeforeResponse  // suspend() right after resume(), resume() a few ms later
    case convert                // convertToDownload() at the first chunk; the kept bytes prepended to the file
    case becomeDownload         // the disposition answers .becomeDownload
    case notFound               // a 404: a success for the engine
    case redirect               // two redirects, then 16 bytes
    case multipart              // multipart/x-mixed-replace: three responses
    case refused                // nothing listens
    case timeout                // headers, then silence past the request's 1 s timeout

    /// How often each comes, per thousand tasks.
    static let weights: [(Scenario, Int)] = [
        (.data, 245), (.chunked, 50), (.download, 130), (.dropData, 60), (.dropDownloadResumed, 60),
        (.shortBody, 20), (.cancelAtStart, 30), (.cancelAtResponse, 30), (.cancelMidBody, 50),
        (.cancelDownloadResumed, 50), (.cancelDownloadPlain, 20), (.suspendResume, 80),
        (.suspendBeforeResponse, 20), (.convert, 60), (.becomeDownload, 50), (.notFound, 10), (.redirect, 10),
        (.multipart, 15), (.refused, 5), (.timeout, 5),
    ]

    var isDownload: Bool {
        switch self {
        case .download, .dropDownloadResumed, .cancelDownloadResumed, .cancelDownloadPlain: true
        default: false
        }
    }
}

/// One task of the soak: its scenario, the body size it asks for, and where the server cuts it (drops, stalls).
struct Plan: Sendable {
    let index: Int
    let scenario: Scenario
    let size: Int64
    let cut: Int64
    let path: String
    /// Milliseconds a suspended task stays suspended.
    let pause: Int

    /// `only`: every task of one scenario, to reproduce what a mixed run found.
    static func make(count: Int, seed: UInt64, only: Scenario? = nil) -> [Plan] {
        var random = SplitMix(seed: seed)
        let weights = only.map { [($0, 1)] } ?? Scenario.weights
        let total = weights.reduce(0) { $0 + $1.1 }
        return (0..<count).map { index in
            var pick = Int(random.next() % UInt64(total))
            var scenario = Scenario.data
            for (candidate, weight) in weights {
                if pick < weight { scenario = candidate; break }
                pick -= weight
            }
            return Plan(index: index, scenario: scenario, random: &random)
        }
    }

    private init(index: Int, scenario: Scenario, random: inout SplitMix) {
        self.index = index
        self.scenario = scenario
        pause = 2 + Int(random.next() % 20)
        var size = Self.mixedSize(&random)
        var cut: Int64 = 0
        switch scenario {
        case .data, .download, .suspendBeforeResponse, .cancelAtResponse, .becomeDownload:
            path = "/bytes/\(size)"
        case .chunked:
            path = "/bytes/\(size)?chunked=1"
        case .dropData, .dropDownloadResumed:
            size = max(size, 2)
            // One drop in eight comes before the first body byte: nothing to resume then.
            cut = random.next() % 8 == 0 ? 0 : 1 + Int64(random.next() % UInt64(size - 1))
            path = "/bytes/\(size)?drop=\(cut)"
        case .shortBody:
            size = max(size, 2)
            cut = Int64(random.next() % UInt64(size))
            path = "/short?bytes=\(size)&after=\(cut)"
        case .cancelAtStart, .cancelMidBody, .cancelDownloadPlain:
            size = 200_000
            path = "/drip?bytes=\(size)&chunk=4000&interval=5"
        case .cancelDownloadResumed:
            size = 64_000 + Int64(random.next() % 3_000_000)
            cut = 1 + Int64(random.next() % UInt64(size - 1))
            path = "/bytes/\(size)?stall=\(cut)"
        case .suspendResume:
            size = 256_000 + Int64(random.next() % 3_000_000)
            path = "/bytes/\(size)"
        case .convert:
            size = 64_000 + Int64(random.next() % 1_000_000)
            path = "/drip?bytes=\(size)&chunk=16384&interval=2"
        case .notFound:
            path = "/status/404"
        case .redirect:
            size = 16
            path = "/redirect/2"
        case .multipart:
            size = 3000
            path = "/multipart?parts=3&size=1000&interval=1"
        case .refused, .timeout:
            path = scenario == .timeout ? "/stall" : ""
        }
        self.size = size
        self.cut = cut
    }

    /// 0 B to 4 MiB: most small, some large, as a mixed workload is.
    private static func mixedSize(_ random: inout SplitMix) -> Int64 {
        let r = random.next()
        switch r % 10 {
        case 0..<4: return Int64((r >> 8) % 16_384)
        case 4..<7: return 16_384 + Int64((r >> 8) % 245_760)
        case 7..<9: return 262_144 + Int64((r >> 8) % 786_432)
        default: return 1_048_576 + Int64((r >> 8) % 3_145_728)
        }
    }
}

/// A small seeded generator, so that a failing run can be repeated exactly (--seed).
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
