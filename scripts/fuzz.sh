#!/usr/bin/env bash
# fuzz.sh DURATION — run every Go fuzz target of the repository for DURATION
# each (e.g. 5s in make test, 60s in make fuzz). Needs DATABASE_URL only for
# targets that touch the database.
set -euo pipefail
cd "$(dirname "$0")/.."
dur="${1:-10s}"
fail=0
passed=0
failed=0
while IFS=: read -r file name; do
  pkg="./$(dirname "$file")"
  echo "fuzz: $pkg $name for $dur" >&2
  if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$dur" "$pkg" >/tmp/boolpool-fuzz.log 2>&1; then
    passed=$((passed + 1))
  else
    cat /tmp/boolpool-fuzz.log >&2
    fail=1
    failed=$((failed + 1))
  fi
done < <(git grep -n -E '^func Fuzz[A-Za-z0-9_]+\(' -- '*_test.go' | sed -E 's/^([^:]+):[0-9]+:func (Fuzz[A-Za-z0-9_]+)\(.*/\1:\2/' | sort -u)
echo "fuzz: $passed passed, $failed failed"
exit $fail
