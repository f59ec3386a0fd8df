#!/usr/bin/env bash
# run_parts.sh tested without a GPU, on a fake test program whose parts pass, fail, are skipped or
# hang as their spec says: the exit code follows the worst part, every part's output is printed, and
# a failing part stops a part that would run for minutes (a hung part then fails the test at once).
#
# usage: run_parts_test.sh RUN_PARTS_SCRIPT
set -uo pipefail
script=$1
fake=$(mktemp)
trap 'rm -f "$fake"' EXIT
cat >"$fake" <<'FAKE'
#!/usr/bin/env bash
echo "part $1 ran"
case $1 in
  pass) exit 0 ;;
  skip) exit 77 ;;
  fail) sleep 1; exit 1 ;;
  long) exec sleep 120 ;;  # exec: stopping the part stops the sleep, nothing is left behind
esac
FAKE
chmod +x "$fake"

status=0
# expect CODE MAX_SECONDS SPEC...: run_parts.sh on these parts exits CODE within MAX_SECONDS and prints each part's output
expect() {
  local want=$1 max=$2 out code start=$SECONDS spec
  shift 2
  out=$(bash "$script" "$fake" "$@" 2>&1)
  code=$?
  local took=$((SECONDS - start)) bad=""
  [ "$code" = "$want" ] || bad+=" exit $code, not $want;"
  [ "$took" -le "$max" ] || bad+=" took $took s, more than $max;"
  for spec in "$@"; do
    grep -q "^part $spec ran\$" <<<"$out" || bad+=" the output of part $spec not printed;"
  done
  if [ -z "$bad" ]; then
    echo "ok    parts $*: exit $code in $took s"
  else
    echo "FAIL  parts $*:$bad"; echo "$out"; status=1
  fi
}

expect 0 10 pass pass
expect 77 10 pass skip
expect 1 10 pass fail skip
expect 1 10 long fail     # the long part is stopped when the other fails
expect 1 10 fail long long
exit $status
