-- title: Explain a change
-- description: What is different in a window against its baseline: for every dimension the
-- description: responses carry, each value's share of the metric's change and its lift; when
-- description: the metric left its baseline; the first records to trace (docs/explain.md).
-- records: responses
-- param: since time  start of the window
-- param: until time  end of the window, exclusive
-- param: metric enum(errors,gone,volume,throttled,latency) = errors  what changed: non-accepted responses, 410s, responses, 429s, responses slower than the baseline's 95th percentile
-- param: baseline enum(previous,week) = previous  the same length just before the window, or the same window a week earlier
-- column: segment,dimension,value,at key
-- column: window_count,baseline_count count unit=records
-- column: window_records,baseline_records count better=none unit=responses
-- column: change count
-- column: window_rate,baseline_rate rate
-- column: contribution,top_share rate better=none  Share of the change
-- column: lift number  Rate in the window over rate in the baseline
-- column: score number  Share of the change less share of the responses
-- column: expected number
-- column: status text
-- column: time,baseline_since,baseline_until,since,until time
-- materialize: explain_records, explain_long, explain_kinds_long, explain_singles, explain_pairs, explain_what, explain_top

-- common:
-- The window [since, until) and its baseline of the same length (so counts compare without
-- scaling): just before it, or a week earlier. step: the onset's bucket, a minute for windows
-- of an hour or less, 5 minutes up to a day, an hour up to two weeks, else a day.
explain_periods AS (
  SELECT :since AS w_lo, :until AS w_hi,
         CASE WHEN :baseline = 'week' THEN :since - 604800000 ELSE 2 * :since - :until END AS b_lo,
         CASE WHEN :baseline = 'week' THEN :until - 604800000 ELSE :since END AS b_hi,
         CASE WHEN :until - :since <= 3600000 THEN 60000 WHEN :until - :since <= 86400000 THEN 300000
              WHEN :until - :since <= 1209600000 THEN 3600000 ELSE 86400000 END AS step
  -- No row (nothing to explain) without both ends or for a window over 92 days: an open end
  -- binds the far past or future, and a window is cut in at most 92 daily buckets.
  WHERE :since < :until AND :until - :since <= 7948800000
),
-- The latency metric counts responses slower than the baseline's 95th percentile.
explain_latency_cut AS (
  SELECT min(latency_ms) AS cut FROM (
    SELECT s.latency_ms, percent_rank() OVER (ORDER BY s.latency_ms) AS pr
    FROM explain_periods p JOIN sends s ON s.time_ms >= p.b_lo AND s.time_ms < p.b_hi
    WHERE :metric = 'latency' AND s.latency_ms IS NOT NULL AND s.kind IN (0, 2) AND s.status IS NOT NULL
  ) WHERE pr >= 0.95
),
-- What each dimension is. outcome: its value is the response's answer (the metric's "what"),
-- so its lift compares shares of all responses; the others say where a response went.
explain_dimensions(dimension, ord, outcome) AS (
  VALUES ('reason', 1, 1), ('status', 2, 1), ('topic', 3, 0), ('env', 4, 0), ('push_type', 5, 0),
         ('priority', 6, 0), ('app_version', 7, 0), ('source', 8, 0), ('token_age', 9, 0)
),
-- Every response of the window (in_window 1) and of the baseline (0), read through the time
-- index, two ranges. Transport failures (no APNs response) count as errors. hit: the record is
-- what the metric counts; counted: it is in the metric's denominator (latency: where logged).
-- A dimension a record does not carry is NULL.
explain_records AS (
  SELECT r.id, r.time_ms, r.in_window, r.token_id, r.source_id, r.line, apns_text(r.apns_id) AS apns_id,
         coalesce(CASE :metric WHEN 'errors' THEN r.status IS NULL OR r.status <> 200 WHEN 'gone' THEN r.status = 410
                               WHEN 'throttled' THEN r.status = 429 WHEN 'volume' THEN 1
                               ELSE r.latency_ms > (SELECT cut FROM explain_latency_cut) END, 0) AS hit,
         CASE WHEN :metric = 'latency' THEN r.latency_ms IS NOT NULL ELSE 1 END AS counted,
         coalesce((SELECT name FROM reasons WHERE id = r.reason_id), r.error,
                  CASE WHEN r.status = 200 THEN '(accepted)' END) AS reason,
         coalesce(CAST(r.status AS TEXT), 'no response') AS status,
         (SELECT name FROM topics WHERE id = r.topic_id) AS topic,
         (SELECT name FROM envs WHERE id = r.env_id) AS env,
         (SELECT name FROM push_types WHERE id = r.push_type_id) AS push_type,
         CAST(r.priority AS TEXT) AS priority,
         (SELECT name FROM app_versions WHERE id = f.reg_app_version_id) AS app_version,
         (SELECT path FROM sources WHERE id = r.source_id) AS source,
         CASE WHEN f.first_reg IS NULL OR f.first_reg > r.time_ms THEN NULL
              WHEN r.time_ms - f.first_reg < 3600000 THEN 'under 1 h'
              WHEN r.time_ms - f.first_reg < 86400000 THEN '1 h to 1 d'
              WHEN r.time_ms - f.first_reg < 604800000 THEN '1 d to 7 d'
              WHEN r.time_ms - f.first_reg < 2592000000 THEN '7 d to 30 d'
              ELSE '30 d or more' END AS token_age
  FROM (
    SELECT s.*, 1 AS in_window FROM explain_periods p JOIN sends s ON s.time_ms >= p.w_lo AND s.time_ms < p.w_hi
    UNION ALL
    SELECT s.*, 0 AS in_window FROM explain_periods p JOIN sends s ON s.time_ms >= p.b_lo AND s.time_ms < p.b_hi
  ) r LEFT JOIN token_facts f ON f.token_id = r.token_id
  WHERE (r.kind IN (0, 2) AND r.status IS NOT NULL)
     OR (:metric = 'errors' AND r.category_id = (SELECT id FROM categories WHERE name = 'transport'))
),
-- One row per record and dimension: what singles and pairs group.
explain_long AS (
  SELECT r.id, d.dimension, d.ord,
         CASE d.dimension WHEN 'reason' THEN r.reason WHEN 'status' THEN r.status WHEN 'topic' THEN r.topic
                          WHEN 'env' THEN r.env WHEN 'push_type' THEN r.push_type WHEN 'priority' THEN r.priority
                          WHEN 'app_version' THEN r.app_version WHEN 'source' THEN r.source ELSE r.token_age END AS value,
         r.in_window, r.hit, r.counted, r.reason
  FROM explain_records r CROSS JOIN explain_dimensions d
),
explain_totals AS (
  SELECT coalesce(sum(in_window * hit), 0) AS w_hits, coalesce(sum((1 - in_window) * hit), 0) AS b_hits,
         coalesce(sum(in_window * counted), 0) AS w_records, coalesce(sum((1 - in_window) * counted), 0) AS b_records
  FROM explain_records
),
-- The records grouped by all their dimensions' values at once: few groups where there are many
-- records, so singles and pairs add these up instead of grouping every record's values (at 25 M
-- records a two-hour window's pairs were most of explain's time). copies: the periods a record is
-- in (two when a window over a week overlaps the week before it); a pair joins a record's rows by
-- its id, so each of its rows counts once per copy.
explain_kinds AS (
  SELECT row_number() OVER () AS kind, reason, status, topic, env, push_type, priority, app_version, source, token_age, copies,
         sum(in_window * hit) AS w_hits, sum((1 - in_window) * hit) AS b_hits,
         sum(in_window * counted) AS w_records, sum((1 - in_window) * counted) AS b_records
  FROM (SELECT r.*, (r.time_ms >= p.w_lo AND r.time_ms < p.w_hi) + (r.time_ms >= p.b_lo AND r.time_ms < p.b_hi) AS copies
        FROM explain_records r CROSS JOIN explain_periods p)
  GROUP BY reason, status, topic, env, push_type, priority, app_version, source, token_age, copies
),
explain_kinds_long AS (
  SELECT k.kind, d.dimension, d.ord,
         CASE d.dimension WHEN 'reason' THEN k.reason WHEN 'status' THEN k.status WHEN 'topic' THEN k.topic
                          WHEN 'env' THEN k.env WHEN 'push_type' THEN k.push_type WHEN 'priority' THEN k.priority
                          WHEN 'app_version' THEN k.app_version WHEN 'source' THEN k.source ELSE k.token_age END AS value,
         k.copies, k.w_hits, k.b_hits, k.w_records, k.b_records
  FROM explain_kinds k CROSS JOIN explain_dimensions d
),
-- Each dimension's value: hits and denominator records in the window (w_) and the baseline (b_).
explain_singles AS (
  SELECT dimension, ord, value, sum(w_hits) AS w_hits, sum(b_hits) AS b_hits, sum(w_records) AS w_records,
         sum(b_records) AS b_records
  FROM explain_kinds_long GROUP BY dimension, ord, value
),
-- Why a dimension is ranked or not: 'ranked', or what keeps it out. Not logged: no record of
-- either period carries it. One value: nothing to tell apart. No value in common: the window
-- and the baseline share no value (rotated files), so every value would look new.
explain_status AS (
  SELECT d.dimension, d.ord, d.outcome,
         CASE WHEN NOT EXISTS (SELECT 1 FROM explain_singles x WHERE x.dimension = d.dimension AND x.value IS NOT NULL)
                THEN 'not observable: not in these logs'
              WHEN d.dimension = 'status' AND :metric IN ('gone', 'throttled') THEN 'not ranked: the metric counts one status'
              WHEN (SELECT count(*) FROM explain_singles x WHERE x.dimension = d.dimension) = 1
                THEN 'not ranked: one value only (' || coalesce((SELECT value FROM explain_singles x WHERE x.dimension = d.dimension), '(none)') || ')'
              WHEN NOT EXISTS (SELECT 1 FROM explain_singles x WHERE x.dimension = d.dimension AND x.w_records > 0 AND x.b_records > 0)
                THEN 'not ranked: no value in common with the baseline'
              ELSE 'ranked' END AS status
  FROM explain_dimensions d
),
-- Each pair of ranked dimensions (status aside: reason says more), the same counts.
explain_pairs AS (
  SELECT a.dimension AS d1, b.dimension AS d2, a.ord AS ord1, b.ord AS ord2, a.value AS v1, b.value AS v2,
         sum(a.w_hits * a.copies) AS w_hits, sum(a.b_hits * a.copies) AS b_hits,
         sum(a.w_records * a.copies) AS w_records, sum(a.b_records * a.copies) AS b_records
  FROM explain_kinds_long a JOIN explain_kinds_long b ON b.kind = a.kind AND b.ord > a.ord
  WHERE a.dimension IN (SELECT dimension FROM explain_status WHERE status = 'ranked' AND dimension <> 'status')
    AND b.dimension IN (SELECT dimension FROM explain_status WHERE status = 'ranked' AND dimension <> 'status')
  GROUP BY a.dimension, b.dimension, a.ord, b.ord, a.value, b.value
),
-- Singles and pairs with their figures. contribution: the segment's change over the total change
-- (NULL when the total did not move). lift: its rate in the window over its rate in the baseline
-- (an outcome's rate is its share of all responses; volume's is the count); NULL when the
-- baseline rate is 0. score: contribution less the segment's share of the responses of both
-- periods, so a value that is most of the traffic does not explain a change by being everywhere.
explain_segments AS (
  SELECT x.*, x.w_hits - x.b_hits AS change,
         1.0 * (x.w_hits - x.b_hits) / nullif(t.w_hits - t.b_hits, 0) AS contribution,
         CASE WHEN :metric = 'volume' THEN 1.0 * x.w_hits / nullif(x.b_hits, 0)
              ELSE (1.0 * x.w_hits / nullif(CASE WHEN x.outcome THEN t.w_records ELSE x.w_records END, 0))
                   / nullif(1.0 * x.b_hits / nullif(CASE WHEN x.outcome THEN t.b_records ELSE x.b_records END, 0), 0) END AS lift,
         1.0 * x.w_hits / nullif(CASE WHEN x.outcome THEN t.w_records ELSE x.w_records END, 0) AS window_rate,
         1.0 * x.b_hits / nullif(CASE WHEN x.outcome THEN t.b_records ELSE x.b_records END, 0) AS baseline_rate,
         1.0 * (x.w_records + x.b_records) / nullif(t.w_records + t.b_records, 0) AS traffic_share
  FROM (
    SELECT s.dimension, s.dimension AS segment_dims, coalesce(s.value, '(none)') AS value, s.dimension || '=' || coalesce(s.value, '(none)') AS segment,
           st.outcome, s.w_hits, s.b_hits, s.w_records, s.b_records, 1 AS size,
           s.dimension AS d1, s.value AS v1, NULL AS d2, NULL AS v2
    FROM explain_singles s JOIN explain_status st ON st.dimension = s.dimension AND st.status = 'ranked'
    UNION ALL
    SELECT p.d1 || ' × ' || p.d2, NULL, coalesce(p.v1, '(none)') || ' × ' || coalesce(p.v2, '(none)'),
           p.d1 || '=' || coalesce(p.v1, '(none)') || ', ' || p.d2 || '=' || coalesce(p.v2, '(none)'),
           (SELECT max(outcome) FROM explain_dimensions WHERE dimension IN (p.d1, p.d2)), p.w_hits, p.b_hits, p.w_records, p.b_records, 2,
           p.d1, p.v1, p.d2, p.v2
    FROM explain_pairs p
  ) x CROSS JOIN explain_totals t
),
-- The top segment: what and where. What: the reason that carries most of the change (none for
-- volume and latency). Where: among the records the metric counts of that reason (all of them
-- without one), the where-value or pair whose share of that reason's change (at most 1) exceeds
-- its share of the window's responses the most, when by at least 0.2: below it the change is spread
-- over the traffic (an expired key fails every send) and naming a value would be noise. Rows
-- (dimension, value); a NULL value matches a record that lacks the dimension.
explain_what AS (
  SELECT v1 AS value FROM explain_segments
  WHERE dimension = 'reason' AND :metric NOT IN ('volume', 'latency') AND contribution > 0
  ORDER BY contribution DESC, w_hits DESC, value LIMIT 1
),
explain_where_dimensions AS (
  SELECT dimension FROM explain_status WHERE status = 'ranked' AND outcome = 0
),
explain_what_hits AS (
  SELECT l.id, l.dimension, l.ord, l.value, l.in_window FROM explain_long l
  WHERE l.hit = 1 AND l.dimension IN (SELECT dimension FROM explain_where_dimensions)
    AND (NOT EXISTS (SELECT 1 FROM explain_what) OR l.reason = (SELECT value FROM explain_what))
),
explain_where AS (
  SELECT w.*, min(1.0 * (w.w_hits - w.b_hits) / nullif(c.change, 0), 1) - 1.0 * g.w_records / nullif(t.w_records, 0) AS where_score
  FROM (
    SELECT 1 AS size, a.dimension AS d1, a.value AS v1, NULL AS d2, NULL AS v2, a.dimension || '=' || coalesce(a.value, '(none)') AS segment,
           sum(a.in_window) AS w_hits, sum(1 - a.in_window) AS b_hits
    FROM explain_what_hits a GROUP BY a.dimension, a.value
    UNION ALL
    SELECT 2, a.dimension, a.value, b.dimension, b.value,
           a.dimension || '=' || coalesce(a.value, '(none)') || ', ' || b.dimension || '=' || coalesce(b.value, '(none)'),
           sum(a.in_window), sum(1 - a.in_window)
    FROM explain_what_hits a JOIN explain_what_hits b ON b.id = a.id AND b.ord > a.ord
    GROUP BY a.dimension, a.value, b.dimension, b.value
  ) w
  CROSS JOIN (SELECT sum(in_window) - sum(1 - in_window) AS change FROM explain_what_hits
              WHERE dimension = (SELECT min(dimension) FROM explain_where_dimensions)) c
  CROSS JOIN explain_totals t
  JOIN explain_segments g ON g.d1 = w.d1 AND g.v1 IS w.v1 AND g.d2 IS w.d2 AND g.v2 IS w.v2
),
explain_top AS (
  SELECT 'reason' AS dimension, value FROM explain_what
  UNION ALL
  SELECT dimension, value FROM (
    SELECT w.d1 AS dimension, w.v1 AS value, w.size FROM (
      SELECT * FROM explain_where WHERE where_score >= 0.2 ORDER BY where_score DESC, size, segment LIMIT 1
    ) w
    UNION ALL
    SELECT w.d2, w.v2, w.size FROM (
      SELECT * FROM explain_where WHERE where_score >= 0.2 ORDER BY where_score DESC, size, segment LIMIT 1
    ) w WHERE w.size = 2
  )
),
-- The records of the top segment: those matching each of its (dimension, value) rows.
explain_top_records AS (
  SELECT l.id FROM explain_long l JOIN explain_top t ON t.dimension = l.dimension AND t.value IS l.value
  GROUP BY l.id HAVING count(*) = (SELECT count(*) FROM explain_top)
),
-- The window's buckets of `step`, each with the hits of the top segment (of all records when
-- there is none) and all records, and what the baseline expects there: the segment's baseline
-- hits per baseline record times the bucket's records (volume: the segment's baseline count
-- spread evenly over the buckets). The onset is the top segment's: what the other values do
-- meanwhile (an hour's mix of background pushes) does not move it.
explain_onset_hits AS (
  SELECT r.in_window, r.time_ms, r.hit, r.counted,
         CASE WHEN NOT EXISTS (SELECT 1 FROM explain_top) OR r.id IN (SELECT id FROM explain_top_records) THEN r.hit ELSE 0 END AS onset_hit
  FROM explain_records r
),
explain_buckets(at) AS (
  SELECT w_lo FROM explain_periods WHERE w_lo < w_hi
  UNION ALL
  SELECT b.at + p.step FROM explain_buckets b, explain_periods p WHERE b.at + p.step < p.w_hi
),
explain_bucket_counts AS (
  SELECT b.at, coalesce(h.hits, 0) AS hits, coalesce(h.records, 0) AS records,
         CASE WHEN :metric = 'volume' THEN 1.0 * o.b_hits * (min(b.at + p.step, p.w_hi) - b.at) / (p.w_hi - p.w_lo)
              ELSE coalesce(h.records, 0) * 1.0 * o.b_hits / nullif(t.b_records, 0) END AS expected
  FROM explain_buckets b CROSS JOIN explain_periods p CROSS JOIN explain_totals t
       CROSS JOIN (SELECT coalesce(sum(onset_hit), 0) AS b_hits FROM explain_onset_hits WHERE in_window = 0) o
       LEFT JOIN (SELECT q.w_lo + (r.time_ms - q.w_lo) / q.step * q.step AS at, sum(r.onset_hit) AS hits, sum(r.counted) AS records
                  FROM explain_onset_hits r CROSS JOIN explain_periods q WHERE r.in_window = 1 GROUP BY 1) h ON h.at = b.at
),
-- Whether the metric moved beyond chance (a Poisson count: three standard deviations, and at
-- least 5): up or down, or 0 for no clear change.
explain_direction AS (
  SELECT CASE WHEN x.w_hits - x.expected >= 5 AND (x.w_hits - x.expected) * (x.w_hits - x.expected) >= 9 * max(x.expected, 1) THEN 1
              WHEN x.expected - x.w_hits >= 5 AND (x.w_hits - x.expected) * (x.w_hits - x.expected) >= 9 * max(x.expected, 1) THEN -1
              ELSE 0 END AS clear
  FROM (SELECT t.w_hits, CASE WHEN :metric = 'volume' THEN 1.0 * t.b_hits ELSE t.w_records * 1.0 * t.b_hits / nullif(t.b_records, 0) END AS expected
        FROM explain_totals t) x
),
-- The onset: the stretch of buckets whose excess over what the baseline expects (in the change's
-- direction) adds up to the most, each bucket's excess less an allowance so that noise before
-- the change does not join the stretch (a cumulative-sum change point): half a record and a
-- twentieth of what the bucket expects, or half the window's mean excess per bucket if more; its first bucket above the baseline, when the stretch's excess is clear (at least 5,
-- and three standard deviations of what it expects) and so is the change (no onset of noise).
explain_excess AS (
  SELECT c.at, c.hits, coalesce(c.expected, 0) AS expected,
         (CASE WHEN d.clear <> 0 THEN d.clear WHEN t.w_hits >= t.b_hits THEN 1 ELSE -1 END) * (c.hits - coalesce(c.expected, 0)) AS gap
  FROM explain_bucket_counts c, explain_direction d, explain_totals t
),
explain_cusum AS (
  SELECT x.*, x.gap - x.allowance AS step_gain, sum(x.gap - x.allowance) OVER (ORDER BY x.at ROWS UNBOUNDED PRECEDING) AS gain
  FROM (SELECT e.*, max(0.5 + e.expected / 20.0, (SELECT 0.5 * sum(y.gap) / count(*) FROM explain_excess y)) AS allowance
        FROM explain_excess e) x
),
-- A stretch ends where the gain since the lowest point before it is the largest; it starts after
-- that lowest point (the latest bucket whose gain before it is that low). Window functions, so
-- a long window's buckets are read a few times, never pair by pair.
explain_lowest AS (
  SELECT c.*, min(c.gain - c.step_gain) OVER (ORDER BY c.at ROWS UNBOUNDED PRECEDING) AS lowest FROM explain_cusum c
),
explain_stretch AS (
  SELECT b.start, b.finish,
         (SELECT sum(y.gap) FROM explain_excess y WHERE y.at >= b.start AND y.at <= b.finish) AS gap,
         (SELECT sum(y.expected) FROM explain_excess y WHERE y.at >= b.start AND y.at <= b.finish) AS expected
  FROM (SELECT (SELECT max(s.at) FROM explain_lowest s WHERE s.at <= f.at AND s.gain - s.step_gain = f.lowest) AS start, f.at AS finish
        FROM (SELECT * FROM explain_lowest ORDER BY gain - lowest DESC, at LIMIT 1) f) b
),
explain_onset AS (
  SELECT x.at, x.hits, x.expected FROM explain_excess x, explain_stretch s
  WHERE x.at >= s.start AND x.at <= s.finish AND x.gap > 0 AND s.gap >= 5 AND s.gap * s.gap >= 9 * max(s.expected, 1)
    AND (SELECT clear FROM explain_direction) <> 0
  ORDER BY x.at LIMIT 1
)

-- section: summary
-- One row: the metric in the window and the baseline, whether it moved beyond chance (verdict),
-- the top segment (top_segment, its share of the change and counts), the onset, and the report
-- that shows the segment over time (with the previous baseline, from the baseline's start).
-- headline says it in one line, only when the change is clear: noise is not attributed.
WITH top AS (
  SELECT coalesce(sum(r.in_window * r.hit), 0) AS w_hits, coalesce(sum((1 - r.in_window) * r.hit), 0) AS b_hits
  FROM explain_records r WHERE r.id IN (SELECT id FROM explain_top_records)
), top_text AS (
  SELECT group_concat(dimension || '=' || coalesce(value, '(none)'), ', ') AS segment,
         group_concat(CASE WHEN dimension = 'reason' THEN coalesce(value, '(none)') END, '') AS what,
         group_concat(CASE WHEN dimension <> 'reason' THEN CASE WHEN dimension = 'topic' THEN coalesce(value, '(none)') ELSE dimension || ' ' || coalesce(value, '(none)') END END, ', ') AS where_
  FROM explain_top
), figures AS (
  SELECT t.*, p.*, d.clear, top.w_hits AS top_w, top.b_hits AS top_b,
         1.0 * (top.w_hits - top.b_hits) / nullif(t.w_hits - t.b_hits, 0) AS top_share, tt.segment, tt.what, tt.where_
  FROM explain_totals t, explain_periods p, explain_direction d, top, top_text tt
)
SELECT :metric AS metric, rfc3339(f.w_lo) AS since, rfc3339(f.w_hi) AS until, :baseline AS baseline,
       rfc3339(f.b_lo) AS baseline_since, rfc3339(f.b_hi) AS baseline_until,
       f.w_hits AS window_count, f.b_hits AS baseline_count, f.w_hits - f.b_hits AS change,
       f.w_records AS window_records, f.b_records AS baseline_records,
       round(1.0 * f.w_hits / nullif(f.w_records, 0), 6) AS window_rate, round(1.0 * f.b_hits / nullif(f.b_records, 0), 6) AS baseline_rate,
       CASE f.clear WHEN 1 THEN 'increase' WHEN -1 THEN 'decrease' ELSE 'no clear change' END AS verdict,
       f.segment AS top_segment, round(f.top_share, 6) AS top_share, f.top_w AS top_window, f.top_b AS top_baseline,
       (SELECT rfc3339(at) FROM explain_onset) AS onset,
       CASE WHEN f.w_records = 0 OR f.b_records = 0 OR f.segment IS NULL OR f.clear = 0 THEN NULL
            ELSE printf('%d %% of the %s is %s%s', CAST(round(100 * f.top_share) AS INTEGER),
                        CASE WHEN f.w_hits >= f.b_hits THEN 'increase' ELSE 'decrease' END,
                        coalesce(f.what, ''), CASE WHEN f.where_ IS NULL THEN '' WHEN f.what IS NULL THEN f.where_ ELSE ' on ' || f.where_ END) END AS headline,
       printf('pushlog report %s --since %s --until %s --by %s%s%s', CASE :metric WHEN 'gone' THEN 'gone' ELSE 'errors' END,
              rfc3339(CASE WHEN :baseline = 'previous' THEN f.b_lo ELSE f.w_lo END), rfc3339(f.w_hi), CASE WHEN f.step = 60000 THEN 'minute' ELSE '5m' END,
              coalesce((SELECT ' --topic ' || value FROM explain_top WHERE dimension = 'topic' AND value IS NOT NULL), ''),
              coalesce((SELECT ' --env ' || value FROM explain_top WHERE dimension = 'env' AND value IS NOT NULL), '')) AS over_time
FROM figures f;

-- section: segments
-- The values (size 1) and pairs of values (size 2) of the ranked dimensions that carry the
-- change, by score, from 0.05 up: a value whose share of the change is about its share of the
-- responses is not where the change is, only where the traffic is. A pair is listed only when
-- it scores 0.05 above both of its values alone (one alone does not explain it). At most
-- :limit singles and :limit pairs. Ranked by the score as printed (six places), so two scores
-- equal but for the last bits of their divisions fall back to size and segment.
WITH singles AS (
  SELECT * FROM explain_segments WHERE size = 1 AND min(contribution, 1) - traffic_share >= 0.05
  ORDER BY round(min(contribution, 1) - traffic_share, 6) DESC, segment LIMIT :limit
), pairs AS (
  SELECT p.* FROM explain_segments p
  WHERE p.size = 2 AND min(p.contribution, 1) - p.traffic_share >= 0.05
    AND min(p.contribution, 1) - p.traffic_share > 0.05 + (SELECT max(min(s.contribution, 1) - s.traffic_share) FROM explain_segments s
                                             WHERE s.size = 1 AND ((s.d1 = p.d1 AND s.v1 IS p.v1) OR (s.d1 = p.d2 AND s.v1 IS p.v2)))
  ORDER BY round(min(p.contribution, 1) - p.traffic_share, 6) DESC, p.segment LIMIT :limit
)
SELECT segment, dimension, value, w_hits AS window_count, b_hits AS baseline_count, change,
       round(contribution, 6) AS contribution, round(lift, 3) AS lift,
       round(window_rate, 6) AS window_rate, round(baseline_rate, 6) AS baseline_rate,
       round(min(contribution, 1) - traffic_share, 6) AS score
FROM (SELECT * FROM singles UNION ALL SELECT * FROM pairs)
ORDER BY score DESC, size, segment;

-- section: dimensions
-- Every dimension pushlog knows, and whether it was ranked: the ones the logs do not carry are
-- not observable (a dimension that is not ranked did not explain nothing: it was not seen).
SELECT dimension, status FROM explain_status ORDER BY ord;

-- section: onset
-- The onset bucket (a minute for windows of an hour or less, else 5 minutes; explain_stretch
-- says how it is found), its count and what the baseline expects there. For a drop in volume, each source with baseline records that went quiet (at most
-- half its baseline count, its last record before the window's last bucket) and its last record;
-- none when the sources are not comparable (a file per day against the week before).
SELECT 'onset' AS what, rfc3339(o.at) AS at, o.hits AS window_count, round(o.expected, 1) AS expected, NULL AS source, NULL AS line
FROM explain_onset o
UNION ALL
SELECT 'last record', rfc3339(x.last_t), x.w_hits, x.b_hits, x.source, (SELECT r.line FROM explain_records r WHERE r.source_id = x.source_id AND r.time_ms = x.last_t LIMIT 1)
FROM (
  SELECT r.source_id, r.source, max(r.time_ms) AS last_t, sum(r.in_window) AS w_hits, sum(1 - r.in_window) AS b_hits
  FROM explain_records r GROUP BY r.source_id
) x CROSS JOIN explain_periods p
WHERE :metric = 'volume' AND (SELECT status FROM explain_status WHERE dimension = 'source') = 'ranked' AND x.b_hits > 0 AND 2 * x.w_hits <= x.b_hits AND x.last_t < p.w_hi - p.step;

-- section: first_records
-- The window's first records of the top segment that the metric counts (for a decrease, its last
-- ones: where it stopped), with the command that traces each: by apns-id, else by token.
SELECT rfc3339(r.time_ms) AS time, r.apns_id, (SELECT token FROM tokens WHERE id = r.token_id) AS token,
       r.source, r.line, r.status, r.reason,
       'pushlog trace ' || coalesce(r.apns_id, (SELECT token FROM tokens WHERE id = r.token_id)) AS trace
FROM explain_records r CROSS JOIN explain_totals t
WHERE r.in_window = 1 AND r.hit = 1 AND r.id IN (SELECT id FROM explain_top_records)
ORDER BY CASE WHEN t.w_hits >= t.b_hits THEN r.time_ms ELSE -r.time_ms END, r.id
LIMIT 5;
