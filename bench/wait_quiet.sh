# Sourced by the benchmark scripts (bench/run_all.sh, bench/serve/run.sh):
# wait_quiet waits until /proc/stat shows under 5% CPU use for 3 seconds in
# a row, at most $QUIET_MAX seconds (0: no wait), and prints "quiet after
# N s" or "not quiet after N s": the machine is shared, and a figure means
# little without it.
wait_quiet() {
  local quiet=0 waited=0 cpu user nice sys idle iowait irq softirq steal rest busy total
  read -r cpu user nice sys idle iowait irq softirq steal rest </proc/stat
  local prev_busy=$((user + nice + sys + irq + softirq + steal))
  local prev_total=$((prev_busy + idle + iowait))
  while ((quiet < 3 && waited < QUIET_MAX)); do
    sleep 1
    waited=$((waited + 1))
    read -r cpu user nice sys idle iowait irq softirq steal rest </proc/stat
    busy=$((user + nice + sys + irq + softirq + steal))
    total=$((busy + idle + iowait))
    if (((busy - prev_busy) * 100 < 5 * (total - prev_total))); then quiet=$((quiet + 1)); else quiet=0; fi
    prev_busy=$busy prev_total=$total
  done
  if ((quiet >= 3 || QUIET_MAX == 0)); then echo "quiet after $waited s"; else echo "not quiet after $waited s"; fi
}
