/// The catalog's built-in reports: Queries/*.sql, compiled into the binary as package resources
/// (Package.swift embeds every file there; this list names them, and a test keeps the two equal).
enum BuiltInQueries {
    static let files: [String: [UInt8]] = [
        "churn": PackageResources.churn_sql,
        "env-mismatch": PackageResources.env_mismatch_sql,
        "errors": PackageResources.errors_sql,
        "explain": PackageResources.explain_sql,
        "gone": PackageResources.gone_sql,
        "hygiene": PackageResources.hygiene_sql,
        "opt-out": PackageResources.opt_out_sql,
        "reconcile": PackageResources.reconcile_sql,
        "silent": PackageResources.silent_sql,
        "weekly": PackageResources.weekly_sql,
    ]
}
