package app

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/google/go-cmp/cmp"

	"github.com/daemonplan/daemonplan/examples/controller/internal/controller"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    options
		wantErr bool
	}{
		{
			name: "defaults",
			want: options{mode: ModeReplace, workers: 2, burstReplicas: 250, leaseNamespace: "kube-system", leaseName: "daemonplan-controller", metricsAddr: ":8080", qps: 50, burst: 100, statusInterval: controller.DefaultStatusWriteInterval, syncSpacing: syncer.DefaultSyncSpacing, contentType: protobuf},
		},
		{
			name: "all set",
			args: []string{"--mode", "companion", "--kubeconfig", "/k", "--workers", "5", "--burst-replicas", "10", "--leader-elect", "--metrics-addr", "127.0.0.1:0", "--status-write-interval", "-1s", "--sync-spacing", "5", "--kube-api-content-type", "application/json", "--profiling"},
			want: options{mode: ModeCompanion, kubeconfig: "/k", workers: 5, burstReplicas: 10, leaderElect: true, leaseNamespace: "kube-system", leaseName: "daemonplan-controller", metricsAddr: "127.0.0.1:0", qps: 50, burst: 100, statusInterval: -time.Second, syncSpacing: 5, contentType: "application/json", profiling: true},
		},
		{name: "unknown mode", args: []string{"--mode", "beside"}, wantErr: true},
		{name: "zero workers", args: []string{"--workers", "0"}, wantErr: true},
		{name: "negative burst", args: []string{"--burst-replicas", "-1"}, wantErr: true},
		{name: "unknown flag", args: []string{"--nope"}, wantErr: true},
		{name: "an argument that is not a flag", args: []string{"--workers", "3", "replace"}, wantErr: true},
		{name: "unknown content type", args: []string{"--kube-api-content-type", "json"}, wantErr: true},
		{name: "profiling without a metrics server", args: []string{"--profiling", "--metrics-addr", ""}, wantErr: true},
		{
			name: "version",
			args: []string{"--version"},
			want: options{mode: ModeReplace, workers: 2, burstReplicas: 250, leaseNamespace: "kube-system", leaseName: "daemonplan-controller", metricsAddr: ":8080", qps: 50, burst: 100, statusInterval: controller.DefaultStatusWriteInterval, syncSpacing: syncer.DefaultSyncSpacing, contentType: protobuf, version: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseFlags(tt.args)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(options{})); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}

func TestServeHealthzAndMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "daemonplan_controller_test_total", Help: "test"})
	reg.MustRegister(c)
	c.Inc()
	reg.MustRegister(newBuildInfoGauge(build()))
	srv, addr, err := serve(context.Background(), "127.0.0.1:0", reg, true, fixedReadiness{true, "ok: caches synced"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tt := range []struct{ path, want string }{
		{"/healthz", "ok"},
		{"/readyz", "ok: caches synced"},
		{"/metrics", "daemonplan_controller_test_total 1"},
		{"/metrics", `daemonplan_controller_build_info{goversion="` + runtime.Version() + `",revision="`},
		{"/debug/pprof/cmdline", ""}, // with --profiling
	} {
		resp, err := http.Get("http://" + addr.String() + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tt.want) {
			t.Errorf("GET %s = %d %q, want 200 containing %q", tt.path, resp.StatusCode, body, tt.want)
		}
	}
}
