package e2e

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
)

// syncStats are a controller's syncs, read from its /metrics: how many,
// and the histogram of their durations.
type syncStats struct {
	// count and sum of the sync-duration histogram.
	count uint64
	sum   float64
	// buckets are the cumulative counts by upper bound, ascending.
	buckets []bucket
}

type bucket struct {
	le    float64
	count uint64
}

// The metrics each controller's syncs are read from. The example has its
// own histogram; kube-controller-manager's DaemonSet controller (v1.36 and v1.37) has
// no sync metric of its own (only daemonset_controller_stale_sync_skips_total),
// so its syncs are its work queue's items: workqueue_work_duration_seconds
// of the queue named "daemonset" (every key the controller processed, a
// sync that returned at once included, as the example's histogram counts
// its own), with decade buckets (1e-8 s … 10 s).
const (
	exampleSyncMetric  = "daemonplan_controller_sync_duration_seconds"
	upstreamSyncMetric = "workqueue_work_duration_seconds"
	upstreamQueueName  = "daemonset"
)

// syncStats scrapes the sync statistics of the controller process p, the
// example (serving /metrics over HTTP on its --metrics-addr) or
// kube-controller-manager (over HTTPS on its --secure-port, authenticated as
// controllerUser, a member of system:masters).
func (c *cluster) syncStats(p *process) syncStats {
	c.t.Helper()
	var url, metric string
	client := http.DefaultClient
	if addr := flagValue(p, "--metrics-addr"); addr != "" {
		url, metric = "http://"+addr+"/metrics", exampleSyncMetric
	} else if port := flagValue(p, "--secure-port"); port != "" {
		cfg := c.restConfig(controllerUser, 10, 10)
		hc, err := rest.HTTPClientFor(cfg)
		if err != nil {
			c.t.Fatalf("metrics client: %v", err)
		}
		client, url, metric = hc, "https://127.0.0.1:"+port+"/metrics", upstreamSyncMetric
	} else {
		c.t.Fatalf("%s serves no metrics the test knows of", p.name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		c.t.Fatalf("metrics of %s: %v", p.name, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		c.t.Fatalf("metrics of %s: %v", p.name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		c.t.Fatalf("metrics of %s: %s: %s", p.name, resp.Status, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		c.t.Fatalf("metrics of %s: %v", p.name, err)
	}
	h := findHistogram(families[metric], metric == upstreamSyncMetric)
	if h == nil {
		// No sync yet: the example registers its histogram at start, the
		// work queue's appears with its first item.
		return syncStats{}
	}
	s := syncStats{count: h.GetSampleCount(), sum: h.GetSampleSum()}
	for _, b := range h.GetBucket() {
		s.buckets = append(s.buckets, bucket{le: b.GetUpperBound(), count: b.GetCumulativeCount()})
	}
	return s
}

// findHistogram returns the histogram of f, the one of the queue
// upstreamQueueName when byQueue, or nil.
func findHistogram(f *dto.MetricFamily, byQueue bool) *dto.Histogram {
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		if !byQueue {
			return m.GetHistogram()
		}
		for _, l := range m.GetLabel() {
			if l.GetName() == "name" && l.GetValue() == upstreamQueueName {
				return m.GetHistogram()
			}
		}
	}
	return nil
}

// flagValue returns the value of the --name=value argument of p, or "".
func flagValue(p *process, name string) string {
	for _, a := range p.cmd.Args[1:] {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// since returns the syncs of s that came after before.
func (s syncStats) since(before syncStats) syncStats {
	out := syncStats{count: s.count - before.count, sum: s.sum - before.sum}
	for i, b := range s.buckets {
		if i < len(before.buckets) && before.buckets[i].le == b.le {
			b.count -= before.buckets[i].count
		}
		out.buckets = append(out.buckets, b)
	}
	return out
}

// bound returns the upper bound of the bucket that holds the q-quantile of
// the syncs: the true quantile is at most that. +Inf when it lies beyond
// the last bucket; 0 without syncs.
func (s syncStats) bound(q float64) float64 {
	if s.count == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(s.count)))
	for _, b := range s.buckets {
		if b.count >= rank {
			return b.le
		}
	}
	return math.Inf(1)
}

// mean is the average sync duration in seconds.
func (s syncStats) mean() float64 {
	if s.count == 0 {
		return 0
	}
	return s.sum / float64(s.count)
}

// String renders the count, the mean and the bounds of p50, p90 and p99.
func (s syncStats) String() string {
	if s.count == 0 {
		return "0"
	}
	return fmt.Sprintf("%d, mean %s, p50/p90/p99 ≤ %s/%s/%s", s.count, seconds(s.mean()), seconds(s.bound(0.5)), seconds(s.bound(0.9)), seconds(s.bound(0.99)))
}

// seconds renders a duration given in seconds compactly.
func seconds(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return time.Duration(v * float64(time.Second)).Round(time.Microsecond).String()
}
