package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/controller/internal/controller"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// protobuf is the Kubernetes protobuf media type, jsonType JSON's: the
// content types --kube-api-content-type takes.
const (
	protobuf = "application/vnd.kubernetes.protobuf"
	jsonType = "application/json"
)

// options are the command-line flags.
type options struct {
	mode            Mode
	kubeconfig      string
	master          string
	workers         int
	burstReplicas   int
	leaderElect     bool
	leaseNamespace  string
	leaseName       string
	metricsAddr     string
	resync          time.Duration
	qps             float64
	burst           int
	comparisonGates bool
	statusInterval  time.Duration
	syncSpacing     int
	contentType     string
	profiling       bool
	version         bool
}

func parseFlags(args []string) (options, error) {
	var o options
	var mode string
	fs := flag.NewFlagSet("controller", flag.ContinueOnError)
	fs.StringVar(&mode, "mode", string(ModeReplace), "replace: be the cluster's DaemonSet controller (kube-controller-manager's must be off); companion: run beside kube-controller-manager and roll out only OnDelete DaemonSets with rollout.daemonplan.io/ annotations, by deleting old pods")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "path to a kubeconfig; empty means in-cluster configuration")
	fs.StringVar(&o.master, "master", "", "address of the API server, overriding the kubeconfig's")
	fs.IntVar(&o.workers, "workers", 2, "DaemonSets synced at once (kube-controller-manager's --concurrent-daemonset-syncs)")
	fs.IntVar(&o.burstReplicas, "burst-replicas", daemon.DefaultBurstReplicas, "most pod creates, and deletes, per DaemonSet sync")
	fs.BoolVar(&o.leaderElect, "leader-elect", false, "take a Lease before running, so that only one replica acts")
	fs.StringVar(&o.leaseNamespace, "leader-elect-namespace", "kube-system", "namespace of the leader-election Lease")
	fs.StringVar(&o.leaseName, "leader-elect-name", "daemonplan-controller", "name of the leader-election Lease")
	fs.StringVar(&o.metricsAddr, "metrics-addr", ":8080", "address serving /healthz, /readyz and /metrics; empty disables it")
	fs.DurationVar(&o.resync, "resync", 0, "informer resync period; 0 disables resyncs")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "queries per second to the API server")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "burst of queries to the API server")
	fs.IntVar(&o.syncSpacing, "sync-spacing", syncer.DefaultSyncSpacing, "space the syncs of one DaemonSet by this many times its last plan's duration (at most 1s), so that planning it takes at most about 1/N of a core however fast its pods change; negative syncs on every event")
	fs.StringVar(&o.contentType, "kube-api-content-type", protobuf, "content type of requests to the API server: "+protobuf+" (kube-controller-manager's default, several times cheaper to decode than JSON) or "+jsonType)
	fs.BoolVar(&o.profiling, "profiling", false, "serve Go's profiles under /debug/pprof/ on --metrics-addr")
	fs.BoolVar(&o.comparisonGates, "taint-toleration-comparison-operators", false, "enable the Gt and Lt toleration operators (feature gate TaintTolerationComparisonOperators)")
	fs.DurationVar(&o.statusInterval, "status-write-interval", controller.DefaultStatusWriteInterval, "replace mode: least time between two status writes of a DaemonSet that only move its counters while pods change (a new generation and a settled status are written at once); negative writes every change")
	fs.BoolVar(&o.version, "version", false, "print the version, the commit and the build date, and exit")
	klog.InitFlags(fs)
	err := fs.Parse(args)
	if err != nil {
		return o, err
	}
	if o.mode, err = ParseMode(mode); err != nil {
		return o, fmt.Errorf("--mode: %w", err)
	}
	if o.workers < 1 {
		return o, fmt.Errorf("--workers must be at least 1, got %d", o.workers)
	}
	if o.burstReplicas < 1 {
		return o, fmt.Errorf("--burst-replicas must be at least 1, got %d", o.burstReplicas)
	}
	if o.contentType != protobuf && o.contentType != jsonType {
		return o, fmt.Errorf("--kube-api-content-type must be %s or %s, got %q", protobuf, jsonType, o.contentType)
	}
	if o.profiling && o.metricsAddr == "" {
		return o, errors.New("--profiling serves on --metrics-addr, which is empty")
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: the controller takes flags only", fs.Arg(0))
	}
	return o, nil
}

