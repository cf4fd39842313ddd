/// The catalog's built-in reports: Queries/*.sql, compiled into the binary as package resources
/// (Package.swift embeds every file there; this list names them, and a test keeps the two equal).
enum BuiltInQueries {
    static let files: [String: [UInt8]] = [
        "churn": PackageResources.churn_sql,
        "env-mismatch": PackageResources.env_mismatch_sql,
        "errors": PackageResources.errors_sql,
        "gone": PackageResources.gone_sql,
        "hygiene": PackageResources.hygiene_sql,
        "opt-out": PackageResources.opt_out_sql,
        "reconcile": PackageResources.reconcile_sql,
        "silent": PackageResources.silent_sql,
        "weekly": PackageResources.weekly_sql,
    ]

    /// The built-in line-format definitions (Formats/Definitions/*.format), by file name.
    static let formats: [String: [UInt8]] = [
        "aioapns.format": PackageResources.aioapns_format,
        "apns2.format": PackageResources.apns2_format,
        "bark-server.format": PackageResources.bark_server_format,
        "mattermost-push-proxy.format": PackageResources.mattermost_push_proxy_format,
        "parse-server.format": PackageResources.parse_server_format,
        "pushy.format": PackageResources.pushy_format,
        "rpush.format": PackageResources.rpush_format,
        "sygnal.format": PackageResources.sygnal_format,
    ]
}
