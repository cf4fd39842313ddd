#!/usr/bin/env python3
"""Copies Queries/hygiene.sql's common block (without its comments) into the provider_hygiene
section of Queries/weekly.sql, with the range starting a week earlier, so the weekly page's
hygiene block keeps the hygiene report's definitions. The binary embeds Queries/ at the next build.
HygieneTests.testWeeklyBlockCopiesTheHygieneDefinitions fails when the two differ."""
import os

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
hygiene = open(os.path.join(root, "Queries/hygiene.sql")).read()
common = hygiene.split("-- common:\n", 1)[1].split("\n-- section:", 1)[0]
code = "\n".join(l for l in common.split("\n") if not l.strip().startswith("--")).strip()
weeks, rest = code.split("\n", 1)
assert weeks.startswith("weeks(wk, lo, hi) AS (SELECT 0,"), "hygiene.sql's common block must start with weeks"
rest = rest.replace(":since", "(:since - 604800000)")

path = os.path.join(root, "Queries/weekly.sql")
weekly = open(path).read()
head = "WITH weeks(wk, lo, hi) AS (SELECT 0, :since - 604800000, :since UNION ALL SELECT 1, :since, :until),\n"
start = weekly.index(head, weekly.index("-- section: provider_hygiene")) + len(head)
end = weekly.index(",\nper_week AS (", start)
open(path, "w").write(weekly[:start] + rest + weekly[end:])
print("updated Queries/weekly.sql")
