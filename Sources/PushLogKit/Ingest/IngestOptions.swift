import Foundation

/// Options of one ingest run.
public struct IngestOptions {
    /// Force this input format instead of detecting it per file.
    public var inputFormat: InputFormat?
    /// Lines per transaction: a crash loses at most one uncommitted batch, which the next run re-reads.
    public var batchLines = 200_000
    /// Rebuild every derived fact instead of only those the new records touch.
    var fullRefresh = false
    /// Line-format definitions (built-in and the user's) that detection tries after the built-in formats.
    public var formats = (try? FormatLibrary.load()) ?? FormatLibrary()
    /// Load the records only: no secondary indexes, no derived facts (a database that is only
    /// dumped: `RecordRowsTests` holds the direct rows to the stored ones this way).
    var recordsOnly = false
    /// Set (by a signal handler) to end the run: reading stops at the next line or within a
    /// tenth of a second of waiting on a stream, and what is complete is kept (`Ingester.run`).
    public var stop: StopRequest?
    /// Called a few times a second with the running totals (progress display).
    public var progress: ((IngestProgress) -> Void)?
    public init() {}
}
