import Foundation

/// Times the phases of a run (ingest's load, index builds, derived facts, report sections) for
/// benchmarking. Nothing is timed until a caller asks with `start()`; `take()` hands the phases
/// back, and the caller decides where they go (the CLI prints them for `$PUSHLOG_TIMINGS`).
/// Phases on any thread (a report's second lane) are kept, in the order they ended.
public enum PhaseTimer {
    /// One timed phase.
    public struct Phase: Sendable, Equatable {
        public let name: String
        public let seconds: Double
        /// More about it (how long ingest's two threads waited for each other), or "".
        public let note: String
    }

    /// The phases so far; nil while nobody asked for them.
    private final class Collected: @unchecked Sendable {
        let lock = NSLock()
        var phases: [Phase]?
    }
    private static let collected = Collected()

    /// Starts keeping the phases timed from now on.
    public static func start() {
        collected.lock.withLock { collected.phases = collected.phases ?? [] }
    }

    /// Stops keeping phases (and drops those not taken).
    public static func stop() {
        collected.lock.withLock { collected.phases = nil }
    }

    /// The phases timed since `start()`, in the order they ended; timing goes on.
    public static func take() -> [Phase] {
        collected.lock.withLock {
            defer { if collected.phases != nil { collected.phases = [] } }
            return collected.phases ?? []
        }
    }

    /// Whether phases are being kept (checked before measuring anything).
    static var enabled: Bool { collected.lock.withLock { collected.phases != nil } }

    static func add(_ name: String, seconds: Double, note: String = "") {
        collected.lock.withLock { collected.phases?.append(Phase(name: name, seconds: seconds, note: note)) }
    }

    @discardableResult
    static func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = Date()
        let r = try body()
        add(name, seconds: Date().timeIntervalSince(start))
        return r
    }
}

extension PhaseTimer.Phase {
    /// `timing: NAME  1.234s (note)`, the line `$PUSHLOG_TIMINGS` prints.
    public var line: String {
        String(format: "timing: %-22@ %.3fs", name, seconds) + (note.isEmpty ? "" : " " + note)
    }
}
