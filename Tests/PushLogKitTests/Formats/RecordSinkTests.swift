import XCTest
@testable import PushLogKit

/// The contract between a format and its sink: what a format reports for each line, with which
/// record span, what it reports at the end of the input, and the prefix time it is given.
final class RecordSinkTests: XCTestCase {
    /// Keeps every call, with the span's first line and bytes.
    final class RecordingSink: RecordSink {
        let builder = EventBuilder()
        var calls: [String] = []

        func spanText(_ span: RecordSpan?) -> String {
            span.map { "@\($0.firstLine):" + String(decoding: $0.bytes, as: UTF8.self) } ?? ""
        }
        func record(_ span: RecordSpan?) { calls.append("record" + spanText(span)) }
        func reject(_ reason: RejectReason, _ span: RecordSpan?) { calls.append("reject \(reason)" + spanText(span)) }
        func skip() { calls.append("skip") }
        func ignore() { calls.append("ignore") }
        func metric(_ count: DailyCount) { calls.append("metric \(count.day) \(count.count)") }
        func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {
            calls.append("entries \(entries.count)" + spanText(span))
        }

        /// The calls one line gave.
        func feed(_ format: LineFormat, _ line: String, _ number: Int, lineTime: Int64? = nil) -> [String] {
            calls = []
            var s = line
            s.withUTF8 { format.parse($0, number: number, lineTime: lineTime, into: self) }
            return calls
        }
    }

    func testARecordSpanningLinesIsReportedOnceWithItsSpan() {
        let sink = RecordingSink(), csv = CSVFormat()
        XCTAssertEqual(sink.feed(csv, "time,event,token,status,topic", 1), ["ignore"])
        XCTAssertEqual(
            sink.feed(csv, "2026-11-02T08:00:00Z,send,ab,200,\"com.example", 2), [], "a line inside an open record reports nothing")
        XCTAssertEqual(sink.feed(csv, "app\"", 3), ["record@2:2026-11-02T08:00:00Z,send,ab,200,\"com.example\napp\""])
        XCTAssertEqual(sink.builder.event.topic?.string, "com.example\napp")
        XCTAssertEqual(sink.feed(csv, "2026-11-02T08:00:01Z,send,ab,200,x", 4), ["record"], "a one-line record is its line")
    }

    func testFinishReportsARecordLeftOpen() {
        let sink = RecordingSink(), csv = CSVFormat()
        _ = sink.feed(csv, "time,event,token,status", 1)
        XCTAssertEqual(sink.feed(csv, "2026-11-02T08:00:00Z,send,\"ab", 2), [])
        sink.calls = []
        csv.finish(into: sink)
        XCTAssertEqual(sink.calls, ["reject \(RejectReason.csvFieldNotClosedAtEnd)@2:2026-11-02T08:00:00Z,send,\"ab"])
        sink.calls = []
        csv.finish(into: sink)
        XCTAssertEqual(sink.calls, [], "reported once")

        let document = JSONDocumentFormat(inner: NDJSONFormat())
        XCTAssertEqual(sink.feed(document, "[{\"time\": \"2026-11-02T08:00:00Z\",", 1), [])
        sink.calls = []
        document.finish(into: sink)
        XCTAssertEqual(sink.calls, ["reject \(RejectReason.jsonRecordNotClosed)@1:{\"time\": \"2026-11-02T08:00:00Z\", "])
    }

    func testAnObjectOfADocumentIsReportedWithItsSpan() {
        let sink = RecordingSink(), document = JSONDocumentFormat(inner: NDJSONFormat())
        XCTAssertEqual(sink.feed(document, "[{\"time\": \"2026-11-02T08:00:00Z\",", 1), [])
        XCTAssertEqual(
            sink.feed(document, "  \"event\": \"send\", \"token\": \"ab\", \"status\": 200}]", 2),
            ["record@1:{\"time\": \"2026-11-02T08:00:00Z\",   \"event\": \"send\", \"token\": \"ab\", \"status\": 200}"])
    }

    func testABundledRecordLineIsReportedAsEntries() {
        let sink = RecordingSink()
        let line =
            #"2026-11-02T09:00:00.000Z {"sent":[{"device":"0032"}],"failed":[{"device":"0033","status":"410","response":{"reason":"Unregistered"}}]}"#
        XCTAssertEqual(sink.feed(NDJSONFormat(), line, 1), ["entries 2"])
    }

    func testThePrefixTimeIsTheTimeOfARecordWithoutOne() {
        let sink = RecordingSink(), ndjson = NDJSONFormat()
        let line = #"{"event":"send","token":"ab","status":200}"#
        XCTAssertEqual(sink.feed(ndjson, line, 1), ["reject \(RejectReason.missingField("time"))"])
        XCTAssertEqual(sink.feed(ndjson, line, 2, lineTime: 1_793_610_000_000), ["record"])
        XCTAssertEqual(sink.builder.event.time, 1_793_610_000_000)
        let timed = #"{"time":"2026-11-02T08:00:00Z","event":"send","token":"ab","status":200}"#
        XCTAssertEqual(sink.feed(ndjson, timed, 3, lineTime: 1_793_610_000_000), ["record"])
        XCTAssertEqual(sink.builder.event.time, 1_793_606_400_000, "the record's own time wins")
    }

    func testTimingsAreReturnedOnlyWhenAsked() {
        PhaseTimer.stop()
        PhaseTimer.measure("not asked") {}
        XCTAssertEqual(PhaseTimer.take(), [])
        PhaseTimer.start()
        defer { PhaseTimer.stop() }
        PhaseTimer.measure("asked") {}
        XCTAssertEqual(PhaseTimer.take().map(\.name), ["asked"])
        XCTAssertEqual(PhaseTimer.take(), [], "taken once")
    }
}
