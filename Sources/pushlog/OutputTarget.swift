import Foundation
import PushLogKit

/// Where output goes and in which format, from `--format` and `-o`.
struct OutputTarget {
    let format: OutputFormat
    let path: String?
    let revealTokens: Bool
    let pager: Bool
    let color: Bool

    static let valued = ["--format", "-o", "--output", "--color"]
    static let boolean = ["--reveal-tokens", "--no-pager"]

    init(_ args: Arguments, defaultFormat: OutputFormat? = nil) throws {
        path = args.value("-o") ?? args.value("--output")
        revealTokens = args.has("--reveal-tokens")
        if revealTokens { Console.revealTokens.store(true, ordering: .relaxed) }
        pager = !args.has("--no-pager")
        color = try Console.colorWanted(args.value("--color"), path: args.value("-o") ?? args.value("--output"))
        if let f = args.value("--format") {
            guard let fmt = OutputFormat(rawValue: f.lowercased()) else {
                throw UsageError(
                    message: "unknown --format '\(f)'",
                    hint: "use one of: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            // `-o x.json --format csv` would write CSV into a file that says JSON.
            if let path, let implied = OutputFormat.fromExtension(path), implied != fmt, !path.hasSuffix(".txt") {
                throw UsageError(
                    message: "-o \(path) says \(implied.rawValue) but --format says \(fmt.rawValue)",
                    hint: "drop --format (the extension decides), or name the file for \(fmt.rawValue)")
            }
            format = fmt
        } else if let path, let fmt = OutputFormat.fromExtension(path) {
            format = fmt
        } else if let path, let ext = path.split(separator: "/").last?.split(separator: ".").dropFirst().last {
            throw UsageError(
                message: "-o \(path): no output format for the extension .\(ext)",
                hint: "use .csv, .tsv, .json, .ndjson, .md, .html or .txt, or give --format")
        } else if let defaultFormat {
            format = defaultFormat
        } else {
            // Aligned for a person at a terminal; tab-separated for a pipe or a file.
            format = path == nil && !Console.stdoutIsTTY ? .tsv : .table
        }
    }

    /// The document as text, tokens masked by value unless `--reveal-tokens` (the database
    /// supplies the tokens whose shape is not hex).
    /// `mask`: the tokens to mask when they come from elsewhere than `db` (a ClickHouse server);
    /// `masked: false` for text pushlog wrote itself (the format samples, made-up tokens to paste).
    func render(_ doc: ResultDocument, db: Database?, mask: TokenMask? = nil, masked: Bool = true) -> String {
        let d = revealTokens || !masked ? doc : (mask ?? TokenMask(db: db)).apply(doc)
        let toTerminal = path == nil && Console.stdoutIsTTY
        return format.render(
            d, terminalWidth: path == nil ? Console.terminalColumns : nil, color: color, ascii: toTerminal && !Console.localeIsUTF8)
    }

    /// Writes a rendered document to the file or stdout (through the pager when long).
    func write(_ doc: ResultDocument, db: Database?, mask: TokenMask? = nil, masked: Bool = true) throws {
        let text = render(doc, db: db, mask: mask, masked: masked)
        if !format.carriesNotes { for n in doc.notes { Console.err("pushlog: note: \(n)") } }
        if let path {
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw CLIError("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var t = text
            t.withUTF8 { _ = Foundation.write(fd, $0.baseAddress, $0.count) }
        } else {
            Pager.write(text, enabled: pager)
        }
    }
}
