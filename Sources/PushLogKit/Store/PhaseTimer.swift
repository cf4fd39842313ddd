import Foundation

/// Prints how long each phase of the writer took to stderr when $PUSHLOG_TIMINGS is set (benchmarking).
enum PhaseTimer {
    static let enabled = ProcessInfo.processInfo.environment["PUSHLOG_TIMINGS"] != nil

    @discardableResult
    static func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = Date()
        let r = try body()
        FileHandle.standardError.write(String(format: "timing: %-22@ %.3fs\n", name, Date().timeIntervalSince(start)).data(using: .utf8)!)
        return r
    }
}
