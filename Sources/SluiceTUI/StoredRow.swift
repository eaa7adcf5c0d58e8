// A row as the store keeps it, and back: what a restart shows of a task that ended in an earlier run.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import SluiceEngine
import SluiceStore
import SluiceViewModel

/// What the store needs beyond the row: how the task was asked for and where its file goes.
struct RowFacts: Sendable {
    var method: String
    var headers: [HeaderLine]
    var kind: TaskKind
    var companions: DownloadCompanions?
    var createdAt: Double
}

/// What a record's timeline text was written from: while a row's timeline has the same length and the same first
/// and last lines (lines are only appended, folded into the last, or dropped from the front), its text is the same.
struct TimelineMark: Equatable {
    let count: Int
    let first: TimelineEntry?
    let last: TimelineEntry?

    init(_ timeline: [TimelineEntry]) {
        count = timeline.count
        first = timeline.first
        last = timeline.last
    }
}

enum StoredRow {
    /// The store's version of `row`, with `previous` supplying what the row does not hold (times, attempts).
    /// `written`: the mark of the timeline `previous.timeline` was made from, so that an unchanged timeline is not
    /// written out again (the store keeper makes a record each time a row's events are drained).
    static func record(_ row: TaskRow, facts: RowFacts, previous: StoredTask?, wallClock: Double,
                       written: TimelineMark? = nil) -> StoredTask {
        var task = previous ?? StoredTask(id: Int64(row.id), url: row.url, createdAt: facts.createdAt)
        task.id = Int64(row.id)
        task.url = row.url
        task.method = facts.method
        if previous == nil || !task.requestHeaders.elementsEqual(facts.headers, by: { $0.name == $1.name && $0.value == $1.value }) {
            task.requestHeaders = facts.headers.map { StoredHeader(name: $0.name, value: $0.value) }
        }
        task.kind = facts.kind == .download ? .download : .data
        task.destination = row.savedPath ?? facts.companions?.target
        task.partialPath = row.savedPath == nil ? facts.companions?.partialPath : nil
        task.bytesReceived = row.bytes
        task.bytesExpected = row.expected >= 0 ? row.expected : nil
        task.statusCode = row.status
        task.etag = lastValue("etag", in: row.responseHeaders)
        task.lastModified = lastValue("last-modified", in: row.responseHeaders)
        task.priority = row.queuePosition ?? 0
        task.attempts = row.hasStarted ? 1 + row.timeline.reduce(0) { $0 + ($1.name == "retry" ? 1 : 0) } : 0
        if row.hasStarted, task.startedAt == nil { task.startedAt = wallClock }
        task.state = state(of: row)
        if task.state.isFinished {
            if task.endedAt == nil { task.endedAt = wallClock }
            if row.savedPath != nil || task.state == .cancelled { task.resumeData = nil }  // nothing left to continue
            task.outcome = outcome(of: row)
            if case .failed(let failure) = row.outcome {
                task.error = "[\(failure.code.rawValue)] \(failure.message)"
            }
        }
        if previous == nil || written != TimelineMark(row.timeline) {
            // Bytes, made into a string once: a string per line, per time and per part, joined, cost most of a
            // record, and then each append to one string still cost some 360 instructions (callgrind).
            var text: [UInt8] = []
            text.reserveCapacity(row.timeline.count * 48)
            for index in row.timeline.indices {
                if index > row.timeline.startIndex { text.append(UInt8(ascii: "\n")) }
                let entry = row.timeline[index]
                if entry.time >= row.added {
                    text.append(UInt8(ascii: "+"))
                    appendSeconds(nanoseconds: entry.time - row.added, to: &text)
                    text.append(contentsOf: "s ".utf8)
                }
                entry.append(utf8: &text)
            }
            task.timeline = String(decoding: text, as: UTF8.self)
        }
        return task
    }

    /// The value of the last header named `lowercaseName` in any case, compared byte by byte (no lowercased copy
    /// of every header's name each time a row is written).
    static func lastValue(_ lowercaseName: String, in headers: [HeaderLine]) -> String? {
        headers.last { $0.name.caseInsensitiveEquals(lowercaseName) }?.value
    }

