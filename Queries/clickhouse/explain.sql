-- title: Explain a change
-- description: What is different in a window against its baseline: for every dimension the
-- description: responses carry, each value's share of the metric's change and its lift; when
-- description: the metric left its baseline; the first records to trace (docs/explain.md).
-- description: ClickHouse version of Queries/explain.sql (same sections, columns and figures).
-- param: since  start of the window, {since:DateTime64(3)}; 1900-01-01 = open (no rows)
-- param: until  end of the window, exclusive, {until:DateTime64(3)}; 2299-12-31 = open (no rows)
-- param: metric enum(errors,gone,volume,throttled,latency) = errors  what changed, {metric:String}
-- param: baseline enum(previous,week) = previous  the same length before, or a week earlier, {baseline:String}
-- materialize: explain_records, explain_decided, explain_onset

-- common:
-- The method is pushlog's (Queries/explain.sql says why each step is what it is). The window's
-- and the baseline's records are read once per statement, into one array (a scalar subquery,
-- which the server computes once where a CTE runs again at each reference); the figures are
-- computed from it in a few steps (explain_groups, decisions, onset_state), each a scalar that
-- names the step before it once: a step named twice is planned twice, and so is everything under
-- it. Within a step, each stage is a subquery whose columns the next reads. The sections read
-- the steps through explain_records, explain_decided and explain_onset, which the runner makes
-- temporary tables once for all of them: planning the steps, not reading the records, is most of
-- a statement's time, and each section would plan them again.
-- A record in both periods (a window longer than a week against the week before) is a row of
-- each, as pushlog's UNION ALL makes it; pushlog joins its rows by record id, so in a pair a
-- record counts once per copy of the other, and its copies take part in the top segment's
-- match together. Ties pushlog breaks by record id (the order it stored them in) are broken by
-- source path and line.
pushlog_ms({since:DateTime64(3)}) AS w_lo, pushlog_ms({until:DateTime64(3)}) AS w_hi,
{metric:String} AS metric_name, {baseline:String} AS baseline_name,
toUInt8(w_lo < w_hi AND toInt128(w_hi) - w_lo <= 7948800000) AS valid,
if(baseline_name = 'week', w_lo - 604800000, 2 * w_lo - w_hi) AS b_lo,
if(baseline_name = 'week', w_hi - 604800000, w_lo) AS b_hi,
toInt64(multiIf(w_hi - w_lo <= 3600000, 60000, w_hi - w_lo <= 86400000, 300000, w_hi - w_lo <= 1209600000, 3600000, 86400000)) AS step_ms,
['reason', 'status', 'topic', 'env', 'push_type', 'priority', 'app_version', 'source', 'token_age'] AS dimension_names,
-- Every response of the window and of the baseline (transport failures too for errors), as
-- (time_ms, in_window, copies, hit, counted, dims, source, line, apns_id, token): hit and counted
-- as pushlog defines them; dims the value of each of dimension_names (NULL where it has none).
(SELECT groupArray(tuple(time_ms, in_window, copies, hit, counted, dims, source_path, line, apns_id, token)) FROM (
   SELECT s.time_ms AS time_ms, in_window, length(periods) AS copies,
          toUInt8(coalesce(multiIf(metric_name = 'errors', s.status IS NULL OR s.status <> 200, metric_name = 'gone', s.status = 410,
                                   metric_name = 'throttled', s.status = 429, metric_name = 'volume', 1, s.latency_ms > l.cut), 0)) AS hit,
          toUInt8(if(metric_name = 'latency', s.latency_ms IS NOT NULL, 1)) AS counted,
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
   -- The latency metric counts responses slower than the baseline's 95th percentile: the least
   -- latency whose percent rank is at least 0.95.
   CROSS JOIN (SELECT minIfOrNull(latency_ms, pr >= 0.95) AS cut FROM (
                 SELECT latency_ms, percent_rank() OVER (ORDER BY latency_ms) AS pr FROM pushlog.kept_sends
                 WHERE metric_name = 'latency' AND valid = 1 AND time_ms >= b_lo AND time_ms < b_hi AND kind IN ('send', 'response')
                   AND status IS NOT NULL AND latency_ms IS NOT NULL)) AS l
   ARRAY JOIN periods AS in_window
   WHERE valid = 1 AND ((s.time_ms >= w_lo AND s.time_ms < w_hi) OR (s.time_ms >= b_lo AND s.time_ms < b_hi))
     AND ((s.kind IN ('send', 'response') AND s.status IS NOT NULL) OR (metric_name = 'errors' AND s.category = 'transport')))) AS records,
