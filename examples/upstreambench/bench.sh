#!/usr/bin/env bash
# bench.sh runs daemonplan beside kube-controller-manager v1.37.2's DaemonSet
# controller, round by round, and summarises with benchstat (BENCHMARKS.md,
# "2026-12-02: against kube-controller-manager 1.37").
#
#   ./bench.sh [rounds [outdir]]     rounds: default 6; outdir: default a new temporary directory
#
# Each round runs upstream's own BenchmarkUpdateDaemonSetStatus (its test
# binary, built from the module cache) and then this module's benchmarks
# (BENCH selects them, default all), each benchmark once, so that the two
# sides alternate through the run instead of one binary's six counts
# following the other's. uptime is logged before every round. Upstream's
# lines are renamed BenchmarkStatusShape/.../impl=upstream-1.37.2 (and their
# pkg line this module's) so that benchstat -col /impl puts them beside
# daemonplan's; upstream-raw.txt keeps them as printed.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-6}
out=${2:-$(mktemp -d)}
bench=${BENCH:-.}
mkdir -p "$out"
go test -c -o "$out/harness.test" .
go test -c -o "$out/upstream.test" k8s.io/kubernetes/pkg/controller/daemon
: >"$out/bench.txt"
: >"$out/upstream-raw.txt"
: >"$out/load.txt"
for i in $(seq "$rounds"); do
	echo "round $i $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/load.txt"
	"$out/upstream.test" -test.run '^$' -test.bench '^BenchmarkUpdateDaemonSetStatus$' -test.benchmem |
		tee -a "$out/upstream-raw.txt" |
		sed -E -e 's#^BenchmarkUpdateDaemonSetStatus/(affinity=[^/]+/nodes=[0-9]+)(-[0-9]+)?([[:space:]])#BenchmarkStatusShape/\1/impl=upstream-1.37.2\2\3#' \
			-e 's#^pkg: k8s.io/kubernetes/pkg/controller/daemon$#pkg: github.com/daemonplan/daemonplan/examples/upstreambench#' >>"$out/bench.txt"
	"$out/harness.test" -test.run '^$' -test.bench "$bench" -test.benchmem >>"$out/bench.txt"
done
echo "end $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/load.txt"
go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$out/bench.txt" | tee "$out/benchstat.txt"
echo "results in $out"
