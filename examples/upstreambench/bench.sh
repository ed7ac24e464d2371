#!/usr/bin/env bash
# bench.sh runs daemonplan beside kube-controller-manager v1.37.2's DaemonSet
# controller, round by round, and summarises with benchstat (BENCHMARKS.md,
# "2026-12-02: against kube-controller-manager 1.37").
#
#   ./bench.sh [rounds [outdir]]     rounds: default 6; outdir: default a new temporary directory
#   WITH_136=1 ./bench.sh ...        also upstream v1.36.3's full sync, in every round
#
# Each round runs upstream's own BenchmarkUpdateDaemonSetStatus (its test
# binary, built from the module cache) and then this module's benchmarks
# (BENCH selects them, default all), each benchmark once, so that the two
# sides alternate through the run instead of one binary's six counts
# following the other's. uptime is logged before every round. Upstream's
# lines are renamed BenchmarkStatusShape/.../impl=upstream-1.37.2 (and their
# pkg line this module's) so that benchstat -col /impl puts them beside
# daemonplan's; upstream-raw.txt keeps them as printed.
#
# WITH_136=1 builds this module's files a second time, in outdir/v136,
# against k8s.io/kubernetes v1.36.3 (staging modules v0.36.3) and the
# library as of 74845e5 (the last commit on k8s.io/api v0.36), and runs its
# BenchmarkSync upstream rows (impl=upstream-1.36.3) in every round too.
set -euo pipefail
cd "$(dirname "$0")"
rounds=${1:-6}
out=${2:-$(mktemp -d)}
bench=${BENCH:-.}
mkdir -p "$out"
go test -c -o "$out/harness.test" .
go test -c -o "$out/upstream.test" k8s.io/kubernetes/pkg/controller/daemon
if [[ ${WITH_136:-} == 1 ]]; then
	v136=$out/v136
	rm -rf "$v136"
	mkdir -p "$v136/harness" "$v136/daemonplan"
	git -C ../.. archive 74845e5 | tar -x -C "$v136/daemonplan"
	cp ./*.go go.sum "$v136/harness/"
	sed -e 's#k8s.io/kubernetes v1.37.2#k8s.io/kubernetes v1.36.3#' -e 's#v0\.37\.2#v0.36.3#g' \
		-e 's#=> \.\./\.\.$#=> ../daemonplan#' go.mod >"$v136/harness/go.mod"
	(cd "$v136/harness" && go mod tidy &&
		go test -c -o "$out/upstream136.test" \
			-ldflags '-X github.com/daemonplan/daemonplan/examples/upstreambench.upstreamVersion=1.36.3' .)
fi
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
	if [[ ${WITH_136:-} == 1 ]]; then
		"$out/upstream136.test" -test.run '^$' -test.bench 'BenchmarkSync/.*/.*/impl=upstream' -test.benchmem >>"$out/bench.txt"
	fi
done
echo "end $(date -u +%FT%TZ) $(uptime)" | tee -a "$out/load.txt"
go run golang.org/x/perf/cmd/benchstat@latest -col /impl "$out/bench.txt" | tee "$out/benchstat.txt"
echo "results in $out"
