// How the screen's loop sleeps: until a key can be read, the driver signals events, or the timeout passes. Events
// that keep coming wake it at most once per `notBefore` (each pass drains and looks at every row); keys and the
// driver's urgent signal (the last task has ended) always at once.
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

enum InputWait {
    enum Reason: Equatable {
        /// The input descriptor is readable (or at its end, or in error: a read tells which).
        case input
        /// The wake signal or the urgent one was given; both are cleared.
        case wake
        case timeout
        /// A signal (a resize) arrived: the caller reads keys, which reports it.
        case interrupted
    }

    /// Waits at most `timeout` milliseconds for `input` or `wake`, heeding `wake` no sooner than `notBefore`
    /// milliseconds from now (0: at once). `urgent` is heeded at once, as a key is (the last task has ended).
    static func wait(input: Int32, wake: WakeSignal?, urgent: WakeSignal? = nil, timeout: Int32,
                     notBefore: Int32 = 0) -> Reason {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(max(0, timeout)) * 1_000_000
        let wakeFrom = start + UInt64(max(0, min(notBefore, timeout))) * 1_000_000
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            // Before `wakeFrom`, only a key ends the wait; the wake stays pending for later.
            let heedWake = wake != nil && now >= wakeFrom
            let until = heedWake || wake == nil ? deadline : wakeFrom
            let milliseconds = Int32(clamping: (until > now ? until - now : 0) / 1_000_000 + (until > now ? 1 : 0))
            var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: urgent?.fd ?? -1, events: Int16(POLLIN), revents: 0)]  // a negative fd is skipped
            if heedWake, let wake { fds.append(pollfd(fd: wake.fd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 { return errno == EINTR ? .interrupted : .timeout }
            if fds[0].revents != 0 { return .input }
            if fds[1].revents != 0 {
                urgent?.clear()
                wake?.clear()  // what it announced is drained by the same pass
                return .wake
            }
            if fds.count > 2, fds[2].revents != 0 {
                wake?.clear()
                return .wake
            }
            if !heedWake, wake != nil { continue }  // its turn has come: look at it (until the deadline, if any left)
            return .timeout
        }
    }
}
