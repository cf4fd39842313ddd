-- title: Explain a change
-- description: What is different in a window against its baseline: for every dimension the
-- description: responses carry, each value's share of the metric's change and its lift; when
-- description: the metric left its baseline; the first records to trace (docs/explain.md).
-- description: ClickHouse version of Queries/explain.sql (same sections, columns and figures).
-- param: since  start of the window, {since:DateTime64(3)}; 1900-01-01 = open (no rows)
-- param: until  end of the window, exclusive, {until:DateTime64(3)}; 2299-12-31 = open (no rows)
-- param: metric enum(errors,gone,volume,throttled,latency) = errors  what changed, {metric:String}
-- param: baseline enum(previous,week) = previous  the same length before, or a week earlier, {baseline:String}

-- common:
-- The method is pushlog's (Queries/explain.sql says why each step is what it is). The window's
-- and the baseline's records are read once, into one array (a scalar subquery, which the server
-- computes once per statement where a CTE runs again at each reference); every later step reads
-- that array or the small arrays made from it. A record in both periods (a window longer than a
-- week against the week before) is a row of each, as pushlog's UNION ALL makes it; pushlog then
-- joins its rows by record id, so a pair of its values counts once per copy of the other, and
-- the copies take part in the top segment's match together (copies below). Ties that pushlog
-- breaks by record id (the order it stored them in) are broken by source path and line.
pushlog_ms({since:DateTime64(3)}) AS w_lo, pushlog_ms({until:DateTime64(3)}) AS w_hi,
{metric:String} AS metric_name, {baseline:String} AS baseline_name,
toUInt8(w_lo < w_hi AND w_hi - w_lo <= 7948800000) AS valid,
if(baseline_name = 'week', w_lo - 604800000, 2 * w_lo - w_hi) AS b_lo,
if(baseline_name = 'week', w_hi - 604800000, w_lo) AS b_hi,
toInt64(multiIf(w_hi - w_lo <= 3600000, 60000, w_hi - w_lo <= 86400000, 300000, w_hi - w_lo <= 1209600000, 3600000, 86400000)) AS step_ms,
['reason', 'status', 'topic', 'env', 'push_type', 'priority', 'app_version', 'source', 'token_age'] AS dimension_names,
-- The latency metric: each response's latency (the records hold it), and the baseline's 95th
-- percentile (the least latency whose percent rank is at least 0.95).
latencies AS (
  SELECT time_ms, line_hash, any(latency_ms) AS latency FROM pushlog.records
  WHERE metric_name = 'latency' AND valid = 1 AND kind IN ('send', 'response') AND status IS NOT NULL AND latency_ms IS NOT NULL
    AND ((time_ms >= w_lo AND time_ms < w_hi) OR (time_ms >= b_lo AND time_ms < b_hi))
  GROUP BY time_ms, line_hash
),
(SELECT minOrNull(latency) FROM (
   SELECT latency, percent_rank() OVER (ORDER BY latency) AS pr FROM latencies WHERE time_ms >= b_lo AND time_ms < b_hi)
 WHERE pr >= 0.95) AS latency_cut,
