import Foundation

/// Runs independent report runs two at a time, on a runner's connection and on its companion's,
/// which sees the same committed state (ReportRunner.companion), one per core. Each
/// lane takes the next job in order, so a list that ends with small jobs ends evenly. Without a
/// companion (a pushlog writer is running) the jobs run here, one after another. The results
/// come back in the jobs' order whichever lane ran them.
enum ReportLanes {
    typealias Job = (ReportRunner) throws -> ResultDocument

    static func run(_ jobs: [Job], on runner: ReportRunner, companion: ReportRunner?) throws -> [ResultDocument] {
        guard jobs.count > 1, let other = companion else { return try jobs.map { try $0(runner) } }
        let queue = Queue(jobs, companion: other)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            queue.work(queue.companion)
            done.signal()
        }
        thread.stackSize = 8 << 20  // SQLite's parser and planner recurse; the main thread has 8 MiB
        thread.start()
        queue.work(runner)
        done.wait()
        return try queue.results()
    }

    /// The jobs, the next one to take and what each gave; shared by the two lanes under a lock.
    private final class Queue: @unchecked Sendable {
        let jobs: [Job]
        let companion: ReportRunner
        var next = 0
        var docs: [ResultDocument?]
        var failure: Error?
        let lock = NSLock()

        init(_ jobs: [Job], companion: ReportRunner) {
            self.jobs = jobs
            self.companion = companion
            docs = Array(repeating: nil, count: jobs.count)
        }

        /// Takes jobs until none is left or one failed (the rest are not started).
        func work(_ runner: ReportRunner) {
            while let i = take() {
                do {
                    let d = try jobs[i](runner)
                    lock.withLock { docs[i] = d }
                } catch {
                    lock.withLock { failure = failure ?? error }
                }
            }
        }

        func take() -> Int? {
            lock.withLock {
                guard failure == nil, next < jobs.count else { return nil }
                next += 1
                return next - 1
            }
        }

        func results() throws -> [ResultDocument] {
            if let failure { throw failure }
            return docs.map { $0! }
        }
    }
}

extension ReportRunner {
    /// A runner on a companion connection (Database.companionReader), or nil; the caller ends
    /// its read transaction (`db.endCompanion()`).
    func companion() throws -> ReportRunner? {
        guard let other = try db.companionReader() else { return nil }
        return try ReportRunner(db: other, catalog: catalog)
    }
}
