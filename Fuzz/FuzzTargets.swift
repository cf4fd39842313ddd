// libFuzzer harnesses for the parsers, compiled with PushLogKit's sources by scripts/fuzz.sh
// (not part of the Swift package). $PUSHLOG_FUZZ_TARGET picks one: json, logfmt, csv, document,
// sns, gorush, time, stream, detect (format detection, escape sequences, syslog prefixes, and the
// detected format on every line).
import Foundation

/// Feeds bytes from memory to the stream readers.
final class MemorySource: ByteSource {
    let bytes: [UInt8]
    var pos = 0
    init(_ b: [UInt8]) { bytes = b }
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        let n = min(count, bytes.count - pos)
        if n > 0 { bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + pos, count: n) } }
        pos += n
        return n
    }
}

enum Fuzz {
    static let target = ProcessInfo.processInfo.environment["PUSHLOG_FUZZ_TARGET"] ?? "json"
    static let sink = CheckingSink()

    static func make() -> LineFormat {
        switch target {
        case "logfmt": return LogfmtFormat()
        case "csv": return CSVFormat()
        case "document": return JSONDocumentFormat(inner: NDJSONFormat())
        case "sns": return SNSFormat()
        case "gorush": return GorushFormat()
        default: return NDJSONFormat()
        }
    }

    /// Every line of the input through the same steps as the ingester: UTF-8 check, then the format.
    static func lines(_ data: UnsafeBufferPointer<UInt8>) {
        var format = make()
        var prefix: SyslogPrefix?
        let cleaned = RecordBuffer()
        if target == "detect" {
            switch FormatDetector.detect(Array(data), mtimeMs: 1_793_836_800_000) {
            case .refused: return
            case .format(let f, let p): format = f; prefix = p
            }
        }
        var start = 0
        for i in 0...data.count where i == data.count || data[i] == 0x0A {
            let line = UnsafeBufferPointer(rebasing: data[start..<i])
            start = i + 1
            if line.isEmpty || !UTF8Check.isValid(line) { continue }
            var text = ANSIEscapes.present(line) ? ANSIEscapes.strip(line, into: cleaned) : line
            var lineTime: Int64?
            if let prefix, let (t, rest) = prefix.split(text) { lineTime = t; text = rest }
            sink.line = line
            format.parse(text, number: 1, lineTime: lineTime, into: sink)
        }
        format.finish(into: sink)
    }

    static func run(_ data: UnsafeBufferPointer<UInt8>) {
        switch target {
        case "time":
            _ = TimeParser.parse(data)
            _ = TimeArgument.parse(String(decoding: data, as: UTF8.self))
        case "stream":
            // Raw bytes as a gzip stream (bombs are cut by the ratio limit) and as a plain one.
            for gz in [true, false] {
                let src: ByteSource = gz ? ((try? GzipByteSource(input: MemorySource(Array(data)), maxRatio: 50)) ?? MemorySource([]))
                                         : MemorySource(Array(data))
                let reader = LineReader(source: src)
                var last = 0
                try? reader.forEachLine { line in
                    precondition(line.number > last, "line numbers must grow")
                    last = line.number
                    precondition(line.bytes.count <= LineReader.maxLineBytes)
                }
            }
        default:
            lines(data)
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func pushlogFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    Fuzz.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

/// Checks every record a format reports: it has a time and a kind, and its identity hashes.
final class CheckingSink: RecordSink {
    let builder = EventBuilder()
    var line = UnsafeBufferPointer<UInt8>(start: nil, count: 0)

    func record(_ span: RecordSpan?) {
        precondition(builder.event.time != nil && builder.event.kind != nil, "an event without time or kind")
        _ = LineHash.hash(span?.bytes ?? line)
    }
    func reject(_ reason: RejectReason, _ span: RecordSpan?) { _ = LineHash.hash(span?.bytes ?? line) }
    func skip() {}
    func ignore() {}
    func metric(_ count: DailyCount) {}
    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {
        for case .record(let kind, let fields) in entries where builder.build(kind: kind, fields: fields, lineTime: lineTime) == nil {
            precondition(builder.event.time != nil && builder.event.kind != nil, "an entry without time or kind")
        }
    }
}