    /// Seconds with three decimals ("1.250"), without Foundation's formatter (`String(format:)` is not in
    /// FoundationEssentials).
    static func secondsText(nanoseconds: UInt64) -> String {
        var text: [UInt8] = []
        appendSeconds(nanoseconds: nanoseconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The digits go into a buffer from the right and join the text in one append (a string for the whole part and
    /// an append per digit were a third of a record's timeline text).
    static func appendSeconds(nanoseconds: UInt64, to text: inout [UInt8]) {
        var value = nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 >= 500_000 ? 1 : 0)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var start = digits.count
            func put(_ byte: UInt8) {
                start -= 1
                digits[start] = byte
            }
            for _ in 0..<3 {
                put(UInt8(ascii: "0") + UInt8(value % 10))
                value /= 10
            }
            put(UInt8(ascii: "."))
            repeat {
                put(UInt8(ascii: "0") + UInt8(value % 10))
                value /= 10
            } while value > 0
            text.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    static func state(of row: TaskRow) -> StoredTask.State {
        switch row.state {
        case .running, .canceling: return .running
        // A row waiting for its retry takes its turn when sluice starts again; only the user's suspension stays.
        case .suspended: return row.isHeldByUser ? .suspended : .queued
        case .completed:
            switch row.outcome {
            case .cancelled: return .cancelled
            case .failed: return .failed
            case .finished, nil: return row.httpFailure != nil ? .failed : .completed
            }
        }
    }

    /// A data task's outcome once it became a download: the download's row follows (read back by `row`).
    static let conversionOutcome = "became download #"

    static func outcome(of row: TaskRow) -> String {
        if let next = row.becameTask { return conversionOutcome + String(next) }
        if let status = row.httpFailure { return "HTTP \(status)" }
        switch row.outcome {
        case .failed(let failure): return failure.words.first ?? "failed"
        case .cancelled: return "cancelled"
        case .finished, nil: return row.savedPath != nil ? "saved" : "finished"
        }
    }

    /// A finished task of an earlier run as a row of this one: its state, outcome, sizes and timeline.
    static func row(_ task: StoredTask, now: UInt64) -> TaskRow {
        var row = TaskRow(id: Int(task.id), url: task.url, kind: task.kind == .download ? .download : .data,
                          requestHeaders: task.requestHeaders.map { HeaderLine($0.name, $0.value) }, at: now)
        row.state = .completed
        row.hasStarted = task.startedAt != nil
        row.bytes = task.bytesReceived
        row.expected = task.bytesExpected ?? -1
        row.status = task.statusCode
        if let saved = task.savedFile { row.savedPath = saved }
        switch task.state {
        case .cancelled: row.outcome = .cancelled
        case .failed where task.error != nil:
            row.outcome = .failed(failure(task.error ?? "", bytes: task.bytesReceived, expected: task.bytesExpected))
        default: row.outcome = .finished
        }
        // A data task that became a download reads so again ("converted → download #N"), not "finished".
        if let outcome = task.outcome, outcome.hasPrefix(conversionOutcome) {
            row.becameTask = Int(outcome.dropFirst(conversionOutcome.count))
        }
        // Split on UTF-8 bytes (a stored timeline's lines end in "\n" alone): splitting Characters took two thirds
        // of a restored row (perf), 0.07 s of the UI's start with 16,000 past tasks.
        if let saved = row.savedPath, let file = saved.utf8.split(separator: UInt8(ascii: "/")).last {
            row.name = String(Substring(file))
        }
        // Time 0 is before the row was added: the line keeps the offset it was written with, and no new one.
        row.timeline = task.timeline.utf8.split(separator: UInt8(ascii: "\n")).suffix(Model.timelineLimit).map {
            TimelineEntry(name: String(Substring($0)), time: 0)
        }
        row.note = "from an earlier run" + (task.endedAt.map { ", ended " + LocalTime.text($0) } ?? "")
        return row
    }

    /// `[code] message` back into a failure (an unknown code reads as a lost connection's neighbour: unknown).
    private static func failure(_ text: String, bytes: Int64, expected: Int64?) -> TaskFailure {
        var code = TransferError.Code.unknown
        var message = text
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            code = TransferError.Code(rawValue: String(text[text.index(after: text.startIndex)..<close])) ?? .unknown
            // Spaces and tabs, as CharacterSet.whitespaces (full Foundation) trimmed them; a newline stays.
            let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
            message = String(text[text.index(after: close)...].drop(while: blank).reversed().drop(while: blank).reversed())
        }
        let fraction = expected.flatMap { $0 > 0 ? Double(bytes) / Double($0) : nil }
        return TaskFailure(code: code, message: message, bytes: bytes, fraction: fraction)
    }
}
