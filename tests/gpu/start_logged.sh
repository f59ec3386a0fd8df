# Sourced by run_parts.sh and sanitize.sh, which run several programs at once and then report each.
# start_logged OUT COMMAND [ARG ...]: runs the command in the background; its process id goes to
# OUT.pid (so that it can be stopped), its output to OUT.log, its exit code to OUT.status and the
# seconds it took to OUT.seconds. `wait` then waits for all.
start_logged() {
  local out=$1
  shift
  (
    start=$SECONDS
    "$@" >"$out.log" 2>&1 &
    echo $! >"$out.pid"
    wait $!
    code=$?
    echo $((SECONDS - start)) >"$out.seconds"
    echo $code >"$out.status.new" && mv "$out.status.new" "$out.status"  # written last, and whole
  ) &
}
