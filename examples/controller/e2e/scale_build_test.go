package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// The main packages TestScale builds, each into an executable of its own,
// as each controller is deployed: the example's command (main.go of module
// examples/controller, built in that module, with the versions its go.mod
// fixes, as released) and kube-controller-manager v1.37.2, at the version
// this module requires (go.mod). Each is built in the directory of the
// module that fixes its versions, relative to the e2e package's.
var (
	exampleBuild  = goBuild{dir: "..", pkg: "."}
	upstreamBuild = goBuild{dir: ".", pkg: "k8s.io/kubernetes/cmd/kube-controller-manager"}
)

// goBuild is one main package to build: pkg, built by the go command run
// in dir.
type goBuild struct {
	dir, pkg string
}

// deployedBinaries are the paths of the two controllers built on their own.
type deployedBinaries struct {
	example, upstream string
}

// buildDeployed builds the example controller and kube-controller-manager,
// each its own executable, into a directory removed when t ends, and logs
// how long each build took. It runs before any cluster starts, so no
// measured figure includes it. The e2e test binary already compiled every
// package of both (the control plane and the example are compiled into
// it), so with the build cache of that compile each build mostly links.
// Both are built alike, with go build's defaults (as the test binary is);
// -buildvcs=false only keeps a repository's state out of the build, so
// that a tree git refuses to read (another owner) does not fail it.
func buildDeployed(t *testing.T) deployedBinaries {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("e2e: TestScale builds each controller as deployed with the go command, which is not on PATH: %v", err)
	}
	dir := t.TempDir()
	build := func(out string, b goBuild) string {
		t.Helper()
		bin := filepath.Join(dir, out)
		cmd := exec.Command(goCmd, "build", "-buildvcs=false", "-o", bin, b.pkg)
		// The test runs in the e2e package's directory, the e2e
		// module's; b.dir is relative to it.
		cmd.Dir = b.dir
		start := time.Now()
		if outBytes, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("e2e: go build -o %s %s (in %s): %v\n%s", bin, b.pkg, b.dir, err, outBytes)
		}
		t.Logf("scale: built %s in %s in %s (go build, before any cluster starts; counted in no figure)", b.pkg, b.dir, time.Since(start).Round(time.Millisecond))
		return bin
	}
	return deployedBinaries{
		example:  build("example-controller", exampleBuild),
		upstream: build("kube-controller-manager", upstreamBuild),
	}
}

// controllers returns the two controllers under test started from the
// built binaries, with the same flags, process names and stop functions
// as controllersUnderTest (which run the test binary in a role).
func (b deployedBinaries) controllers() []controllerUnderTest {
	return []controllerUnderTest{
		{name: "example", start: func(c *cluster, run int) (stop func()) {
			c.withBinary(b.example, func() { stop = startExample(c, run) })
			return stop
		}},
		{name: "upstream", start: func(c *cluster, run int) (stop func()) {
			c.withBinary(b.upstream, func() { stop = startUpstream(c, run) })
			return stop
		}},
	}
}

// withBinary runs f with bin as the executable cluster.start runs instead
// of the test binary: a process f starts is bin's own image, started,
// logged, stopped by its PID and killed with the test (Pdeathsig) as every
// other. start still sets roleEnv, which bin ignores.
func (c *cluster) withBinary(bin string, f func()) {
	saved := c.bin
	c.bin = bin
	defer func() { c.bin = saved }()
	f()
}

// binaryFloor returns the usage of bin (the test binary when bin is "")
// idling in a controller's role: waiting for a Lease on an API server that
// does not answer, no informer started. role and args say how: the
// example's flags, or kube-controller-manager's (which, told to skip the
// lookup of its authentication configuration, also waits for the Lease).
// Every process of the control plane is the test binary and every
// package's initialisation runs in each of them; each controller, built on
// its own, has its own floor: this is the memory none goes below.
func (c *cluster) binaryFloor(name, bin, role string) usage {
	c.t.Helper()
	kc := c.write("kubeconfig-nowhere", kubeconfig("https://127.0.0.1:1", "nobody", "none"))
	args := []string{"--kubeconfig=" + kc, "--leader-elect", "--metrics-addr="}
	if role == roleControllerManager {
		args = []string{"--kubeconfig=" + kc, "--authentication-skip-lookup", "--controllers=daemonset",
			"--leader-elect=true", "--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(freePort(c.t))}
	}
	var p *process
	start := func() { p = c.start(name, role, args...) }
	if bin == "" {
		start()
	} else {
		c.withBinary(bin, start)
	}
	time.Sleep(3 * time.Second)
	u := c.usage(p)
	p.stop()
	return u
}

// floorName is the name of the floor row of the process of image bin.
func floorName(bin string) string {
	if bin == "" {
		return "the test binary, idle (the control plane's floor)"
	}
	return filepath.Base(bin) + " binary, idle (its floor)"
}
