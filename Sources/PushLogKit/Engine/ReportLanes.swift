import Foundation

/// Runs independent report runs two at a time, on a connection and on its companion,
/// which sees the same committed state (`Database.readSnapshot(lanes: true)`), one per core. Each
/// lane takes the next job in order, so a list that ends with small jobs ends evenly. Without a
/// companion the jobs run here, one after another. The results come back in the jobs' order
/// whichever lane ran them, and a failure is the one the earliest failing job gave, as one lane
/// would have reported it.
enum ReportLanes {
    /// One run's tables; `@Sendable`, so what a job captures is checked: only values, never a
    /// connection of either lane (each lane passes its own).
    typealias Job = @Sendable (Database) throws -> [ResultTable]

    static func run(_ jobs: [Job], on db: Database, companion: Database?) throws -> [[ResultTable]] {
        guard jobs.count > 1, let other = companion else { return try jobs.map { try $0(db) } }
        let queue = Queue(jobs, companion: other)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            queue.work(queue.companion)
            done.signal()
        }
        thread.stackSize = 8 << 20  // SQLite's parser and planner recurse; the main thread has 8 MiB
        thread.start()
        queue.work(db)
        done.wait()
        return try queue.results()
    }

    /// The jobs, the next one to take and what each gave. Unchecked Sendable because every
    /// mutable field is read and written under `lock` only, and each connection (not shareable)
    /// is used by one thread: `companion` by the second lane's, the caller's by its own.
    private final class Queue: @unchecked Sendable {
        let jobs: [Job]
        let companion: Database
        private var next = 0
        private var docs: [[ResultTable]?]
        private var failures: [Int: Error] = [:]
        private let lock = NSLock()

        init(_ jobs: [Job], companion: Database) {
            self.jobs = jobs
            self.companion = companion
            docs = Array(repeating: nil, count: jobs.count)
        }

        /// Takes jobs until none is left or one failed (later ones are not started; the earlier
        /// ones were all taken already, so the earliest failure is among those that ran).
        func work(_ db: Database) {
            while let i = take() {
                do {
                    let d = try jobs[i](db)
                    lock.withLock { docs[i] = d }
                } catch {
                    lock.withLock { failures[i] = error }
                }
            }
        }

        private func take() -> Int? {
            lock.withLock {
                guard failures.isEmpty, next < jobs.count else { return nil }
                next += 1
                return next - 1
            }
        }

        func results() throws -> [[ResultTable]] {
            try lock.withLock {
                if let first = failures.keys.min() { throw failures[first]! }
                return docs.map { $0! }
            }
        }
    }
}
