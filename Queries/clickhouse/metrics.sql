-- title: The KPIs as OpenMetrics text
-- description: `pushlog --clickhouse URL metrics`: the counts pushlog's gauges are made of, as its
-- description: SQLite statements count them (MetricsExport), from the kept facts. The rates come
-- description: from the ClickHouse reports themselves (gone, silent, env-mismatch, opt-out).
-- param: since  start of the window (ms), {since:Int64}
-- param: until  end of the window, exclusive (ms), {until:Int64}

-- section: responses
-- Responses by topic and env ('(none)' when the record has none).
SELECT coalesce(topic, '(none)') AS t, coalesce(env, '(none)') AS e, count() AS responses,
       countIf(status = 200) AS accepted, countIf(status = 410) AS gone
FROM pushlog.kept_responses WHERE time_ms >= {since:Int64} AND time_ms < {until:Int64}
GROUP BY t, e ORDER BY t, e;

-- section: pairs
-- Every topic and env that ever had a response.
SELECT DISTINCT coalesce(topic, '(none)') AS t, coalesce(env, '(none)') AS e FROM pushlog.kept_responses;

-- section: errors
SELECT coalesce(topic, '(none)') AS t, coalesce(env, '(none)') AS e, coalesce(category, 'unknown') AS c, count() AS responses
FROM pushlog.kept_responses WHERE status <> 200 AND time_ms >= {since:Int64} AND time_ms < {until:Int64}
GROUP BY t, e, c ORDER BY t, e, c;

-- section: rejected
SELECT sum(rejects) AS rejected FROM pushlog.sources FINAL;

-- section: newest
-- The newest record of each kind (NULL when there is none).
SELECT (SELECT maxOrNull(time_ms) FROM pushlog.kept_sends WHERE kind = 'send') AS send,
       (SELECT maxOrNull(time_ms) FROM pushlog.kept_sends WHERE kind = 'request') AS request,
       (SELECT maxOrNull(time_ms) FROM pushlog.kept_sends WHERE kind = 'response') AS response,
       (SELECT max(last_reg) FROM pushlog.kept_token_facts) AS register,
       (SELECT maxOrNull(time_ms) FROM pushlog.records WHERE kind = 'settings') AS settings,
       (SELECT maxOrNull(time_ms) FROM pushlog.records WHERE kind = 'receipt') AS receipt,
       (SELECT maxOrNull(time_ms) FROM pushlog.records WHERE kind = 'unregister') AS unregister;