-- Every response of the window and of the baseline (transport failures too for errors): its
-- time, period (1 the window), copies (2 when in both), hit and counted as pushlog defines them,
-- its value of each dimension (NULL where it has none), and what first_records shows.
(SELECT groupArray(tuple(time_ms, in_window, copies, hit, counted, dims, source_path, line, apns_id, token)) FROM (
   SELECT s.time_ms AS time_ms, in_window, length(periods) AS copies,
          toUInt8(coalesce(multiIf(metric_name = 'errors', s.status IS NULL OR s.status <> 200, metric_name = 'gone', s.status = 410,
                                   metric_name = 'throttled', s.status = 429, metric_name = 'volume', 1, l.latency > latency_cut), 0)) AS hit,
          toUInt8(if(metric_name = 'latency', l.latency IS NOT NULL, 1)) AS counted,
          [coalesce(CAST(s.reason, 'Nullable(String)'), s.error, if(s.status = 200, '(accepted)', NULL)),
           coalesce(toString(s.status), 'no response'), CAST(s.topic, 'Nullable(String)'), CAST(s.env, 'Nullable(String)'),
           CAST(s.push_type, 'Nullable(String)'), toString(s.priority), CAST(s.reg_app_version, 'Nullable(String)'),
           toNullable(toString(s.source)),
           multiIf(f.first_reg IS NULL OR f.first_reg > s.time_ms, NULL, s.time_ms - f.first_reg < 3600000, 'under 1 h',
                   s.time_ms - f.first_reg < 86400000, '1 h to 1 d', s.time_ms - f.first_reg < 604800000, '1 d to 7 d',
                   s.time_ms - f.first_reg < 2592000000, '7 d to 30 d', '30 d or more')] AS dims,
          toString(s.source) AS source_path, s.line AS line, s.apns_id AS apns_id, nullIf(s.token, '') AS token,
          arrayFilter(p -> if(p = 1, s.time_ms >= w_lo AND s.time_ms < w_hi, s.time_ms >= b_lo AND s.time_ms < b_hi), [1, 0]) AS periods
   FROM pushlog.kept_sends AS s
   LEFT JOIN (SELECT token, first_reg FROM pushlog.kept_token_facts
              WHERE token IN (SELECT token FROM pushlog.kept_sends
                              WHERE (time_ms >= w_lo AND time_ms < w_hi) OR (time_ms >= b_lo AND time_ms < b_hi))) AS f ON f.token = s.token
   LEFT JOIN latencies AS l ON l.time_ms = s.time_ms AND l.line_hash = s.line_hash
   ARRAY JOIN periods AS in_window
   WHERE valid = 1 AND ((s.time_ms >= w_lo AND s.time_ms < w_hi) OR (s.time_ms >= b_lo AND s.time_ms < b_hi))
     AND ((s.kind IN ('send', 'response') AND s.status IS NOT NULL) OR (metric_name = 'errors' AND s.category = 'transport')))) AS records,
explain_records AS (
  SELECT r.1 AS time_ms, toInt64(r.2) AS in_window, toInt64(r.3) AS copies, toInt64(r.4) AS hit, toInt64(r.5) AS counted, r.6 AS dims,
         r.7 AS source, r.8 AS line, r.9 AS apns_id, r.10 AS token
  FROM (SELECT arrayJoin(records) AS r)
),
(SELECT (toInt64(sum(in_window * hit)), toInt64(sum((1 - in_window) * hit)), toInt64(sum(in_window * counted)),
         toInt64(sum((1 - in_window) * counted))) FROM explain_records) AS totals,
totals.1 AS t_w_hits, totals.2 AS t_b_hits, totals.3 AS t_w_records, totals.4 AS t_b_records,
-- Each dimension's values: (dimension, value, window hits, baseline hits, window records, baseline records).
(SELECT groupArray((d, v, w_hits, b_hits, w_records, b_records)) FROM (
   SELECT d, dims[d] AS v, sum(in_window * hit) AS w_hits, sum((1 - in_window) * hit) AS b_hits, sum(in_window * counted) AS w_records,
          sum((1 - in_window) * counted) AS b_records
   FROM explain_records ARRAY JOIN range(1, 10) AS d GROUP BY d, v)) AS singles,
-- Why each dimension is ranked or not, in the order of dimension_names.
(SELECT arrayMap(d -> multiIf(
  NOT arrayExists(x -> x.1 = d AND x.2 IS NOT NULL, singles), 'not observable: not in these logs',
  d = 2 AND metric_name IN ('gone', 'throttled'), 'not ranked: the metric counts one status',
  arrayCount(x -> x.1 = d, singles) = 1,
  concat('not ranked: one value only (', coalesce(arrayFirst(x -> x.1 = d, singles).2, '(none)'), ')'),
  NOT arrayExists(x -> x.1 = d AND x.5 > 0 AND x.6 > 0, singles), 'not ranked: no value in common with the baseline',
  'ranked'), range(1, 10))) AS dimension_status,
(SELECT arrayFilter(d -> dimension_status[d] = 'ranked' AND d <> 2, range(1, 10))) AS pair_dimensions,
(SELECT arrayFilter(d -> dimension_status[d] = 'ranked' AND d > 2, range(1, 10))) AS where_dimensions,
-- Pairs of ranked dimensions (status aside), each record counted once per copy of the other.
(SELECT groupArray((d1, d2, v1, v2, w_hits, b_hits, w_records, b_records)) FROM (
   SELECT p.1 AS d1, p.2 AS d2, dims[d1] AS v1, dims[d2] AS v2, sum(in_window * hit * copies) AS w_hits,
          sum((1 - in_window) * hit * copies) AS b_hits, sum(in_window * counted * copies) AS w_records,
          sum((1 - in_window) * counted * copies) AS b_records
   FROM explain_records
   ARRAY JOIN arrayFlatten(arrayMap(a -> arrayMap(b -> (a, b), arrayFilter(b -> b > a, pair_dimensions)), pair_dimensions)) AS p
   GROUP BY d1, d2, v1, v2)) AS pairs,
