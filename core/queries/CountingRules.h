#pragma once

// What counts, as SQL: the fragments every query that counts outcomes uses, so that the runs
// table, the batch summary, ranking, calibration and fidelity read a run alike. Each expands to
// a string literal (use it between the parts of a query's text); `r` is the alias of the run.

// A judgment's or validation's attempt `a` is the run's latest attempt: a killed or taken-over
// attempt judged another rollout, and never counts.
#define KOSMOS_SQL_LATEST_ATTEMPT(a, r)                                                            \
    " " #a ".attempt_no = (SELECT MAX(latest.attempt_no) FROM attempts latest"                     \
    " WHERE latest.run_id = " #r ".run_id) "

// A label `h` counts unless it is a world's ground truth (physics, synthetic_reference) written
// before the run's latest attempt began: such a label was left by an attempt that never ended
// (killed, abandoned), in ledgers written before ground truth was recorded with the attempt's end.
#define KOSMOS_SQL_LABEL_COUNTS(h, r)                                                              \
    " (" #h ".source NOT IN ('physics', 'synthetic_reference') OR " #h ".labeled_at_ms >="         \
    " (SELECT latest.started_at_ms FROM attempts latest WHERE latest.run_id = " #r ".run_id"       \
    " ORDER BY latest.attempt_no DESC LIMIT 1)) "
