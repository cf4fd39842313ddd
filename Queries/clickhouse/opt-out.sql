-- title: Opt-out after opt-in
-- description: Of the units (devices or users) that opted in to notifications, how many later
-- description: turned them off, how fast, and how each weekly opt-in cohort held up.
-- description: ClickHouse version of Queries/opt-out.sql (same sections, columns and labels).
-- param: since  start of the range (units by opt-in time), {since:DateTime64(3)}; 1900-01-01 = open
-- param: until  end of the range, exclusive, {until:DateTime64(3)}; 2299-12-31 = open
-- param: unit=device  device or user, {unit:String}

-- section: summary
-- Observations are the auth of register and settings records (the device facts). A device opts
-- in at its first authorized observation and turns off at its first later denied one. A user opts
-- in when its first device does and turns off when a device that had opted in turns off.
-- uninstalled: opted-in units not turned off whose last token got a 410 and was not registered
-- again after the 410's timestamp. provisional: units whose first decided observation is provisional.
-- The units' facts are kept (pushlog.kept_unit_facts, facts.sql): they depend on the history alone.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
u AS (
  SELECT opt_in AS unit_opt_in, off AS unit_off, last_gone, fd_t AS unit_fd_t, fd_provisional,
         coalesce(unit_opt_in >= since AND unit_opt_in < until, 0) AS in_range
  FROM pushlog.kept_unit_facts WHERE unit_kind = pushlog_unit_kind({unit:String})
)
SELECT countIf(in_range = 1) AS opted_in, countIf(in_range = 1 AND unit_off IS NOT NULL) AS turned_off,
       if(opted_in = 0, NULL, pushlog_round(turned_off / opted_in, 6)) AS turned_off_share,
       pushlog_round(quantileExactInclusiveIf(0.5)((unit_off - unit_opt_in) / 86400000.0, in_range = 1 AND unit_off IS NOT NULL), 3) AS median_days_to_off,
       countIf(in_range = 1 AND unit_off IS NULL AND last_gone = 1) AS uninstalled,
       countIf(fd_provisional = 1 AND unit_fd_t >= since AND unit_fd_t < until) AS provisional
FROM u;

-- section: by_cohort
-- cohort: ISO week of opt-in. opted_in, turned_off: units of the cohort (additive across cohorts).
-- still_on_7d_share / still_on_30d_share: of the cohort's units whose opt-in is at least 7 / 30
-- days before the end of the data (or of --until, when earlier), the share not turned off within
-- 7 / 30 days of opting in. Younger units are right-censored and left out (eligible_7d /
-- eligible_30d count the units used); a cohort with no eligible unit has no value (null), never 0.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until,
(SELECT least(until, hi) FROM pushlog.kept_data_span) AS data_end,
units AS (
  SELECT opt_in, off FROM pushlog.kept_unit_facts WHERE unit_kind = pushlog_unit_kind({unit:String})
), c AS (
  SELECT pushlog_bucket_start(opt_in, 'week') AS w, opt_in, off,
         coalesce(off IS NOT NULL AND off < opt_in + 7 * 86400000, 0) AS off7, opt_in + 7 * 86400000 <= data_end AS eligible7,
         coalesce(off IS NOT NULL AND off < opt_in + 30 * 86400000, 0) AS off30, opt_in + 30 * 86400000 <= data_end AS eligible30
  FROM units WHERE opt_in >= since AND opt_in < until
)
SELECT pushlog_iso_week(w) AS cohort, count() AS opted_in, countIf(off IS NOT NULL) AS turned_off,
       pushlog_round(countIf(off IS NOT NULL) / count(), 6) AS turned_off_share,
       if(countIf(eligible7) = 0, NULL, pushlog_round(countIf(eligible7 AND NOT off7) / countIf(eligible7), 6)) AS still_on_7d_share,
       countIf(eligible7) AS eligible_7d,
       if(countIf(eligible30) = 0, NULL, pushlog_round(countIf(eligible30 AND NOT off30) / countIf(eligible30), 6)) AS still_on_30d_share,
       countIf(eligible30) AS eligible_30d
FROM c GROUP BY w ORDER BY w;

-- section: turn_off_rate
-- An age-invariant rate for a period [since, until): units opted in and still on at its start
-- (opt-in before since, not turned off before since) = on_at_start; of those, the units that
-- turned off during the period = turned_off; turn_off_rate = turned_off / on_at_start. Units that
-- opted in during the period are not in it. Without --since it has no value.
WITH pushlog_ms({since:DateTime64(3)}) AS since, pushlog_ms({until:DateTime64(3)}) AS until
SELECT count() AS on_at_start, countIf(off < until) AS turned_off,
       if(on_at_start = 0, NULL, pushlog_round(turned_off / on_at_start, 6)) AS turn_off_rate
FROM (
  SELECT opt_in, off FROM pushlog.kept_unit_facts WHERE unit_kind = pushlog_unit_kind({unit:String})
)
WHERE opt_in < since AND (off IS NULL OR off >= since);