explain_records AS (
  SELECT r.1 AS time_ms, toInt64(r.2) AS in_window, toInt64(r.3) AS copies, toInt64(r.4) AS hit, toInt64(r.5) AS counted, r.6 AS dims,
         r.7 AS source, r.8 AS line, r.9 AS apns_id, r.10 AS token
  FROM (SELECT arrayJoin(records) AS r)
),
-- One pass over the records groups everything pushlog counts, as (kind, reason, size, d1, v1, d2,
-- v2, window hits, baseline hits, window records, baseline records): kind 1 each dimension's
-- values; 2 every pair of dimensions but status (which are ranked is known later); 3 the hits of
-- every where-value (topic to token_age) and pair of them per reason, 4 the same over all reasons.
(SELECT groupArray((kind, reason, size, d1, v1, d2, v2, w_hits, b_hits, w_records, b_records)) FROM (
   SELECT k.1 AS kind, if(kind = 3, dims[1], NULL) AS reason, k.2 AS size, k.3 AS d1, k.4 AS v1, k.5 AS d2, k.6 AS v2,
          toInt64(sum(in_window * hit * k.7)) AS w_hits, toInt64(sum((1 - in_window) * hit * k.7)) AS b_hits,
          toInt64(sum(in_window * counted * k.7)) AS w_records, toInt64(sum((1 - in_window) * counted * k.7)) AS b_records
   FROM explain_records
   ARRAY JOIN arrayConcat(
     arrayMap(d -> (toUInt8(1), toUInt8(1), toUInt64(d), dims[d], toUInt64(0), CAST(NULL, 'Nullable(String)'), toInt64(1)), range(1, 10)),
     arrayFlatten(arrayMap(a -> arrayMap(b -> (toUInt8(2), toUInt8(2), toUInt64(a), dims[a], toUInt64(b), dims[b], copies),
                                         arrayFilter(b -> b > a AND b <> 2, range(1, 10))),
                           arrayFilter(a -> a <> 2, range(1, 10)))),
     arrayFlatten(arrayMap(kind -> arrayConcat(
         arrayMap(a -> (kind, toUInt8(1), toUInt64(a), dims[a], toUInt64(0), CAST(NULL, 'Nullable(String)'), toInt64(1)), range(3, 10)),
         arrayFlatten(arrayMap(a -> arrayMap(b -> (kind, toUInt8(2), toUInt64(a), dims[a], toUInt64(b), dims[b], copies), range(a + 1, 10)),
                               range(3, 10)))),
       if(hit = 1, [toUInt8(3), toUInt8(4)], [])))) AS k
   GROUP BY kind, reason, size, d1, v1, d2, v2)) AS explain_groups,
