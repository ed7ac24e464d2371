package e2e

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Users known to the API server's token file. The DaemonSet controller
// under test, whichever it is, authenticates as controllerUser, so the
// audit log counts exactly its writes.
const (
	adminUser      = "e2e-admin"
	controllerUser = "e2e-daemonset-controller"
	schedulerUser  = "e2e-scheduler"
	kwokUser       = "e2e-kwok"
	testNamespace  = "e2e"
)

// cluster is one control plane: etcd, kube-apiserver, kube-scheduler and
// kwok, every process on loopback, in a temporary directory removed when
// the test ends.
type cluster struct {
	t *testing.T
	// bin is the test binary, which runs every component (see roleEnv).
	bin    string
	dir    string
	server string
	// kubeconfigs by user.
	kubeconfigs map[string]string
	admin       kubernetes.Interface
	auditLog    string
	procs       map[string]*process
	// logs are the log files of in-process components, by name.
	logs map[string]string
	// extraArgs are flags start adds after a role's own, by role (a later
	// flag overrides an earlier one).
	extraArgs map[string][]string
	// groups are the groups of a test user in the API server's token
	// file, by user; system:masters when absent.
	groups map[string]string
}

// clusterOption changes how newCluster starts a cluster.
type clusterOption func(*cluster)

// withAPIServerArgs adds flags to kube-apiserver's.
func withAPIServerArgs(args ...string) clusterOption {
	return func(c *cluster) { c.extraArgs[roleAPIServer] = append(c.extraArgs[roleAPIServer], args...) }
}

// withGroup puts user in group instead of system:masters.
func withGroup(user, group string) clusterOption {
	return func(c *cluster) { c.groups[user] = group }
}

// process is a program the test started; it is stopped by its PID.
type process struct {
	name string
	// role and args are what it was started with (args without the
	// cluster's extraArgs, which start adds), so that it can be started
	// again the same way.
	role string
	args []string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// newCluster starts a fresh control plane for t, as opts say, and stops it
// when t ends.
func newCluster(t *testing.T, opts ...clusterOption) *cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: skipped in -short mode (each scenario starts a control plane)")
	}
	bin, err := self()
	if err != nil {
		t.Fatalf("e2e: %v", err)
	}
	dir, err := os.MkdirTemp("", "daemonplan-e2e-")
	if err != nil {
		t.Fatalf("temp dir: %v", err)
	}
	c := &cluster{t: t, bin: bin, dir: dir, kubeconfigs: map[string]string{}, procs: map[string]*process{}, logs: map[string]string{}}
	c.extraArgs, c.groups = map[string][]string{}, map[string]string{}
	for _, o := range opts {
		o(c)
	}
	t.Cleanup(func() {
		if t.Failed() {
			c.dumpLogs()
		}
		if os.Getenv("E2E_KEEP") == "" {
			os.RemoveAll(dir)
		} else {
			t.Logf("e2e: kept %s", dir)
		}
	})
	c.startEtcd()
	c.startAPIServer()
	c.startScheduler()
	c.startKwok()
	ctx := context.Background()
	if _, err := c.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNamespace}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("namespace %s: %v", testNamespace, err)
	}
	return c
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (c *cluster) path(name string) string { return filepath.Join(c.dir, name) }

func (c *cluster) write(name, content string) string {
	c.t.Helper()
	p := c.path(name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		c.t.Fatalf("writing %s: %v", p, err)
	}
	return p
}

// start runs the test binary as the component role (see roleEnv) under
// the process name name, with its output in the cluster directory, and
// stops it, by PID, when the test ends: SIGTERM first, SIGKILL after 10
// seconds.
func (c *cluster) start(name, role string, args ...string) *process {
	c.t.Helper()
	all := append(args[:len(args):len(args)], c.extraArgs[role]...)
	logPath := c.path(name + ".log")
	f, err := os.Create(logPath)
	if err != nil {
		c.t.Fatalf("log for %s: %v", name, err)
	}
	cmd := exec.Command(c.bin, all...)
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		c.t.Fatalf("starting %s: %v", name, err)
	}
	p := &process{name: name, role: role, args: args, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	c.procs[name] = p
	c.t.Cleanup(func() { p.stop() })
	return p
}

func (p *process) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (c *cluster) dumpLogs() {
	logs := map[string]string{}
	for name, p := range c.procs {
		logs[name] = p.log
	}
	for name, l := range c.logs {
		logs[name] = l
	}
	names := make([]string, 0, len(logs))
	for name := range logs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		data, _ := os.ReadFile(logs[name])
		c.t.Logf("---- %s (last lines) ----\n%s", name, tail(string(data), 25))
	}
}

func (c *cluster) startEtcd() {
	client, peer := freePort(c.t), freePort(c.t)
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", client)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peer)
	c.start("etcd", roleEtcd,
		"--name=e2e",
		"--data-dir="+c.path("etcd-data"),
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=e2e="+peerURL,
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	)
	c.server = clientURL // replaced by the API server's address below
}

func writeServiceAccountKey(c *cluster) string {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		c.t.Fatalf("service account key: %v", err)
	}
	return c.write("sa.key", string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})))
}

func randomToken(c *cluster) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		c.t.Fatalf("token: %v", err)
	}
	return fmt.Sprintf("%x", b)
}

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: ["` + controllerUser + `"]
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: Metadata
  users: ["` + companionUser + `"]
