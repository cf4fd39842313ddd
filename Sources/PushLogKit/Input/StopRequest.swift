import Synchronization

/// A request to stop reading, made by a signal handler and read by the threads that read and
/// write: an atomic, the one thing a handler may safely store to.
public final class StopRequest: Sendable {
    private let signal = Atomic<Int32>(0)

    public init() {}

    /// Asks every reader to stop; `signal` is the signal's number (the exit status says which).
    public func request(signal: Int32) { self.signal.store(signal, ordering: .relaxed) }

    /// The signal that asked, or nil.
    public var signalNumber: Int32? {
        let s = signal.load(ordering: .relaxed)
        return s == 0 ? nil : s
    }

    var requested: Bool { signal.load(ordering: .relaxed) != 0 }
}
