// libFuzzer harnesses for the parsers, compiled with PushLogKit's sources by scripts/fuzz.sh
// (not part of the Swift package). $PUSHLOG_FUZZ_TARGET picks one: json, logfmt, csv, document,
// sns, gorush, time, stream.
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
    static let builder = EventBuilder()

    static func make() -> LineFormat {
        switch target {
        case "logfmt": return LogfmtFormat(builder: builder)
        case "csv": return CSVFormat(builder: builder)
        case "document": return JSONDocumentFormat(inner: NDJSONFormat(builder: builder))
        case "sns": return SNSFormat(builder: builder)
        case "gorush": return GorushFormat(builder: builder)
        default: return NDJSONFormat(builder: builder)
        }
    }

    /// Every line of the input through the same steps as the ingester: UTF-8 check, then the format.
    static func lines(_ data: UnsafeBufferPointer<UInt8>) {
        let format = make()
        var start = 0
        for i in 0...data.count where i == data.count || data[i] == 0x0A {
            let line = UnsafeBufferPointer(rebasing: data[start..<i])
            start = i + 1
            if line.isEmpty || !UTF8Check.isValid(line) { continue }
            switch format.parse(line, number: 1) {
            case .event:
                let e = builder.event
                precondition(e.time != nil && e.kind != nil, "an event without time or kind")
                _ = LineHash.hash(format.spanned?.bytes ?? line)
            default: break
            }
        }
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
