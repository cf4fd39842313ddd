import Foundation

/// The end-of-ingest summary as a table (stderr) or one JSON object.
public enum IngestReport {
    static func kindsObject(_ r: KindCounts) -> String {
        "{" + EventKind.allCases.filter { r[$0] > 0 }.map { "\"\($0.name)\":\(r[$0])" }.joined(separator: ",") + "}"
    }

    public static func json(_ s: IngestSummary) -> String {
        let files = s.files.map { f -> String in
            var o = "{\"path\":\(JSONRenderer.quote(f.path)),\"format\":\(JSONRenderer.quote(f.format))"
            o += ",\"records\":\(kindsObject(f.records)),\"duplicates\":\(f.duplicates),\"rejects\":\(f.rejects)"
            o += ",\"skipped\":\(f.skipped),\"ignored\":\(f.ignored),\"lines\":\(f.lines),\"bytes\":\(f.bytes)"
            o += ",\"complete\":\(f.complete),\"unchanged\":\(f.unchanged)"
            if f.metrics > 0 { o += ",\"metrics\":\(f.metrics)" }
            if f.resumedAfterLine > 0 { o += ",\"resumed_after_line\":\(f.resumedAfterLine)" }
            if let e = f.error { o += ",\"error\":\(JSONRenderer.quote(e))" }
            if let r = f.refused { o += ",\"refused\":\(JSONRenderer.quote(r))" }
            if !f.warnings.isEmpty { o += ",\"warnings\":[" + f.warnings.map(JSONRenderer.quote).joined(separator: ",") + "]" }
            if !f.ignoredLines.isEmpty {
                o += ",\"ignored_lines\":["
                o += f.ignoredLines.map { "{\"line\":\($0.line),\"text\":\(JSONRenderer.quote($0.text))}" }.joined(separator: ",") + "]"
            }
            return o + "}"
        }
        var t = "{\"records\":\(kindsObject(s.records)),\"duplicates\":\(s.duplicates),\"rejects\":\(s.rejects)"
        t += ",\"skipped\":\(s.skipped),\"ignored\":\(s.ignored),\"refused_files\":\(s.refused),\"lines\":\(s.lines),\"bytes\":\(s.bytes)"
        t +=
            ",\"seconds\":\(String(format: "%.3f", s.seconds)),\"finalize_seconds\":\(String(format: "%.3f", s.finalizeSeconds)),\"records_per_second\":\(Int(s.recordsPerSecond))}"
        var out = "{\"files\":[" + files.joined(separator: ",") + "],\"totals\":" + t
        if !s.problems.isEmpty { out += ",\"problems\":[" + s.problems.map(JSONRenderer.quote).joined(separator: ",") + "]" }
        return out + "}\n"
    }

    /// The summary for a terminal. Quiet on success, as cron wants it: only the files that
    /// changed (new, grown, incomplete or refused) get a row, unless `verbose`; one total line.
    /// `database`: the --db the hint names, so it runs as printed.
    public static func table(_ s: IngestSummary, verbose: Bool = false, database: String? = nil) -> String {
        var t = ResultTable(
            name: "ingest", columns: ["file", "format", "records", "by_kind", "duplicates", "rejects", "skipped", "status"])
        func kinds(_ r: KindCounts) -> String {
            EventKind.allCases.filter { r[$0] > 0 }.map { "\($0.name)=\(r[$0])" }.joined(separator: " ")
        }
        let unchanged = s.files.filter { $0.unchanged && $0.complete }.count
        for f in s.files where verbose || !(f.unchanged && f.complete) {
            let status =
                f.refused != nil
                ? (f.unchanged ? "refused, unchanged" : "refused")
                : f.unchanged ? "unchanged" : (f.complete ? (f.resumedAfterLine > 0 ? "grown" : "new") : "INCOMPLETE")
            t.rows.append([
                .text(f.path), .text(f.format), .int(Int64(f.totalRecords)), .text(kinds(f.records)),
                .int(Int64(f.duplicates)), .int(Int64(f.rejects)), .int(Int64(f.skipped)), .text(status),
            ])
        }
        var out = t.rows.isEmpty ? "" : TableRenderer.renderTable(t)
        let mb = Double(s.bytes) / 1_048_576
        out += String(
            format:
                "total: %d new records (%@), %d duplicates, %d rejects, %d skipped (other platforms); %d files read, %d unchanged; %.1f MB in %.2fs, %@ records/s",
            s.totalRecords, kinds(s.records).isEmpty ? "none" : kinds(s.records), s.duplicates, s.rejects,
            s.skipped, s.files.count - unchanged, unchanged, mb, s.seconds, CellFormat.grouped(Int64(s.recordsPerSecond)))
        if s.refused > 0 { out += String(format: "; %d files refused (not logs)", s.refused) }
        out += passedOver(s, verbose: verbose)
        if s.rejects > 0 { out += "\nsee the rejected lines with: pushlog \(database.map { "--db \(ShellQuote.word($0)) " } ?? "")rejects" }
        return out
    }

    /// The lines each file's format passed over: how many, and the first (all kept, verbose).
    static func passedOver(_ s: IngestSummary, verbose: Bool) -> String {
        var out = ""
        for f in s.files where f.ignored > 0 && !f.ignoredLines.isEmpty {
            let lines = f.ignoredLines.prefix(verbose ? IgnoredLines.kept : 1)
            out += "\n\(f.path): \(f.ignored) line\(f.ignored == 1 ? "" : "s") passed over (not \(f.format) records)"
            out += lines.count == 1 ? ", the first:" : ", the first \(lines.count):"
            for l in lines { out += "\n  line \(l.line): \(l.text)" }
        }
        return out
    }
}

/// A word as a POSIX shell reads it back: as is when it is plain, else in single quotes.
enum ShellQuote {
    static func word(_ s: String) -> String {
        let plain = !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || "-_./:=@%+,".contains($0) }
        return plain ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
