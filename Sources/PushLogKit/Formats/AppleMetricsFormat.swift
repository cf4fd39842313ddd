/// Apple Push Notifications Console delivery-metrics CSV (`Push Type, Status, Date (UTC),
/// Count`): daily aggregates, stored in their own table for reconciliation.
final class AppleMetricsFormat: LineFormat {
    let name = "apple-metrics"
    var columns: [String: Int]?
    init() {}

    func parse(_ line: ByteSlice, number: Int, lineTime: Int64?, into sink: RecordSink) {
        sink.report(read(line))
    }

    func read(_ line: ByteSlice) -> ParseOutcome {
        guard let cells = CSVFormat.fields(line) else { return .reject(.unbalancedQuotes) }
        guard let columns else {
            var c: [String: Int] = [:]
            for (i, h) in cells.enumerated() { c[h.trimmingCharacters(in: .whitespaces).lowercased()] = i }
            guard c["push type"] != nil, c["status"] != nil, c["count"] != nil, c.keys.contains(where: { $0.hasPrefix("date") }) else {
                return .reject(.notAppleMetricsHeader)
            }
            self.columns = c
            return .ignore
        }
        let dateCol = columns.first { $0.key.hasPrefix("date") }!.value
        guard cells.count > max(columns["push type"]!, columns["status"]!, columns["count"]!, dateCol) else {
            return .reject(.fieldCount(cells.count))
        }
        let rawDate = cells[dateCol].trimmingCharacters(in: .whitespaces)
        guard let t = TimeParser.parse(String(rawDate.prefix(10))) else { return .reject(.badDate(rawDate)) }
        guard let n = Int64(cells[columns["count"]!].trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")) else {
            return .reject(.badCount(cells[columns["count"]!]))
        }
        return .metric(
            DailyCount(
                day: TimeFormat.day(ms: t), pushType: cells[columns["push type"]!].trimmingCharacters(in: .whitespaces).lowercased(),
                status: cells[columns["status"]!].trimmingCharacters(in: .whitespaces), count: n))
    }
}

import Foundation
