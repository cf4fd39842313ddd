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
            let shared = Shared(body, count: count)
            let done = DispatchGroup()
            for _ in 0..<min(count, max(width, 1)) {
                done.enter()
                Thread {
                    while let (body, i) = shared.next() { body(i) }
                    done.leave()
                }.start()
            }
            done.wait()
            // A thread may still hold `shared` for a moment after its last call: the body must not
            // outlive this block, so `shared` lets go of it here.
            shared.drop()
        }
    }

    private final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var body: ((Int) -> Void)?
        private let count: Int
        private var taken = 0

        init(_ body: @escaping (Int) -> Void, count: Int) {
            self.body = body
            self.count = count
        }

        /// The body and the next index to call it with; nil when all are taken.
        func next() -> ((Int) -> Void, Int)? {
            lock.withLock {
                guard taken < count, let body else { return nil }
                defer { taken += 1 }
                return (body, taken)
            }
        }

        func drop() { lock.withLock { body = nil } }
    }
}
