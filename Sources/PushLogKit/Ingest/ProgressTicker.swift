import Foundation

/// Calls the progress callback at most four times a second.
struct ProgressTicker {
    var filesDone = 0
    let total: Int
    let bytesTotal: Int64
    let callback: ((IngestProgress) -> Void)?
    let started: Date
    var records = 0
    var bytesBefore: Int64 = 0
    var last = Date.distantPast

    init(total: Int, bytesTotal: Int64, callback: ((IngestProgress) -> Void)?, started: Date) {
        self.total = total
        self.bytesTotal = bytesTotal
        self.callback = callback
        self.started = started
    }

    /// Counts committed lines.
    mutating func add(records n: Int) { records += n }

    /// Counts a finished file.
    mutating func fileDone(bytes: Int64) {
        bytesBefore += bytes
    }

    /// Reports the totals, with the open batch, when a quarter second has passed.
    mutating func tick(records pending: Int, bytesIn: Int64) {
        guard let callback else { return }
        let now = Date()
        guard now.timeIntervalSince(last) > 0.25 else { return }
        last = now
        callback(
            IngestProgress(
                filesDone: filesDone, filesTotal: total, records: records + pending,
                bytesIn: bytesBefore + bytesIn, bytesTotal: bytesTotal,
                seconds: now.timeIntervalSince(started), phase: nil))
    }
}
