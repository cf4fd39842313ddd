/// The columns the writer fills, declared once per record table: the INSERT statement is built
/// from the list and each bind names its column (`SendColumn.topic`), so adding a column is one
/// new case, not a renumbering.
///
/// A case's raw value is its parameter position within a row (1-based; the five identity
/// columns come first in every table), and its SQL name is the case name in snake case
/// (`tokenID` → `token_id`).
protocol RecordColumns: CaseIterable, RawRepresentable where RawValue == Int32 {
    /// The record table these columns belong to.
    static var table: String { get }
}

/// The identity every record table starts with: time, line hash, source and line.
enum IdentityColumn: Int32, CaseIterable {
    case t = 1, h1, h2, src, line
}

extension RecordColumns {
    /// The table's columns in parameter order, identity first.
    static var names: [String] {
        IdentityColumn.allCases.map { snakeCase("\($0)") } + allCases.map { snakeCase("\($0)") }
    }

    /// `apnsUniqueID` → `apns_unique_id`: an underscore where a capital follows a small letter or digit.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        var previous: Character?
        for c in name {
            if c.isUppercase, let p = previous, p.isLowercase || p.isNumber { out.append("_") }
            out.append(Character(c.lowercased()))
            previous = c
        }
        return out
    }
}

enum SendColumn: Int32, RecordColumns {
    static let table = "sends"
    case kind = 6, tokenID, apnsID, env, topic, pushType, priority, collapseID, expiration, payloadBytes
    case contentAvailable, mutableContent, hasAlert, hasSound, hasBadge, apsCategory, threadID
    case interruptionLevel, relevance, customKeys, status, reason, category, apnsTs, apnsUniqueID
    case latencyMs, attempt, error
}

enum RegisterColumn: Int32, RecordColumns {
    static let table = "registers"
    case tokenID = 6, device, user, env, appVersion, osVersion, auth, topic
}

enum SettingsColumn: Int32, RecordColumns {
    static let table = "settings"
    case device = 6, user, auth, alertSetting, soundSetting, badgeSetting, lockScreen, notificationCenter
}

enum ReceiptColumn: Int32, RecordColumns {
    static let table = "receipts"
    case apnsID = 6, device, tokenID, receipt, result
}

enum UnregisterColumn: Int32, RecordColumns {
    static let table = "unregisters"
    case tokenID = 6, device, user
}