-- What pushlog decides from these: (totals, each dimension's status, the segments, the top
-- segment's (dimension, value) rows). A segment: (size, d1, v1, d2, v2, dimension, value,
-- segment, window hits, baseline hits, change, contribution, lift, window rate, baseline rate,
-- traffic share, score, window records).
(SELECT (totals, status, segments, top_rows) FROM (
   -- The top segment: its reason (what), then the where-value or pair that scores highest.
   SELECT *, arrayConcat(if(has_what, [(toUInt64(1), what_value)], []), if(has_where, [(best.1, best.2)], []),
                         if(has_where AND best.5 = 2, [(best.3, best.4)], [])) AS top_rows
   FROM (
     SELECT *, length(ranked_where) > 0 AS has_where, ranked_where[1].2 AS best
     FROM (
       -- Where: among the metric's records of that reason (all of them without one), each
       -- where-value or pair's share of the reason's change (at most 1) less its share of the
       -- window's records, from 0.2 up, by score, size and segment.
       SELECT *, arraySort(y -> (-y.1, y.2.5, y.2.6), arrayFilter(y -> coalesce(y.1 >= 0.2, 0), arrayMap(x -> (
                 if(isNull(1.0 * (x.8 - x.9) / nullIf(what_change, 0)), NULL, least(1.0 * (x.8 - x.9) / nullIf(what_change, 0), 1))
                   - 1.0 * arrayFirst(s -> s.1 = x.3 AND s.2 = x.4 AND isNotDistinctFrom(s.3, x.5) AND s.4 = x.6
                                            AND isNotDistinctFrom(s.5, x.7), segments).18 / nullIf(totals.3, 0),
                 (x.4, x.5, x.6, x.7, x.3,
                  if(x.3 = 1, concat(dimension_names[x.4], '=', coalesce(x.5, '(none)')),
                     concat(dimension_names[x.4], '=', coalesce(x.5, '(none)'), ', ', dimension_names[x.6], '=', coalesce(x.7, '(none)'))))),
               arrayFilter(x -> if(has_what, x.1 = 1 AND coalesce(x.2 = what_value, 0), x.1 = 0) AND has(where_dimensions, x.4)
                                AND (x.3 = 1 OR has(where_dimensions, x.6)), where_all_rows)))) AS ranked_where
       FROM (
         SELECT *, length(what_list) > 0 AS has_what, what_list[1].3 AS what_value,
                if(has_what, what_list[1].9 - what_list[1].10, totals.1 - totals.2) AS what_change
         FROM (
           -- What: the reason that carries most of the change (none for volume and latency).
           SELECT *, arraySort(s -> (-s.12, -s.9, isNotNull(s.3), ifNull(s.3, '')),
                               arrayFilter(s -> s.1 = 1 AND s.2 = 1 AND metric_name NOT IN ('volume', 'latency') AND coalesce(s.12 > 0, 0),
                                           segments)) AS what_list
           FROM (
             -- Each segment's figures.
             SELECT any(totals) AS totals, any(status) AS status, any(where_dimensions) AS where_dimensions,
                    any(where_all_rows) AS where_all_rows,
                    groupArrayIf((size, d1, v1, d2, v2, dimension, value, segment, w_hits, b_hits, w_hits - b_hits, contribution, lift,
                                  window_rate, baseline_rate, traffic_share, score, w_records), size > 0) AS segments
             FROM (
               SELECT totals, status, where_dimensions, where_all_rows, x.1 AS size, x.2 AS d1, x.3 AS v1, x.4 AS d2, x.5 AS v2,
                      if(size = 1, dimension_names[d1], concat(dimension_names[d1], ' × ', dimension_names[d2])) AS dimension,
                      if(size = 1, coalesce(v1, '(none)'), concat(coalesce(v1, '(none)'), ' × ', coalesce(v2, '(none)'))) AS value,
                      if(size = 1, concat(dimension, '=', value),
                         concat(dimension_names[d1], '=', coalesce(v1, '(none)'), ', ', dimension_names[d2], '=', coalesce(v2, '(none)')))
                        AS segment,
                      toUInt8(d1 <= 2) AS outcome, x.6 AS w_hits, x.7 AS b_hits, x.8 AS w_records, x.9 AS b_records,
                      1.0 * (w_hits - b_hits) / nullIf(totals.1 - totals.2, 0) AS contribution,
                      if(metric_name = 'volume', 1.0 * w_hits / nullIf(b_hits, 0),
                         (1.0 * w_hits / nullIf(if(outcome = 1, totals.3, w_records), 0))
                           / nullIf(1.0 * b_hits / nullIf(if(outcome = 1, totals.4, b_records), 0), 0)) AS lift,
                      1.0 * w_hits / nullIf(if(outcome = 1, totals.3, w_records), 0) AS window_rate,
                      1.0 * b_hits / nullIf(if(outcome = 1, totals.4, b_records), 0) AS baseline_rate,
                      1.0 * (w_records + b_records) / nullIf(totals.3 + totals.4, 0) AS traffic_share,
                      if(contribution IS NULL, NULL, least(contribution, 1)) - traffic_share AS score
               FROM (
                 -- The ranked dimensions' values, and the pairs of ranked dimensions (status aside).
                 SELECT *, arrayConcat(
                          arrayMap(s -> (toUInt8(1), s.1, s.2, toUInt64(0), CAST(NULL, 'Nullable(String)'), s.3, s.4, s.5, s.6),
                                   arrayFilter(s -> status[s.1] = 'ranked', singles)),
                          arrayMap(p -> (toUInt8(2), p.1, p.3, p.2, p.4, p.5, p.6, p.7, p.8),
                                   arrayFilter(p -> has(pair_dimensions, p.1) AND has(pair_dimensions, p.2), pairs_all_rows))) AS segment_rows,
                        arrayFilter(d -> status[d] = 'ranked' AND d <> 2, range(1, 10)) AS pair_dimensions,
                        arrayFilter(d -> status[d] = 'ranked' AND d > 2, range(1, 10)) AS where_dimensions
                 FROM (
                   -- Why each dimension is ranked or not, in the order of dimension_names.
                   SELECT totals, singles, pairs_all_rows, where_all_rows, arrayMap(d -> multiIf(
                            NOT arrayExists(x -> x.1 = d AND x.2 IS NOT NULL, singles), 'not observable: not in these logs',
                            d = 2 AND metric_name IN ('gone', 'throttled'), 'not ranked: the metric counts one status',
                            arrayCount(x -> x.1 = d, singles) = 1,
                            concat('not ranked: one value only (', coalesce(arrayFirst(x -> x.1 = d, singles).2, '(none)'), ')'),
                            NOT arrayExists(x -> x.1 = d AND x.5 > 0 AND x.6 > 0, singles), 'not ranked: no value in common with the baseline',
                            'ranked'), range(1, 10)) AS status
                   FROM (
                     -- The groups by kind: (dimension, value, figures); totals from the reasons, one per record.
                     SELECT (arraySum(arrayMap(g -> g.8, reasons)), arraySum(arrayMap(g -> g.9, reasons)), arraySum(arrayMap(g -> g.10, reasons)),
                             arraySum(arrayMap(g -> g.11, reasons))) AS totals,
                            arrayMap(g -> (g.4, g.5, g.8, g.9, g.10, g.11), arrayFilter(g -> g.1 = 1, groups)) AS singles,
                            arrayMap(g -> (g.4, g.6, g.5, g.7, g.8, g.9, g.10, g.11), arrayFilter(g -> g.1 = 2, groups)) AS pairs_all_rows,
                            arrayMap(g -> (toUInt8(g.1 = 3), g.2, g.3, g.4, g.5, g.6, g.7, g.8, g.9), arrayFilter(g -> g.1 >= 3, groups))
                              AS where_all_rows
                     FROM (SELECT groups, arrayFilter(g -> g.1 = 1 AND g.4 = 1, groups) AS reasons
                           FROM (SELECT explain_groups AS groups)))))
               LEFT ARRAY JOIN segment_rows AS x)))))))) AS decisions,
