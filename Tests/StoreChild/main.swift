// Writes to a store until it is killed, for SluiceStoreTests' crash test: `sluice-store-child DIR INTERVAL`
// inserts one task, then raises its bytesReceived by one every 2 ms, printing after each update
// "VALUE TRANSACTIONS" (the store's committed batches at that moment). It never flushes.
import SluiceStore
#if canImport(Glibc)
import Glibc
#endif

/// One line on a descriptor with write(2): unbuffered, so the parent reads it before a SIGKILL can lose it.
func say(_ text: String, to fd: Int32 = 1) {
    var line = text + "\n"
    line.withUTF8 { bytes in
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress.map { $0 + done }, bytes.count - done)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { exit(1) }
            done += n
        }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let interval = Double(arguments[2]) else {
    say("usage: sluice-store-child DIR INTERVAL", to: 2)
    exit(64)
}
do {
    let store = try TaskStore(directory: arguments[1], batchInterval: interval)
    var task = try store.insert(StoredTask(url: "http://127.0.0.1/crash", kind: .download, state: .running, createdAt: 0))
    let base = store.statistics.transactions
    say("id \(task.id)")
    var value: Int64 = 0
    while true {
        value += 1
        task.bytesReceived = value
        store.update(task)
        say("\(value) \(store.statistics.transactions - base)")
        usleep(2000)
    }
} catch {
    say("sluice-store-child: \(error)", to: 2)
    exit(1)
}