// Main runs the controller with the command-line arguments args (without
// the program name) until SIGTERM or an interrupt, and returns the process
// exit code: 0 after a clean stop, --help or --version, 2 for bad flags, 1
// when the controller failed.
func Main(args []string) int {
	o, err := parseFlags(args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if o.version {
		fmt.Println(build().Line(program))
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		klog.ErrorS(err, "Controller failed")
		klog.Flush()
		return 1
	}
	klog.Flush()
	return 0
}

func run(ctx context.Context, o options) error {
	logger := klog.Background().WithName("daemonplan")
	cfg, err := clientcmd.BuildConfigFromFlags(o.master, o.kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.qps), o.burst
	cfg.ContentType = o.contentType
	if o.contentType == protobuf {
		// Objects without a protobuf encoding come as JSON.
		cfg.AcceptContentTypes = protobuf + "," + jsonType
	}
	cfg = rest.AddUserAgent(cfg, syncer.ComponentName)
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("build client: %w", err)
	}

	info := build()
	logger.Info("Starting", "version", info.Version, "revision", info.Revision, "date", info.Date, "goVersion", info.GoVersion)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), newBuildInfoGauge(info))
	ready := &replicaReadiness{leaderElect: o.leaderElect}
	var srv *http.Server
	if o.metricsAddr != "" {
		srv, _, err = serve(ctx, o.metricsAddr, reg, o.profiling, ready)
		if err != nil {
			return err
		}
		defer func() {
			shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdownCtx)
		}()
		logger.Info("Serving /healthz, /readyz and /metrics", "addr", o.metricsAddr)
	}

	start := func(ctx context.Context) error {
		factory := informers.NewSharedInformerFactory(client, o.resync)
		c := NewController(o.mode, client, factory, syncer.Config{
			Workers:                                  o.workers,
			BurstReplicas:                            o.burstReplicas,
			Registerer:                               reg,
			EnableTaintTolerationComparisonOperators: o.comparisonGates,
			StatusWriteInterval:                      o.statusInterval,
			SyncSpacing:                              o.syncSpacing,
		}, logger)
		ready.setSynced(c.HasSynced)
		err := c.Run(ctx)
		factory.Shutdown()
		return err
	}
	if !o.leaderElect {
		return start(ctx)
	}
	return leaderElect(ctx, o, cfg, logger, &ready.leading, start)
}

// serve serves /healthz (liveness: the process answers), /readyz (ready's
// answer) and /metrics, and with profiling /debug/pprof/, on addr until the
// server is shut down; it returns the address it listens on.
func serve(ctx context.Context, addr string, reg *prometheus.Registry, profiling bool, ready readiness) (*http.Server, net.Addr, error) {
	mux := http.NewServeMux()
	if profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("ok"))
	})
	mux.Handle("/readyz", readyz(ready))
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on --metrics-addr %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "Metrics server stopped")
		}
	}()
	return srv, ln.Addr(), nil
}

// leaderElect runs start while this process holds the Lease, with leading
// true from then on; it returns when ctx is done or the lease is lost (the
// process then exits, as kube-controller-manager does, rather than risk two
// active controllers).
func leaderElect(ctx context.Context, o options, cfg *rest.Config, logger klog.Logger, leading *atomic.Bool, start func(context.Context) error) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("leader election identity: %w", err)
	}
	id := host + "_" + uuid.NewString()
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(cfg, "leader-election"))
	if err != nil {
		return fmt.Errorf("build leader-election client: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: o.leaseNamespace, Name: o.leaseName},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	var (
		runErr  error
		lost    bool
		started atomic.Bool
		done    = make(chan struct{})
	)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		ReleaseOnCancel: true,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		Name:            o.leaseName,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				started.Store(true)
				leading.Store(true)
				defer close(done)
				logger.Info("Leading", "identity", id, "lease", o.leaseNamespace+"/"+o.leaseName)
				runErr = start(ctx)
			},
			OnStoppedLeading: func() {
				leading.Store(false)
				if ctx.Err() == nil {
					lost = true
				}
			},
			OnNewLeader: func(identity string) {
				if identity != id {
					logger.Info("Another replica leads", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("leader election: %w", err)
	}
	le.Run(ctx)
	// Run cancels the leader's context on return but does not wait for it:
	// wait for the controller's clean shutdown.
	if started.Load() {
		<-done
	}
	if lost {
		return errors.Join(runErr, errors.New("leader election lost"))
	}
	return runErr
}