-- Singles and pairs with their figures (the columns of pushlog's explain_segments).
explain_segments AS (
  SELECT x.*, w_hits - b_hits AS change, 1.0 * (w_hits - b_hits) / nullIf(t_w_hits - t_b_hits, 0) AS contribution,
         if(metric_name = 'volume', 1.0 * w_hits / nullIf(b_hits, 0),
            (1.0 * w_hits / nullIf(if(outcome = 1, t_w_records, w_records), 0))
              / nullIf(1.0 * b_hits / nullIf(if(outcome = 1, t_b_records, b_records), 0), 0)) AS lift,
         1.0 * w_hits / nullIf(if(outcome = 1, t_w_records, w_records), 0) AS window_rate,
         1.0 * b_hits / nullIf(if(outcome = 1, t_b_records, b_records), 0) AS baseline_rate,
         1.0 * (w_records + b_records) / nullIf(t_w_records + t_b_records, 0) AS traffic_share,
         if(contribution IS NULL, NULL, least(contribution, 1)) - traffic_share AS score
  FROM (
    SELECT 1 AS size, s.1 AS d1, s.2 AS v1, toUInt64(0) AS d2, CAST(NULL, 'Nullable(String)') AS v2, dimension_names[d1] AS dimension,
           coalesce(v1, '(none)') AS value, concat(dimension, '=', value) AS segment, toUInt8(d1 <= 2) AS outcome,
           toInt64(s.3) AS w_hits, toInt64(s.4) AS b_hits, toInt64(s.5) AS w_records, toInt64(s.6) AS b_records
    FROM (SELECT arrayJoin(singles) AS s) WHERE dimension_status[s.1] = 'ranked'
    UNION ALL
    SELECT 2, p.1, p.3, p.2, p.4, concat(dimension_names[p.1], ' × ', dimension_names[p.2]),
           concat(coalesce(p.3, '(none)'), ' × ', coalesce(p.4, '(none)')),
           concat(dimension_names[p.1], '=', coalesce(p.3, '(none)'), ', ', dimension_names[p.2], '=', coalesce(p.4, '(none)')),
           toUInt8(p.1 <= 2), toInt64(p.5), toInt64(p.6), toInt64(p.7), toInt64(p.8)
    FROM (SELECT arrayJoin(pairs) AS p)
  ) AS x
),
-- The top segment's what: the reason that carries most of the change (none for volume and
-- latency), as (found, value).
(SELECT (count() > 0, any(v1)) FROM (
   SELECT v1 FROM explain_segments
   WHERE size = 1 AND d1 = 1 AND metric_name NOT IN ('volume', 'latency') AND contribution > 0
   ORDER BY contribution DESC, w_hits DESC, v1 ASC NULLS FIRST LIMIT 1)) AS top_what,
-- Its where: among the records the metric counts of that reason, the where-value or pair that
-- scores highest, from 0.2 up, as (found, size, d1, v1, d2, v2).
(SELECT (count() > 0, any(size), any(d1), any(v1), any(d2), any(v2)) FROM (
   SELECT k.1 AS size, k.2 AS d1, k.3 AS v1, k.4 AS d2, k.5 AS v2,
          if(size = 1, concat(dimension_names[d1], '=', coalesce(v1, '(none)')),
             concat(dimension_names[d1], '=', coalesce(v1, '(none)'), ', ', dimension_names[d2], '=', coalesce(v2, '(none)'))) AS segment,
          toInt64(sumIf(in_window * if(size = 2, copies, 1), what_hit = 1)) AS w_hits,
          toInt64(sumIf((1 - in_window) * if(size = 2, copies, 1), what_hit = 1)) AS b_hits,
          toInt64(sum(in_window * counted * if(size = 2, copies, 1))) AS segment_w_records,
          (1.0 * (w_hits - b_hits)) / nullIf(what_change, 0) AS share,
          if(share IS NULL, NULL, least(share, 1)) - 1.0 * segment_w_records / nullIf(t_w_records, 0) AS where_score
   FROM (SELECT *, toUInt8(hit = 1 AND (NOT top_what.1 OR coalesce(dims[1] = top_what.2, 0))) AS what_hit FROM explain_records)
   ARRAY JOIN arrayConcat(
     arrayMap(a -> (toUInt8(1), a, dims[a], toUInt64(0), CAST(NULL, 'Nullable(String)')), where_dimensions),
     arrayFlatten(arrayMap(a -> arrayMap(b -> (toUInt8(2), a, dims[a], b, dims[b]), arrayFilter(b -> b > a, where_dimensions)),
                           where_dimensions))) AS k
   CROSS JOIN (SELECT toInt64(sum(2 * in_window - 1)) AS what_change FROM explain_records
               WHERE hit = 1 AND (NOT top_what.1 OR coalesce(dims[1] = top_what.2, 0)) AND length(where_dimensions) > 0) AS c
   GROUP BY size, d1, v1, d2, v2, what_change
   HAVING countIf(what_hit = 1) > 0 AND where_score >= 0.2
   ORDER BY where_score DESC, size, segment LIMIT 1)) AS top_where,
