import Foundation

/// Work that mostly waits for the server (a report's sections, the statements of a rebuild), run
/// on threads of its own: `DispatchQueue.concurrentPerform` would run no more at once than the
/// client has cores, and a one-core client would send one request at a time.
enum ServerWaits {
    /// How many requests a report keeps in flight: as many as the client has cores, and at least
    /// two, since the work is the server's.
    static var width: Int { max(2, ProcessInfo.processInfo.activeProcessorCount) }

    /// Calls `body(i)` for each i in 0..<count, `width` at once, each thread taking the next i as
    /// it finishes one; returns when all have returned.
    static func run(_ count: Int, width: Int = width, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { body in
            // Safe to share: every thread ends before `run` returns, so `body` outlives them all.
            let shared = Shared(body: body)
            let done = DispatchGroup()
            for _ in 0..<min(count, max(width, 1)) {
                done.enter()
                Thread {
                    while let i = shared.next(below: count) { shared.body(i) }
                    done.leave()
                }.start()
            }
            done.wait()
        }
    }

    private final class Shared: @unchecked Sendable {
        let body: (Int) -> Void
        private let lock = NSLock()
        private var taken = 0

        init(body: @escaping (Int) -> Void) { self.body = body }

        func next(below count: Int) -> Int? {
            lock.withLock {
                guard taken < count else { return nil }
                defer { taken += 1 }
                return taken
            }
        }
    }
}
