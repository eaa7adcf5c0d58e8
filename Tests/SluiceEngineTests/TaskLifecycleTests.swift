// The task state machine, one transition at a time, without sockets.
import Testing
@testable import SluiceEngine

@Suite struct TaskLifecycleTests {
    @Test func createdTasksAreSuspendedAndUnstarted() {
        let life = TaskLifecycle()
        #expect(life.state == .suspended)
        #expect(!life.started)
    }

    @Test func firstResumeStarts() {
        var life = TaskLifecycle()
        #expect(step { life.resume() } == .start)
        #expect(life.state == .running)
        #expect(life.started)
    }

    @Test func resumeWhileRunningDoesNothing() {
        var life = TaskLifecycle()
        _ = life.resume()
        #expect(step { life.resume() } == .none)
        #expect(life.state == .running)
    }

    @Test func suspendPausesARunningTask() {
        var life = TaskLifecycle()
        _ = life.resume()
        #expect(step { life.suspend() } == .pause)
        #expect(life.state == .suspended)
    }

    @Test func resumeAfterSuspendUnpausesInsteadOfRestarting() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.suspend()
        #expect(step { life.resume() } == .unpause)
        #expect(life.state == .running)
    }

    @Test func suspendOfAnUnstartedTaskDoesNothing() {
        var life = TaskLifecycle()
        #expect(step { life.suspend() } == .none)
        #expect(life.state == .suspended)
    }

    @Test func cancelFromRunningOrSuspended() {
        var running = TaskLifecycle()
        _ = running.resume()
        #expect(step { running.cancel() } == .cancel)
        #expect(running.state == .canceling)

        var suspended = TaskLifecycle()
        #expect(step { suspended.cancel() } == .cancel)
        #expect(suspended.state == .canceling)
    }

    @Test func cancelTwiceCancelsOnce() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.cancel()
        #expect(step { life.cancel() } == .none)
    }

    @Test func cancelingIgnoresResumeAndSuspend() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.cancel()
        #expect(step { life.resume() } == .none)
        #expect(step { life.suspend() } == .none)
        #expect(life.state == .canceling)
    }

    @Test func completeHappensOnce() {
        var life = TaskLifecycle()
        _ = life.resume()
        #expect(step { life.complete() })
        #expect(life.state == .completed)
        #expect(!step { life.complete() })
    }

    @Test func anEndWhileSuspendedWaitsForTheResume() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.suspend()
        #expect(step { life.end() } == .waitForResume)
        #expect(life.state == .suspended)
        #expect(step { life.end() } == .alreadyEnded)  // kept once
        #expect(step { life.resume() } == .deliverKeptEnd)
        #expect(step { life.arriveAtDelegate() })
        #expect(life.state == .completed)
    }

    @Test func aCancelDeliversTheKeptEnd() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.suspend()
        _ = life.end()
        #expect(step { life.cancel() } == .deliverKeptEnd)
    }

    @Test func anEndWhileRunningIsDeliveredAndTheTaskCompletesOnArrival() {
        var life = TaskLifecycle()
        _ = life.resume()
        #expect(step { life.end() } == .report)
        #expect(life.state == .running)  // until its last calls are made
        #expect(step { life.end() } == .alreadyEnded)
        #expect(step { life.cancel() } == .none)  // the completion is on its way
        #expect(step { life.arriveAtDelegate() })
        #expect(life.state == .completed)
    }

    /// Suspended by the delegate while the end was on its way: the last calls wait for the resume.
    @Test func aSuspensionOnTheWayHoldsTheLastCalls() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.end()
        #expect(step { life.suspend() } == .pause)
        #expect(!step { life.arriveAtDelegate() })
        #expect(life.state == .suspended)
        #expect(step { life.resume() } == .releaseHeldEnd)
        #expect(step { life.arriveAtDelegate() })
        #expect(life.state == .completed)
    }

    @Test func completedIgnoresEverything() {
        var life = TaskLifecycle()
        _ = life.resume()
        _ = life.complete()
        #expect(step { life.resume() } == .none)
        #expect(step { life.suspend() } == .none)
        #expect(step { life.cancel() } == .none)
        #expect(life.state == .completed)
    }
}

@Suite struct ContinuingLifecycleTests {
    @Test func aTaskContinuingATransferIsAlreadyStarted() {
        var running = TaskLifecycle(continuing: .running)
        #expect(running.state == .running)
        #expect(running.started)
        #expect(step { running.suspend() } == .pause)
        #expect(step { running.resume() } == .unpause)  // never .start: the transfer exists
        var suspended = TaskLifecycle(continuing: .suspended)
        #expect(suspended.state == .suspended)
        #expect(step { suspended.resume() } == .unpause)
    }
}

/// Runs a mutating call outside #expect's argument capture, which cannot mutate.
func step<T>(_ body: () -> T) -> T { body()
}