-- The top segment: its (dimension, value) rows, the reason first.
(SELECT arrayConcat(if(top_what.1, [(toUInt64(1), top_what.2)], []), if(top_where.1, [(toUInt64(top_where.3), top_where.4)], []),
                    if(top_where.1 AND top_where.2 = 2, [(toUInt64(top_where.5), top_where.6)], []))) AS top_rows,
-- A record is in the top segment when its rows (one per dimension and copy) that match the
-- segment's rows are as many as they (pushlog's count per record id).
explain_top_records AS (
  SELECT *, if(length(top_rows) = 0, hit, if(is_top, hit, 0)) AS onset_hit FROM (
    SELECT *, toUInt8(length(top_rows) > 0 AND copies * arrayCount(t -> isNotDistinctFrom(dims[t.1], t.2), top_rows) = length(top_rows)) AS is_top
    FROM explain_records)
),
(SELECT (toInt64(sumIf(in_window * hit, is_top = 1)), toInt64(sumIf((1 - in_window) * hit, is_top = 1)),
         toInt64(sumIf(onset_hit, in_window = 0))) FROM explain_top_records) AS top_counts,
-- Whether the metric moved beyond chance: 1 up, -1 down, 0 no clear change.
(SELECT if(metric_name = 'volume', 1.0 * t_b_hits, t_w_records * 1.0 * t_b_hits / nullIf(t_b_records, 0))) AS total_expected,
(SELECT tuple(multiIf(coalesce(t_w_hits - total_expected >= 5
                 AND (t_w_hits - total_expected) * (t_w_hits - total_expected) >= 9 * greatest(total_expected, 1), 0), 1,
        coalesce(total_expected - t_w_hits >= 5
                 AND (t_w_hits - total_expected) * (t_w_hits - total_expected) >= 9 * greatest(total_expected, 1), 0), -1,
        0))).1 AS clear,
-- The window's buckets with the top segment's hits, the records and what the baseline expects.
(SELECT if(valid = 1, range(w_lo, w_hi, step_ms), [])) AS bucket_starts,
(SELECT (groupArray(b), groupArray(hits), groupArray(counted_records)) FROM (
   SELECT w_lo + intDiv(time_ms - w_lo, step_ms) * step_ms AS b, toInt64(sum(onset_hit)) AS hits, toInt64(sum(counted)) AS counted_records
   FROM explain_top_records WHERE in_window = 1 GROUP BY b)) AS bucket_sums,
(SELECT arrayMap(b -> if(indexOf(bucket_sums.1, b) = 0, 0, bucket_sums.2[indexOf(bucket_sums.1, b)]), bucket_starts)) AS bucket_hits,
(SELECT arrayMap(b -> if(indexOf(bucket_sums.1, b) = 0, 0, bucket_sums.3[indexOf(bucket_sums.1, b)]), bucket_starts)) AS bucket_records,
(SELECT arrayMap((b, n) -> coalesce(if(metric_name = 'volume', 1.0 * top_counts.3 * (least(b + step_ms, w_hi) - b) / (w_hi - w_lo),
                                          n * 1.0 * top_counts.3 / nullIf(t_b_records, 0)), 0), bucket_starts, bucket_records))
  AS bucket_expected,
