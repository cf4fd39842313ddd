-- title: Rejected lines
-- description: `pushlog --clickhouse URL rejects`: the lines ingest could not read as records, with
-- description: the columns and order of the SQLite listing (file, line, reason, text; files in the
-- description: order they were ingested, lines in order).
-- param: key  a path as `sources` lists it, or its end after a '/', {key:String}
-- param: source  only lines of this file, {source:String}; '' = all
-- param: limit  at most this many lines, {limit:UInt64}

-- section: match
-- The files whose path is the key or ends in '/' and the key (LIKE, as SQLite compares it: ASCII
-- letters in any case), the exact one first.
SELECT path FROM pushlog.sources FINAL
WHERE path = {key:String} OR path ILIKE concat('%/', {key:String})
ORDER BY path = {key:String} DESC, version LIMIT 3;

-- section: rejects
SELECT r.source AS file, r.line AS line, r.reason AS reason, r.text AS text
FROM pushlog.rejects AS r FINAL INNER JOIN (SELECT path, version FROM pushlog.sources FINAL) AS s ON s.path = r.source
WHERE {source:String} = '' OR r.source = {source:String}
ORDER BY s.version, r.line
LIMIT {limit:UInt64};

-- section: count
SELECT count() AS n FROM pushlog.rejects FINAL WHERE {source:String} = '' OR source = {source:String};