- level: None
`

func (c *cluster) startAPIServer() {
	etcd := c.server
	port := freePort(c.t)
	tokens := map[string]string{}
	var csv strings.Builder
	for i, u := range []string{adminUser, controllerUser, schedulerUser, kwokUser} {
		tokens[u] = randomToken(c)
		group := c.groups[u]
		if group == "" {
			group = "system:masters"
		}
		fmt.Fprintf(&csv, "%s,%s,%d,%q\n", tokens[u], u, 1000+i, group)
	}
	tokenFile := c.write("tokens.csv", csv.String())
	saKey := writeServiceAccountKey(c)
	c.auditLog = c.path("audit.log")
	policy := c.write("audit-policy.yaml", auditPolicy)
	c.start("kube-apiserver", roleAPIServer,
		"--etcd-servers="+etcd,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--cert-dir="+c.path("certs"),
		"--token-auth-file="+tokenFile,
		// RBAC: the test users are system:masters; the companion runs as
		// a ServiceAccount with only the shipped roles.
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+saKey,
		"--service-account-signing-key-file="+saKey,
		"--service-cluster-ip-range=10.96.0.0/16",
		"--endpoint-reconciler-type=none",
		// Node agents run privileged (kube-proxy, CNI, device plugins), and
		// every real cluster that runs them allows it; the apply
		// differential's bases are such manifests.
		"--allow-privileged=true",
		// TaintNodesByCondition would give every new node the not-ready
		// taint, which only the node lifecycle controller (not run) lifts.
		"--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
		"--enable-priority-and-fairness=false",
		"--max-requests-inflight=0",
		"--max-mutating-requests-inflight=0",
		"--audit-policy-file="+policy,
		"--audit-log-path="+c.auditLog,
		"--audit-log-mode=blocking",
		"--profiling=false",
	)
	c.server = fmt.Sprintf("https://127.0.0.1:%d", port)
	for u, tok := range tokens {
		c.kubeconfigs[u] = c.write("kubeconfig-"+u, kubeconfig(c.server, u, tok))
	}
	c.admin = c.clientFor(adminUser, 100, 200)
	c.waitReady()
}

func kubeconfig(server, user, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: %s
  user:
    token: %s
contexts:
- name: e2e
  context:
    cluster: e2e
    user: %s
current-context: e2e
`, server, user, token, user)
}

// restConfig is the client configuration of user.
func (c *cluster) restConfig(user string, qps float32, burst int) *rest.Config {
	c.t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfigs[user])
	if err != nil {
		c.t.Fatalf("kubeconfig of %s: %v", user, err)
	}
	cfg.QPS, cfg.Burst = qps, burst
	return cfg
}

func (c *cluster) clientFor(user string, qps float32, burst int) kubernetes.Interface {
	c.t.Helper()
	cs, err := kubernetes.NewForConfig(c.restConfig(user, qps, burst))
	if err != nil {
		c.t.Fatalf("client of %s: %v", user, err)
	}
	return cs
}

func (c *cluster) waitReady() {
	c.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	var last error
	for time.Now().Before(deadline) {
		if p := c.procs["kube-apiserver"]; p.exited() {
			c.t.Fatalf("kube-apiserver exited: %v", p.err)
		}
		if p := c.procs["etcd"]; p.exited() {
			c.t.Fatalf("etcd exited: %v", p.err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		body, err := c.admin.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil && strings.TrimSpace(string(body)) == "ok" {
			return
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("kube-apiserver at %s not ready after 90s: %v", c.server, last)
}

func (c *cluster) startScheduler() {
	cfg := c.write("scheduler.yaml", fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %s
  qps: 500
  burst: 1000
leaderElection:
  leaderElect: false
`, c.kubeconfigs[schedulerUser]))
	c.start("kube-scheduler", roleScheduler,
		"--config="+cfg,
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(freePort(c.t)),
		"--authentication-kubeconfig="+c.kubeconfigs[schedulerUser],
		"--authorization-kubeconfig="+c.kubeconfigs[schedulerUser],
	)
}

func (c *cluster) startKwok() {
	stages := c.write("kwok-stages.yaml", kwokStages())
	c.start("kwok", roleKwok,
		"--kubeconfig="+c.kubeconfigs[kwokUser],
		"--config="+stages,
		"--manage-all-nodes=true",
		// No node Leases: nothing here reads them (the node lifecycle
		// controller does not run), and at 2,000 nodes their renewals
		// are 200 writes a second to the control plane.
		"--node-lease-duration-seconds=0",
		"--cidr=10.0.0.1/16",
		"--node-ip=10.1.0.1",
	)
}

// startControllerManager runs kube-controller-manager with only the
// DaemonSet controller, as controllerUser.
func (c *cluster) startControllerManager(name string) *process {
	return c.start(name, roleControllerManager,
		"--kubeconfig="+c.kubeconfigs[controllerUser],
		"--authentication-kubeconfig="+c.kubeconfigs[controllerUser],
		"--authorization-kubeconfig="+c.kubeconfigs[controllerUser],
		"--controllers=daemonset",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(freePort(c.t)),
		"--kube-api-qps=200",
		"--kube-api-burst=400",
		"--concurrent-daemonset-syncs=2",
	)
}