-- The onset: the cumulative-sum change point of pushlog's explain_stretch, on these arrays.
(SELECT arrayMap((h, e) -> toFloat64(assumeNotNull(if(clear <> 0, clear, if(t_w_hits >= t_b_hits, 1, -1)) * (h - e))), bucket_hits,
                 bucket_expected)) AS gaps,
(SELECT tuple(0.5 * arrayFold((acc, g) -> acc + g, gaps, 0.0) / length(gaps))).1 AS mean_allowance,
(SELECT arrayMap((g, e) -> g - greatest(0.5 + e / 20.0, assumeNotNull(mean_allowance)), gaps, bucket_expected)) AS step_gains,
(SELECT arrayCumSum(step_gains)) AS gains,
(SELECT arrayMap((g, s) -> g - s, gains, step_gains)) AS gains_before,
(SELECT arrayMap(i -> arrayMin(arraySlice(gains_before, 1, i)), arrayEnumerate(gains_before))) AS lowest,
(SELECT arrayFirstIndex(x -> x = arrayMax(arrayMap((g, l) -> g - l, gains, lowest)), arrayMap((g, l) -> g - l, gains, lowest)))
  AS stretch_finish,
(SELECT arrayLastIndex((x, i) -> i <= stretch_finish AND x = lowest[stretch_finish], gains_before, arrayEnumerate(gains_before)))
  AS stretch_start,
(SELECT (arrayFold((acc, g) -> acc + g, arraySlice(gaps, stretch_start, stretch_finish - stretch_start + 1), 0.0),
         arrayFold((acc, e) -> acc + e, arraySlice(bucket_expected, stretch_start, stretch_finish - stretch_start + 1), 0.0)))
  AS stretch,
(SELECT if(length(bucket_starts) > 0 AND clear <> 0 AND stretch.1 >= 5 AND stretch.1 * stretch.1 >= 9 * greatest(stretch.2, 1),
           arrayFirstIndex((g, i) -> i >= stretch_start AND i <= stretch_finish AND g > 0, gaps, arrayEnumerate(gaps)), 0))
  AS onset_index

-- section: summary
-- One row: the metric in the window and the baseline, the verdict, the top segment, the onset,
-- the headline when the change is clear and the report that shows the segment over time.
WITH 1.0 * (top_counts.1 - top_counts.2) / nullIf(t_w_hits - t_b_hits, 0) AS top_share_exact,
     arrayMap(t -> if(dimension_names[t.1] = 'topic', coalesce(t.2, '(none)'), concat(dimension_names[t.1], ' ', coalesce(t.2, '(none)'))),
              arrayFilter(t -> t.1 <> 1, top_rows)) AS where_parts,
     if(top_what.1, coalesce(top_what.2, '(none)'), NULL) AS what_text
SELECT metric_name AS metric, pushlog_rfc3339(w_lo) AS since, pushlog_rfc3339(w_hi) AS until, baseline_name AS baseline,
       pushlog_rfc3339(b_lo) AS baseline_since, pushlog_rfc3339(b_hi) AS baseline_until,
       t_w_hits AS window_count, t_b_hits AS baseline_count, t_w_hits - t_b_hits AS change,
       t_w_records AS window_records, t_b_records AS baseline_records,
       pushlog_round(1.0 * t_w_hits / nullIf(t_w_records, 0), 6) AS window_rate,
       pushlog_round(1.0 * t_b_hits / nullIf(t_b_records, 0), 6) AS baseline_rate,
       multiIf(clear = 1, 'increase', clear = -1, 'decrease', 'no clear change') AS verdict,
       if(length(top_rows) = 0, NULL, arrayStringConcat(arrayMap(t -> concat(dimension_names[t.1], '=', coalesce(t.2, '(none)')), top_rows), ', '))
         AS top_segment,
       pushlog_round(top_share_exact, 6) AS top_share, top_counts.1 AS top_window, top_counts.2 AS top_baseline,
       if(onset_index = 0, NULL, pushlog_rfc3339(bucket_starts[onset_index])) AS onset,
       if(t_w_records = 0 OR t_b_records = 0 OR length(top_rows) = 0 OR clear = 0, NULL,
          concat(toString(coalesce(toInt64(pushlog_round(100 * top_share_exact, 0)), 0)), ' % of the ',
                 if(t_w_hits >= t_b_hits, 'increase', 'decrease'), ' is ', coalesce(what_text, ''),
                 multiIf(length(where_parts) = 0, '', what_text IS NULL, arrayStringConcat(where_parts, ', '),
                         concat(' on ', arrayStringConcat(where_parts, ', '))))) AS headline,
       concat('pushlog report ', if(metric_name = 'gone', 'gone', 'errors'), ' --since ',
              pushlog_rfc3339(if(baseline_name = 'previous', b_lo, w_lo)), ' --until ', pushlog_rfc3339(w_hi), ' --by ',
              if(step_ms = 60000, 'minute', '5m'),
              coalesce(concat(' --topic ', arrayFirst(t -> t.1 = 3, top_rows).2), ''),
              coalesce(concat(' --env ', arrayFirst(t -> t.1 = 4, top_rows).2), '')) AS over_time
