package e2e

import (
	"context"
	"fmt"
	"os"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/textlogger"

	"github.com/daemonplan/daemonplan/examples/controller/internal/controller"
)

// startExample runs the example controller in-process, as controllerUser
// with the same client rate limits kube-controller-manager gets, logging
// into the cluster directory.
func startExample(c *cluster, run int) func() {
	c.t.Helper()
	cs, err := kubernetes.NewForConfig(c.restConfig(controllerUser, 200, 400))
	if err != nil {
		c.t.Fatalf("example controller client: %v", err)
	}
	name := fmt.Sprintf("example-controller-%d", run)
	logPath := c.path(name + ".log")
	f, err := os.Create(logPath)
	if err != nil {
		c.t.Fatalf("example controller log: %v", err)
	}
	c.logs[name] = logPath
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(f), textlogger.Verbosity(2)))
	factory := informers.NewSharedInformerFactory(cs, 0)
	ctl := controller.New(cs, factory, controller.Config{Workers: 2}, logger)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()
	stopped := false
	return func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			c.t.Errorf("example controller: %v", err)
		}
		factory.Shutdown()
		f.Close()
	}
}
