import Foundation

/// Counts of the open transaction, added to the source row when it commits.
struct BatchCounts {
    /// Records stored, per kind (known once the writer flushed) ...
    var records = KindCounts()
    /// ... and records handed to the writer: the difference are duplicates.
    var written = 0
    var duplicates = 0, rejects = 0, skipped = 0, ignored = 0, lines = 0, blank = 0, metrics = 0
    /// Of the duplicates, those that may have been lines of their own (`Lineage`).
    var ambiguous = 0
    var minT: Int64?, maxT: Int64?
    /// The first lines passed over (line number, text), for the summary.
    var ignoredLines: [(line: Int, text: String)] = []
}