FROM (SELECT 1) WHERE valid = 1;

-- section: segments
-- The values and pairs of values that carry the change, by score from 0.05 up; a pair only when
-- it scores 0.05 above both of its values alone. At most {limit} singles and {limit} pairs.
WITH (SELECT groupArray((d1, v1, score)) FROM explain_segments WHERE size = 1) AS single_scores
SELECT segment, dimension, value, w_hits AS window_count, b_hits AS baseline_count, change,
       pushlog_round(contribution, 6) AS contribution, pushlog_round(lift, 3) AS lift,
       pushlog_round(window_rate, 6) AS window_rate, pushlog_round(baseline_rate, 6) AS baseline_rate,
       pushlog_round(score, 6) AS score
FROM (
  SELECT * FROM (SELECT * FROM explain_segments WHERE size = 1 AND score >= 0.05 ORDER BY score DESC, segment LIMIT {limit:Int64})
  UNION ALL
  SELECT * FROM (
    SELECT * FROM explain_segments
    WHERE size = 2 AND score >= 0.05
      AND score > 0.05 + arrayMax(arrayMap(s -> coalesce(s.3, -inf),
                                           arrayFilter(s -> (s.1 = d1 AND isNotDistinctFrom(s.2, v1)) OR (s.1 = d2 AND isNotDistinctFrom(s.2, v2)),
                                                       single_scores)))
    ORDER BY score DESC, segment LIMIT {limit:Int64})
)
ORDER BY score DESC, size, segment;

-- section: dimensions
-- Every dimension pushlog knows, and whether it was ranked.
SELECT dimension_names[d] AS dimension, dimension_status[d] AS status FROM (SELECT arrayJoin(range(1, 10)) AS d) ORDER BY d;

-- section: onset
-- The onset bucket, its count and what the baseline expects there; for a drop in volume, each
-- source with baseline records that went quiet and its last record (sources in path order).
SELECT what, at, window_count, expected, source, line FROM (
  SELECT 0 AS k, '' AS path, 'onset' AS what, pushlog_rfc3339(bucket_starts[onset_index]) AS at,
         bucket_hits[onset_index] AS window_count, pushlog_round(bucket_expected[onset_index], 1) AS expected,
         CAST(NULL, 'Nullable(String)') AS source, CAST(NULL, 'Nullable(UInt64)') AS line
  WHERE onset_index > 0
  UNION ALL
  SELECT 1, source, 'last record', pushlog_rfc3339(last_t), w_n, toFloat64(b_n), source, last_line FROM (
    SELECT source, max(time_ms) AS last_t, toInt64(sum(in_window)) AS w_n, toInt64(sum(1 - in_window)) AS b_n,
           argMax(line, (time_ms, -toInt64(line))) AS last_line
    FROM explain_records GROUP BY source)
  WHERE metric_name = 'volume' AND dimension_status[8] = 'ranked' AND b_n > 0 AND 2 * w_n <= b_n AND last_t < w_hi - step_ms
)
ORDER BY k, path;

-- section: first_records
-- The window's first records of the top segment that the metric counts (for a decrease, its last
-- ones), with the command that traces each: by apns-id, else by token.
SELECT pushlog_rfc3339(time_ms) AS time, apns_id, token, source, line, dims[2] AS status, dims[1] AS reason,
       concat('pushlog trace ', coalesce(apns_id, token)) AS trace
FROM explain_top_records
WHERE in_window = 1 AND hit = 1 AND is_top = 1
ORDER BY if(t_w_hits >= t_b_hits, time_ms, -time_ms), source, line
LIMIT 5;
