import Foundation

// Writes a Swift file that holds the files of some folders as strings, by name, so the binary
// carries its report catalog and format definitions and a new file needs no list to be named in:
//
//   EmbedFiles OUTPUT.swift ENUM FOLDER EXTENSION [ENUM FOLDER EXTENSION ...]
//
// Each ENUM gets `static let files: [String: String]`, keyed by file name without EXTENSION.
let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 4, (args.count - 1) % 3 == 0 else {
    FileHandle.standardError.write(Data("usage: EmbedFiles OUTPUT.swift ENUM FOLDER EXTENSION ...\n".utf8))
    exit(2)
}

/// A raw string literal that holds `text` whatever it contains: more `#`s than any run of them
/// after a quote in the text.
func literal(_ text: String) -> String {
    var longest = 0, run = 0, afterQuote = false
    for c in text {
        if c == "#" && afterQuote {
            run += 1
            longest = max(longest, run)
        } else {
            afterQuote = c == "\""
            run = 0
        }
    }
    let hashes = String(repeating: "#", count: longest + 1)
    // The newline before the closing delimiter is not part of the string: one more keeps the
    // text's own, and a text without one ends with an escaped newline.
    return hashes + "\"\"\"\n" + text + (text.hasSuffix("\n") ? "\n" : "\\" + hashes + "\n") + "\"\"\"" + hashes
}

var out = "// Generated at build time by the EmbedFolders plugin from the files of the folders below.\n"
for i in stride(from: 1, to: args.count, by: 3) {
    let (name, folder, ext) = (args[i], args[i + 1], "." + args[i + 2])
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(ext) }.sorted()
    out += "\n/// The `*\(ext)` files of \(URL(fileURLWithPath: folder).lastPathComponent)/, by name.\n"
    out += "enum \(name) {\n    static let files: [String: String] = [\n"
    for file in files {
        guard let text = try? String(contentsOfFile: folder + "/" + file, encoding: .utf8) else {
            FileHandle.standardError.write(Data("EmbedFiles: \(folder)/\(file) is not UTF-8 text\n".utf8))
            exit(1)
        }
        out += "        \"\(file.dropLast(ext.count))\": \(literal(text)),\n"
    }
    out += files.isEmpty ? "        :\n" : ""
    out += "    ]\n}\n"
}
do {
    // Unchanged output is left alone, so what depends on it is not rebuilt.
    if (try? String(contentsOfFile: args[0], encoding: .utf8)) != out { try out.write(toFile: args[0], atomically: true, encoding: .utf8) }
} catch {
    FileHandle.standardError.write(Data("EmbedFiles: cannot write \(args[0]): \(error)\n".utf8))
    exit(1)
}
