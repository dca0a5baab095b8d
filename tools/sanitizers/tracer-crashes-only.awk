# Reads ctest's Testing/Temporary/LastTest.log. Exits 0 when every failed test failed only because
# LeakSanitizer's own tracer crashed at exit ("Tracer caught signal": its stop-the-world thread,
# google/sanitizers#1353, not a finding) after the test's body passed, printing their names; exits
# 1 when any failure is anything else (a finding, a failed check, a timeout) or nothing failed.
# Used by scripts/sanitize.sh to rerun those tests once, so that their leak check still runs.
/^[0-9]+\/[0-9]+ Test: / { name = $0; sub(/^[0-9]+\/[0-9]+ Test: /, "", name); tracer = 0; other = 0; passed = 0 }
/Tracer caught signal/ { tracer = 1 }
/^\[  PASSED  \]|^Totals: [0-9]+ passed, 0 failed/ { passed = 1 }
/ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|^\[  FAILED  \]/ { other = 1 }
/^Test Failed\.|^Test Failed\b|^\*\*\*Timeout|^Test time.*Timeout/ {
    if (tracer && passed && !other) { crashed[++n] = name } else { bad = 1 }
}
END {
    if (bad || n == 0) exit 1
    for (i = 1; i <= n; ++i) print crashed[i]
    exit 0
}
