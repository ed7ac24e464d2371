package e2e

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	kwokconfig "sigs.k8s.io/kwok/pkg/config"
	kwokcmd "sigs.k8s.io/kwok/pkg/kwok/cmd"
	kwoklog "sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/signals"

	"github.com/daemonplan/daemonplan/examples/controller/internal/app"
)

// roleEnv names the environment variable that turns the test binary into
// one control-plane component. The control plane is compiled into the test
// binary (compile time does not count against go test's -timeout), and
// cluster.start runs the binary again with roleEnv set, once per component.
const roleEnv = "DAEMONPLAN_E2E_ROLE"

// Component names, which are also the values of roleEnv.
const (
	roleEtcd              = "etcd"
	roleAPIServer         = "kube-apiserver"
	roleScheduler         = "kube-scheduler"
	roleControllerManager = "kube-controller-manager"
	roleKwok              = "kwok"
	// roleExample is the example controller's command (app.Main), so that
	// a scenario can SIGKILL it like any component.
	roleExample = "example-controller"
)

// roles runs each component with os.Args and returns its exit code.
var roles = map[string]func() int{
	roleEtcd: func() int {
		// Main exits by itself on failure and blocks while the server runs.
		etcdmain.Main(os.Args)
		return 0
	},
	roleAPIServer:         func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	roleScheduler:         func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
	roleControllerManager: func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
	roleKwok:              runKwok,
	roleExample:           func() int { return app.Main(os.Args[1:]) },
}

// runRole runs the component roleEnv names, if any, and reports whether it
// did and with what exit code.
func runRole() (code int, ran bool) {
	role, ok := os.LookupEnv(roleEnv)
	if !ok {
		return 0, false
	}
	run, ok := roles[role]
	if !ok {
		names := make([]string, 0, len(roles))
		for name := range roles {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "%s=%q: unknown role; want one of %s\n", roleEnv, role, strings.Join(names, ", "))
		return 2, true
	}
	return run(), true
}

// runKwok starts kwok the way its own command does: global logging and
// configuration flags first, then the kwok command with the rest.
func runKwok() int {
	// pflag's global flag set, which cobra adds to every command, holds
	// flags that packages of the other components register when they are
	// initialised, among them component-base's --version, whose type kwok's
	// own --version lookup rejects. kwok alone runs in this process, so it
	// starts from an empty global set, as its own binary does.
	pflag.CommandLine = pflag.NewFlagSet(os.Args[0], pflag.ExitOnError)
	global := pflag.NewFlagSet("global", pflag.ContinueOnError)
	global.ParseErrorsAllowlist.UnknownFlags = true
	global.Usage = func() {}
	ctx := signals.SetupSignalContext()
	ctx, logger := kwoklog.InitFlags(ctx, global)
	ctx, err := kwokconfig.InitFlags(ctx, global)
	if err != nil {
		logger.Error("kwok: configuration flags", "err", err)
		return 1
	}
	command := kwokcmd.NewCommand(ctx)
	command.PersistentFlags().AddFlagSet(global)
	if err := command.ExecuteContext(ctx); err != nil {
		logger.Error("kwok: exit", "err", err)
		return 1
	}
	return 0
}

// kwokStages is kwok's own "fast" stage set, as its packages embed it: nodes
// become Ready at once, pods become Running and Ready, and deleted pods go
// away after their graceful deletion. A node whose kubelet a scenario
// stopped (stopKubelet) is left as the scenario sets it. Pods labelled to
// fail (kwok_faults_test.go) fail as their label says: pod-ready spares
// those whose image cannot be pulled, and those that crash do so after
// pod-ready made them Ready; every other pod is as before.
func kwokStages() string {
	stages := []string{
		spareStoppedNodes(nodefast.DefaultNodeInit),
		withSelectorRequirement(podfast.DefaultPodReady, labelAbsent(imagePullLabel)),
		podfast.DefaultPodDelete,
		podCrashStage, podImagePullStage, podImagePullBackOffStage,
	}
	for i, s := range stages {
		stages[i] = strings.TrimSpace(s)
	}
	return strings.Join(stages, "\n---\n") + "\n"
}

var (
	selfOnce sync.Once
	selfPath string
	selfErr  error
)

// self is the path of the running test binary, which every component runs
// from.
func self() (string, error) {
	selfOnce.Do(func() {
		selfPath, selfErr = os.Executable()
		if selfErr != nil {
			selfErr = fmt.Errorf("the test binary's own path, needed to run the control plane: %w", selfErr)
		}
	})
	return selfPath, selfErr
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
