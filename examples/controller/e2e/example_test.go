package e2e

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// exampleArgs are the example controller's flags in every scenario: as
// controllerUser, with the client rate limits and workers
// kube-controller-manager gets (startControllerManager), logging every sync
// (-v=2), serving /metrics on a free loopback port. extra flags follow
// them, so they may override one.
func (c *cluster) exampleArgs(extra ...string) []string {
	c.t.Helper()
	return c.exampleArgsWith(c.kubeconfigs[controllerUser], extra...)
}

// exampleArgsWith is exampleArgs with the kubeconfig file kubeconfig, as
// the user it names.
func (c *cluster) exampleArgsWith(kubeconfig string, extra ...string) []string {
	c.t.Helper()
	args := []string{
		"--kubeconfig=" + kubeconfig,
		"--workers=2",
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--metrics-addr=127.0.0.1:" + strconv.Itoa(freePort(c.t)),
		"-v=2",
	}
	return append(args, extra...)
}

// startExampleProcess runs the example controller's command (app.Main) as
// a process of its own under the process name name, with exampleArgs and
// extra, so that a scenario can stop it with SIGTERM or SIGKILL it.
func (c *cluster) startExampleProcess(name string, extra ...string) *process {
	c.t.Helper()
	return c.start(name, roleExample, c.exampleArgs(extra...)...)
}

// startExample runs the example controller in replace mode as its own
// process and returns the function that stops it with SIGTERM and waits;
// a controller that does not stop cleanly fails the test.
func startExample(c *cluster, run int) func() {
	c.t.Helper()
	p := c.startExampleProcess(fmt.Sprintf("example-controller-%d", run), extraExampleFlags()...)
	c.waitServing(p)
	return func() {
		p.stop()
		if p.err != nil {
			c.t.Errorf("example controller %s: %v", p.name, p.err)
		}
	}
}

// waitServing waits until the example controller p answers /healthz on its
// --metrics-addr. It serves it only after it has set up its signal
// handling: a SIGTERM sent sooner, while the test binary still
// initialises its packages, kills it by the default action ("signal:
// terminated") instead of stopping it cleanly; a scenario that converges
// within half a second of a restart did that.
func (c *cluster) waitServing(p *process) {
	c.t.Helper()
	url := "http://" + flagValue(p, "--metrics-addr") + "/healthz"
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p.exited() {
			c.t.Fatalf("%s exited: %v", p.name, p.err)
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s does not serve %s after 60s: %v", p.name, url, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
