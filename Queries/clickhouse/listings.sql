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
-- The files read, in the order their rows were written (`version`: the file read last comes
-- last); the fingerprint as SQLite shows it, the head's hash cut to 16 digits and the size.
SELECT path, format,
       concat(substring(if(head_hash = '', fingerprint, head_hash), 1, 16), ':', splitByChar(':', fingerprint)[-1]) AS fingerprint,
       n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister AS records,
       n_send AS send, n_request AS request, n_response AS response, n_register AS register,
       n_settings AS settings, n_receipt AS receipt, n_unregister AS unregister,
       duplicates, ambiguous, rejects, skipped, ignored, lines, if(complete = 1, 'yes', 'no') AS complete, error,
       pushlog_rfc3339(ingested_ms) AS ingested_at
FROM pushlog.sources FINAL ORDER BY version, path;

-- section: match
-- The files whose path is the key or ends in '/' and the key (LIKE, as SQLite compares it: ASCII
-- letters in any case), the exact one first.
SELECT path FROM pushlog.sources FINAL
WHERE path = {key:String} OR path ILIKE concat('%/', {key:String})
ORDER BY path = {key:String} DESC, version LIMIT 3;

-- section: rejects
SELECT r.source AS file, r.line AS line, r.reason AS reason, r.text AS text
FROM pushlog.rejects AS r FINAL INNER JOIN (SELECT path, version FROM pushlog.sources FINAL) AS s ON s.path = r.source
WHERE isNull({source:Nullable(String)}) OR r.source = {source:Nullable(String)}
ORDER BY s.version, r.line, r.reason, r.text
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
