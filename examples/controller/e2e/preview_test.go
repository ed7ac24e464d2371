package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/daemonplan/daemonplan/examples/dsplan/live/livecmd"
)

// dsplan runs kubectl dsplan (examples/dsplan/live/livecmd) in-process on this
// cluster, with a real client loading the admin's kubeconfig as kubectl
// would: the exit code, stdout and stderr.
func (c *cluster) dsplan(args ...string) (int, string, string) {
	var stdout, stderr syncBuffer
	return c.dsplanTo(&stdout, &stderr, args...), stdout.String(), stderr.String()
}

// dsplanTo is dsplan writing to the given streams.
func (c *cluster) dsplanTo(stdout, stderr *syncBuffer, args ...string) int {
	args = append(append([]string(nil), args...), "--kubeconfig", c.kubeconfigs[adminUser])
	return livecmd.Run(args, strings.NewReader(""), stdout, stderr)
}

// syncBuffer is a buffer one goroutine writes while another reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// preview is the part of "dsplan simulate -o json" (examples/dsplan/JSON.md)
// a scenario compares with what the cluster did.
type preview struct {
	DaemonSet string `json:"daemonSet"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason"`
	Duration  string `json:"duration"`
	Estimate  struct {
		Source      string `json:"source"`
		Pods        int    `json:"pods"`
		ReadyP50    string `json:"readyP50"`
		ReadyP90    string `json:"readyP90"`
		DurationP50 string `json:"durationP50"`
		DurationP90 string `json:"durationP90"`
	} `json:"estimate"`
	PlannedWaves []struct {
		Name     string   `json:"name"`
		Nodes    []string `json:"nodes"`
		Start    string   `json:"start"`
		Done     string   `json:"done"`
		Duration string   `json:"duration"`
	} `json:"plannedWaves"`
	WaveBake string `json:"waveBake"`
	Waves    []struct {
		At    string   `json:"at"`
		Nodes []string `json:"nodes"`
	} `json:"waves"`
	Rollout *struct {
		Annotations map[string]string `json:"annotations"`
		Strategy    string            `json:"strategy"`
	} `json:"rollout"`
	// Gates are what the run made of the canary, approval points, windows
	// and health gates.
	Gates *struct {
		Canary *struct {
			Nodes []string `json:"nodes"`
		} `json:"canary"`
		PauseAfter []string `json:"pauseAfter"`
		Waits      []struct {
			Cause string `json:"cause"`
			Wave  string `json:"wave"`
			Until string `json:"until"`
			For   string `json:"for"`
		} `json:"waits"`
		Stop *struct {
			Cause   string `json:"cause"`
			Signals []struct {
				Pod    string `json:"pod"`
				Node   string `json:"node"`
				Signal string `json:"signal"`
			} `json:"signals"`
		} `json:"stop"`
	} `json:"gates"`
	// raw is the DaemonSet's whole JSON object.
	raw string
}

// previewRollout runs "dsplan simulate -o json" in live mode for the
// DaemonSet with args (the template change to preview) and returns its
// preview. Exit code 3, a run that ended Blocked (the cluster's trouble
// or a health gate), prints its preview too.
func (c *cluster) previewRollout(name string, args ...string) preview {
	c.t.Helper()
	full := append([]string{"simulate", "-o", "json", "--daemonset", testNamespace + "/" + name}, args...)
	code, out, errOut := c.dsplan(full...)
	if code != 0 && code != 3 {
		c.t.Fatalf("dsplan %s: exit %d\n%s%s", strings.Join(full, " "), code, out, errOut)
	}
	var got []preview
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != 1 {
		c.t.Fatalf("dsplan %s: %v (%d DaemonSets)\n%s", strings.Join(full, " "), err, len(got), out)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		c.t.Fatalf("dsplan %s: %v\n%s", strings.Join(full, " "), err, out)
	}
	got[0].raw = string(raw[0])
	return got[0]
}

// waveOf maps each node to the index of its planned wave.
func (p preview) waveOf() map[string]int {
	out := map[string]int{}
	for i, w := range p.PlannedWaves {
		for _, n := range w.Nodes {
			out[n] = i
		}
	}
	return out
}

// startOrder is the order in which the simulation starts the nodes.
func (p preview) startOrder() []string {
	var out []string
	for _, w := range p.Waves {
		out = append(out, w.Nodes...)
	}
	return out
}

func parseDur(s string) time.Duration {
	d, _ := time.ParseDuration(s)
	return d
}

// statusRun is a "dsplan rollout status" running beside a scenario.
type statusRun struct {
	done chan struct{}
	code int
	// stdout and stderr are set once it has exited; out and errOut hold
	// what it has printed so far.
	stdout, stderr string
	out, errOut    syncBuffer
	took           time.Duration
}

// rolloutStatus starts "dsplan rollout status NS/NAME" in live mode with
// args; wait returns when it has exited.
func (c *cluster) rolloutStatus(name string, args ...string) *statusRun {
	r := &statusRun{done: make(chan struct{})}
	full := append([]string{"rollout", "status", testNamespace + "/" + name}, args...)
	start := time.Now()
	go func() {
		defer close(r.done)
		r.code = c.dsplanTo(&r.out, &r.errOut, full...)
		r.stdout, r.stderr = r.out.String(), r.errOut.String()
		r.took = time.Since(start)
	}()
	return r
}

// wait waits for the command to exit, at most timeout; false if it did not.
func (r *statusRun) wait(timeout time.Duration) bool {
	select {
	case <-r.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// waitOrFail is wait that, when the command has not exited within
// timeout, fails t with what it printed so far; after names what the
// wait began at, for the message.
func (r *statusRun) waitOrFail(t *testing.T, timeout time.Duration, after string) bool {
	t.Helper()
	if r.wait(timeout) {
		return true
	}
	t.Errorf("dsplan rollout status did not exit within %s of %s; it printed:\n%s%s", timeout, after, r.out.String(), r.errOut.String())
	return false
}

// waveObservation records, from the pod events, when each node was started
// (its old pod's deletion, read from the pod: deletionTimestamp less the
// grace period) and when its updated pod became available (Ready's
// lastTransitionTime plus minReadySeconds), as the API server recorded
// them.
type waveObservation struct {
	mu        sync.Mutex
	order     []string
	started   map[string]time.Time
	available map[string]time.Time
}

func newWaveObservation() *waveObservation {
	return &waveObservation{started: map[string]time.Time{}, available: map[string]time.Time{}}
}

// observedWaves groups the started nodes by zone in the order the zones
// started: the observed wave of each node.
func (o *waveObservation) observedWaves(zoneOf map[string]string) map[string]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	var zones []string
	for _, n := range o.order {
		if z := zoneOf[n]; !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	out := map[string]int{}
	for _, n := range o.order {
		out[n] = slices.Index(zones, zoneOf[n])
	}
	return out
}

// waveTimes returns, for the nodes of each wave, when the first started
// and when the last became available, relative to t0.
func (o *waveObservation) waveTimes(waves [][]string, t0 time.Time) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []string
	for _, w := range waves {
		var first, last time.Time
		for _, n := range w {
			if s, ok := o.started[n]; ok && (first.IsZero() || s.Before(first)) {
				first = s
			}
			if a, ok := o.available[n]; ok && a.After(last) {
				last = a
			}
		}
		out = append(out, fmt.Sprintf("start %s, done %s, takes %s", first.Sub(t0).Round(time.Second), last.Sub(t0).Round(time.Second),
			last.Sub(first).Round(time.Second)))
	}
	return out
}
