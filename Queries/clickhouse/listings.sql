-- title: Listings: files read, rejected lines, tables
-- description: `pushlog --clickhouse URL sources`, `rejects` and `schema`: the files ingest read and
-- description: the lines it could not read as records, with the columns and order of the SQLite
-- description: listings (files in the order they were read, lines in order); the tables and views
-- description: of the database; the tokens output masks besides the hex-run rule's.
-- param: key  a path as `sources` lists it, or its end after a '/', {key:String}
-- param: source  only lines of this file, {source:Nullable(String)}; NULL = all
-- param: limit  at most this many lines, {limit:UInt64}
-- param: table  a table of the database, {table:String}

-- section: sources
-- The files read, in the order they were first read (`first_version`), and the files refused
-- whole since their last read (format `refused`, the reason as the error, no ingest time), as
-- SQLite lists them;
-- the fingerprint as SQLite shows it, the head's hash cut to 16 digits and the size.
SELECT path, format, fingerprint, records, send, request, response, register, settings, receipt, unregister,
       duplicates, ambiguous, rejects, skipped, ignored, lines, complete, error, ingested_at
FROM (
  SELECT s.path AS path, s.format AS format,
         concat(substring(if(s.head_hash = '', s.fingerprint, s.head_hash), 1, 16), ':', splitByChar(':', s.fingerprint)[-1]) AS fingerprint,
         s.n_send + s.n_request + s.n_response + s.n_register + s.n_settings + s.n_receipt + s.n_unregister AS records,
         s.n_send AS send, s.n_request AS request, s.n_response AS response, s.n_register AS register,
         s.n_settings AS settings, s.n_receipt AS receipt, s.n_unregister AS unregister,
         s.duplicates AS duplicates, s.ambiguous AS ambiguous, s.rejects AS rejects, s.skipped AS skipped, s.ignored AS ignored,
         s.lines AS lines, if(s.complete = 1, 'yes', 'no') AS complete, s.error AS error,
         pushlog_rfc3339(s.ingested_ms) AS ingested_at, if(s.first_version = 0, s.version, s.first_version) AS listed
  FROM pushlog.sources AS s FINAL
  LEFT JOIN (SELECT path, version FROM pushlog.refused FINAL) AS r ON r.path = s.path
  WHERE r.version IS NULL OR r.version < s.version
  UNION ALL
  SELECT r.path, 'refused', concat(substring(r.fingerprint, 1, 16), ':', splitByChar(':', r.fingerprint)[-1]),
         0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'yes', r.reason, CAST(NULL AS Nullable(String)),
         if(s.first_version > 0, s.first_version, r.version)
  FROM pushlog.refused AS r FINAL
  LEFT JOIN (SELECT path, version, if(first_version = 0, version, first_version) AS first_version FROM pushlog.sources FINAL) AS s
    ON s.path = r.path
  WHERE s.version IS NULL OR s.version < r.version
)
ORDER BY listed, path
SETTINGS join_use_nulls = 1;

-- section: match
-- The files whose path is the key or ends in '/' and the key (LIKE, as SQLite compares it: ASCII
-- letters in any case), the exact one first.
SELECT path FROM pushlog.sources FINAL
WHERE path = {key:String} OR lower(path) LIKE concat('%/', lower({key:String}))
ORDER BY path = {key:String} DESC, if(first_version = 0, version, first_version) LIMIT 3;

-- section: rejects
SELECT r.source AS file, r.line AS line, r.reason AS reason, r.text AS text
FROM pushlog.rejects AS r FINAL
INNER JOIN (SELECT path, if(first_version = 0, version, first_version) AS listed FROM pushlog.sources FINAL) AS s ON s.path = r.source
WHERE isNull({source:Nullable(String)}) OR r.source = {source:Nullable(String)}
ORDER BY s.listed, r.line, r.reason, r.text
LIMIT {limit:UInt64};

-- section: count
SELECT count() AS n FROM pushlog.rejects FINAL WHERE isNull({source:Nullable(String)}) OR source = {source:Nullable(String)};

-- section: counted_only
-- Rejected lines counted but not stored: none here, where a file's row and its stored lines are
-- kept per read of the file.
SELECT toInt64(0) AS n;

-- section: irregular_tokens
-- Tokens of the records that the hex-run rule would not catch (malformed, masked or short ones),
-- as SQLite's mask reads them from its tokens, so rows newer than the kept facts are masked too.
SELECT DISTINCT token FROM pushlog.records
WHERE (token_malformed = 1 OR token_masked = 1 OR length(token) < 32) AND length(token) >= 4
ORDER BY length(token) DESC, token LIMIT 20000;

-- section: tables
-- The tables and views of the database, each with its engine, its comment and its columns in order.
SELECT t.name AS table, any(t.engine) AS engine, any(t.comment) AS comment,
       arrayStringConcat(arrayMap(x -> x.2, arraySort(groupArray((c.position, c.name)))), ' ') AS columns
FROM system.tables AS t
LEFT JOIN (SELECT table, name, position FROM system.columns WHERE database = currentDatabase()) AS c ON c.table = t.name
WHERE t.database = currentDatabase() AND NOT startsWith(t.name, '.inner')
GROUP BY t.name ORDER BY t.name;

-- section: columns
-- One table's columns with their types.
SELECT name AS column, type, comment AS meaning FROM system.columns
WHERE database = currentDatabase() AND table = {table:String} ORDER BY position;