explain_decided AS (SELECT decisions AS decided),
-- The onset: the window's buckets with the top segment's hits (every hit without one), the
-- records and what the baseline expects, and the cumulative-sum change point of pushlog's
-- explain_stretch on them: (top segment's window hits, its baseline hits, bucket starts, bucket
-- hits, bucket expected, the onset's index in them or 0, the verdict 1 up, -1 down, 0 unclear).
(SELECT (top_window, top_baseline, bucket_starts, bucket_hits, bucket_expected, onset_index, clear, totals, top_rows, source_status) FROM (
  -- The stretch: from after the lowest point before it to where the gain since is the largest.
  SELECT *, arrayLastIndex((x, i) -> i <= stretch_finish AND x = lowest[stretch_finish], gains_before, arrayEnumerate(gains_before))
              AS stretch_start,
         arrayFold((acc, g) -> acc + g, arraySlice(gaps, stretch_start, stretch_finish - stretch_start + 1), 0.0) AS stretch_gap,
         arrayFold((acc, e) -> acc + e, arraySlice(bucket_expected, stretch_start, stretch_finish - stretch_start + 1), 0.0)
           AS stretch_expected,
         if(length(bucket_starts) > 0 AND clear <> 0 AND stretch_gap >= 5 AND stretch_gap * stretch_gap >= 9 * greatest(stretch_expected, 1),
            arrayFirstIndex((g, i) -> i >= stretch_start AND i <= stretch_finish AND g > 0, gaps, arrayEnumerate(gaps)), 0) AS onset_index
  FROM (
    SELECT *, arrayMap(i -> arrayMin(arraySlice(gains_before, 1, i)), arrayEnumerate(gains_before)) AS lowest,
           arrayMap((g, l) -> g - l, gains, lowest) AS rises, arrayFirstIndex(x -> x = arrayMax(rises), rises) AS stretch_finish
    FROM (
      -- Each bucket's excess less its allowance, summed in time order (gains), and the sum before it.
      SELECT *, arrayMap((g, e) -> g - greatest(0.5 + e / 20.0, mean_allowance), gaps, bucket_expected) AS step_gains,
             arrayCumSum(step_gains) AS gains, arrayMap((g, x) -> g - x, gains, step_gains) AS gains_before
      FROM (
        SELECT *, arrayMap((h, e) -> toFloat64(if(clear <> 0, clear, if(totals.1 >= totals.2, 1, -1)) * (h - e)), bucket_hits,
                           bucket_expected) AS gaps,
               0.5 * arrayFold((acc, g) -> acc + g, gaps, 0.0) / length(gaps) AS mean_allowance
        FROM (
          SELECT *, arrayMap((b, n) -> coalesce(if(metric_name = 'volume', 1.0 * onset_baseline * (least(b + step_ms, w_hi) - b) / (w_hi - w_lo),
                                                   n * 1.0 * onset_baseline / nullIf(totals.4, 0)), 0), bucket_starts, bucket_records)
                   AS bucket_expected,
                 -- Whether the metric moved beyond chance (a Poisson count: three standard deviations, and at least 5).
                 if(metric_name = 'volume', 1.0 * totals.2, totals.3 * 1.0 * totals.2 / nullIf(totals.4, 0)) AS expected_all,
                 multiIf(coalesce(totals.1 - expected_all >= 5
                                  AND (totals.1 - expected_all) * (totals.1 - expected_all) >= 9 * greatest(expected_all, 1), 0), 1,
                         coalesce(expected_all - totals.1 >= 5
                                  AND (totals.1 - expected_all) * (totals.1 - expected_all) >= 9 * greatest(expected_all, 1), 0), -1,
                         0) AS clear
          FROM (
            SELECT *, range(w_lo, if(valid = 1, w_hi, w_lo), step_ms) AS bucket_starts,
                   arrayMap(i -> if(indexOf(hit_map.1, i) = 0, toInt64(0), toInt64(hit_map.2[indexOf(hit_map.1, i)])),
                            range(toInt64(length(bucket_starts)))) AS bucket_hits,
                   arrayMap(i -> if(indexOf(record_map.1, i) = 0, toInt64(0), toInt64(record_map.2[indexOf(record_map.1, i)])),
                            range(toInt64(length(bucket_starts)))) AS bucket_records
            FROM (
              -- The top segment's hits, and every bucket's hits (of the top segment; of all without one) and records.
              SELECT any(decided_totals) AS totals, any(top_key) AS top_rows, any(decided_sources) AS source_status,
                     toInt64(sumIf(r_in_window * r_hit, is_top = 1)) AS top_window,
                     toInt64(sumIf((1 - r_in_window) * r_hit, is_top = 1)) AS top_baseline,
                     toInt64(sumIf(onset_hit, r_in_window = 0 AND r_copies > 0)) AS onset_baseline,
                     sumMapIf([bucket_index], [onset_hit], r_in_window = 1 AND r_copies > 0) AS hit_map,
                     sumMapIf([bucket_index], [r_counted], r_in_window = 1 AND r_copies > 0) AS record_map
              FROM (
                -- Every record, or one row of zeros when there is none (whatever the server's
                -- join_use_nulls makes of the row the join adds).
                SELECT decided_totals, decided_sources, top_key, coalesce(e.in_window, 0) AS r_in_window,
                       coalesce(e.copies, 0) AS r_copies, coalesce(e.hit, 0) AS r_hit, coalesce(e.counted, 0) AS r_counted,
                       length(top_key) AS top_size,
                       toUInt8(top_size > 0 AND r_copies * arrayCount(t -> isNotDistinctFrom(e.dims[t.1], t.2), top_key) = top_size) AS is_top,
                       toInt64(if(top_size = 0, r_hit, if(is_top = 1, r_hit, 0))) AS onset_hit,
                       toInt64(intDiv(coalesce(e.time_ms, w_lo) - w_lo, step_ms)) AS bucket_index
                FROM (SELECT decided.1 AS decided_totals, decided.2[8] AS decided_sources, decided.4 AS top_key FROM explain_decided) AS d
                LEFT JOIN explain_records AS e ON 1 = 1))))))))) AS onset_state,
explain_onset AS (SELECT onset_state AS onset)

-- section: summary
-- One row: the metric in the window and the baseline, the verdict, the top segment, the onset,
-- the headline when the change is clear and the report that shows the segment over time.
SELECT metric_name AS metric, pushlog_rfc3339(w_lo) AS since, pushlog_rfc3339(w_hi) AS until, baseline_name AS baseline,
       pushlog_rfc3339(b_lo) AS baseline_since, pushlog_rfc3339(b_hi) AS baseline_until,
       totals.1 AS window_count, totals.2 AS baseline_count, totals.1 - totals.2 AS change, totals.3 AS window_records,
       totals.4 AS baseline_records, pushlog_round(1.0 * totals.1 / nullIf(totals.3, 0), 6) AS window_rate,
       pushlog_round(1.0 * totals.2 / nullIf(totals.4, 0), 6) AS baseline_rate,
       multiIf(clear = 1, 'increase', clear = -1, 'decrease', 'no clear change') AS verdict,
       if(length(top_rows) = 0, NULL,
          arrayStringConcat(arrayMap(t -> concat(dimension_names[t.1], '=', coalesce(t.2, '(none)')), top_rows), ', ')) AS top_segment,
       pushlog_round(top_share_exact, 6) AS top_share, top_window, top_baseline,
       if(onset_index = 0, NULL, pushlog_rfc3339(bucket_starts[onset_index])) AS onset,
       if(totals.3 = 0 OR totals.4 = 0 OR length(top_rows) = 0 OR clear = 0, NULL,
          concat(toString(coalesce(toInt64(pushlog_round(100 * top_share_exact, 0)), 0)), ' % of the ',
                 if(totals.1 >= totals.2, 'increase', 'decrease'), ' is ', coalesce(what_text, ''),
                 multiIf(length(where_parts) = 0, '', what_text IS NULL, arrayStringConcat(where_parts, ', '),
                         concat(' on ', arrayStringConcat(where_parts, ', '))))) AS headline,
       concat('pushlog report ', if(metric_name = 'gone', 'gone', 'errors'), ' --since ',
              pushlog_rfc3339(if(baseline_name = 'previous', b_lo, w_lo)), ' --until ', pushlog_rfc3339(w_hi), ' --by ',
              if(step_ms = 60000, 'minute', '5m'),
              coalesce(concat(' --topic ', arrayFirst(t -> t.1 = 3, top_rows).2), ''),
              coalesce(concat(' --env ', arrayFirst(t -> t.1 = 4, top_rows).2), '')) AS over_time
FROM (
  SELECT *, 1.0 * (top_window - top_baseline) / nullIf(totals.1 - totals.2, 0) AS top_share_exact,
         arrayMap(t -> if(t.1 = 3, coalesce(t.2, '(none)'), concat(dimension_names[t.1], ' ', coalesce(t.2, '(none)'))),
                  arrayFilter(t -> t.1 <> 1, top_rows)) AS where_parts,
         if(length(top_rows) > 0 AND top_rows[1].1 = 1, coalesce(top_rows[1].2, '(none)'), NULL) AS what_text
  FROM (SELECT onset.8 AS totals, onset.9 AS top_rows, onset.1 AS top_window, onset.2 AS top_baseline, onset.3 AS bucket_starts,
               onset.6 AS onset_index, onset.7 AS clear
        FROM explain_onset))
WHERE valid = 1;

-- section: segments
-- The values and pairs of values that carry the change, by score from 0.05 up; a pair only when
-- it scores 0.05 above both of its values alone. At most {limit} singles and {limit} pairs,
-- ranked by the score as printed (ties fall back to size and segment).
SELECT segment, dimension, value, window_count, baseline_count, change,
       pushlog_round(contribution, 6) AS contribution, pushlog_round(lift, 3) AS lift,
       pushlog_round(window_rate, 6) AS window_rate, pushlog_round(baseline_rate, 6) AS baseline_rate,
       pushlog_round(score, 6) AS score
FROM (
  SELECT *, row_number() OVER (PARTITION BY size ORDER BY pushlog_round(score, 6) DESC, segment) AS place
  FROM (
    SELECT x.1 AS size, x.6 AS dimension, x.7 AS value, x.8 AS segment, x.9 AS window_count, x.10 AS baseline_count, x.11 AS change,
           x.12 AS contribution, x.13 AS lift, x.14 AS window_rate, x.15 AS baseline_rate, x.17 AS score,
           -- A pair's values alone: the better of their scores.
           if(size = 1, NULL, arrayMax(arrayMap(s -> coalesce(s.17, -inf), arrayFilter(
             s -> s.1 = 1 AND ((s.2 = x.2 AND isNotDistinctFrom(s.3, x.3)) OR (s.2 = x.4 AND isNotDistinctFrom(s.3, x.5))), segments))))
             AS alone
    FROM (SELECT decided.3 AS segments FROM explain_decided) ARRAY JOIN segments AS x)
  WHERE score >= 0.05 AND (size = 1 OR score > 0.05 + alone))
WHERE place <= {limit:Int64}
ORDER BY score DESC, size, segment;

-- section: dimensions
-- Every dimension pushlog knows, and whether it was ranked.
SELECT dimension_names[d] AS dimension, status[d] AS status
FROM (SELECT decided.2 AS status FROM explain_decided) ARRAY JOIN range(1, 10) AS d
ORDER BY d;

-- section: onset
-- The onset bucket, its count and what the baseline expects there; for a drop in volume, each
-- source with baseline records that went quiet and its last record (sources in path order).
SELECT r.1 AS what, r.2 AS at, r.3 AS window_count, r.4 AS expected, r.5 AS source, r.6 AS line
FROM (
  SELECT arrayConcat(
           if(onset.6 > 0, [('onset', pushlog_rfc3339(onset.3[onset.6]), onset.4[onset.6], pushlog_round(onset.5[onset.6], 1),
                             CAST(NULL, 'Nullable(String)'), CAST(NULL, 'Nullable(UInt64)'))], []),
           if(metric_name = 'volume' AND onset.10 = 'ranked',
              arrayMap(x -> ('last record', pushlog_rfc3339(x.2), x.3, toFloat64(x.4), toNullable(x.1), toNullable(x.5)),
                       arrayFilter(x -> x.4 > 0 AND 2 * x.3 <= x.4 AND x.2 < w_hi - step_ms, arraySort(x -> x.1, sources))), [])) AS found
  FROM explain_onset AS o
  CROSS JOIN (
    -- Each source's last record, and its records in the window and in the baseline.
    SELECT groupArray((source, last_t, w_n, b_n, last_line)) AS sources FROM (
      SELECT source, max(time_ms) AS last_t, toInt64(sum(in_window)) AS w_n, toInt64(sum(1 - in_window)) AS b_n,
             argMax(line, (time_ms, -toInt64(line))) AS last_line
      FROM explain_records GROUP BY source)) AS q)
ARRAY JOIN found AS r;

-- section: first_records
-- The window's first records of the top segment that the metric counts (for a decrease, its last
-- ones), with the command that traces each: by apns-id, else by token.
SELECT pushlog_rfc3339(time_ms) AS time, apns_id, token, source, line, dims[2] AS status, dims[1] AS reason,
       concat('pushlog trace ', coalesce(apns_id, token)) AS trace
FROM (
  SELECT e.*, d.totals AS totals,
         toUInt8(length(d.top_rows) > 0 AND copies * arrayCount(t -> isNotDistinctFrom(dims[t.1], t.2), d.top_rows) = length(d.top_rows)) AS is_top
  FROM explain_records AS e CROSS JOIN (SELECT decided.1 AS totals, decided.4 AS top_rows FROM explain_decided) AS d)
WHERE in_window = 1 AND hit = 1 AND is_top = 1
ORDER BY if(totals.1 >= totals.2, time_ms, -time_ms), source, line
LIMIT 5;
