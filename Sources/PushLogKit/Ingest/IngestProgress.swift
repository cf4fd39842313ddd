import Foundation

/// Running totals for the progress display.
public struct IngestProgress {
    public var filesDone: Int, filesTotal: Int
    public var records: Int
    public var bytesIn: Int64, bytesTotal: Int64
    public var seconds: Double
    /// Set after the files are read, while indexes and derived facts are built.
    public var phase: String?
}
