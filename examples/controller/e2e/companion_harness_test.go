package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2/textlogger"

	"github.com/daemonplan/daemonplan/examples/controller/deploy"
	"github.com/daemonplan/daemonplan/examples/controller/internal/app"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// applyDeploy creates the objects of the shipped manifests (the Helm
// chart's default render) but the Deployment (no image runs here), which it
// returns: the companion is then started with the Deployment's flags and
// its ServiceAccount, and trackChartRBAC checks its requests.
func (c *cluster) applyDeploy() *appsv1.Deployment {
	c.t.Helper()
	objs, err := deploy.Companion()
	if err != nil {
		c.t.Fatalf("deploy manifests: %v", err)
	}
	ctx := context.Background()
	var dep *appsv1.Deployment
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Namespace:
			_, err = c.admin.CoreV1().Namespaces().Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = c.admin.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRole:
			_, err = c.admin.RbacV1().ClusterRoles().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.ClusterRoleBinding:
			_, err = c.admin.RbacV1().ClusterRoleBindings().Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = c.admin.RbacV1().Roles(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = c.admin.RbacV1().RoleBindings(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *policyv1.PodDisruptionBudget:
			_, err = c.admin.PolicyV1().PodDisruptionBudgets(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Service:
			_, err = c.admin.CoreV1().Services(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *appsv1.Deployment:
			dep = o
		default:
			c.t.Fatalf("deploy manifests: unexpected %T", o)
		}
		if err != nil {
			c.t.Fatalf("applying %T: %v", o, err)
		}
	}
	if dep == nil {
		c.t.Fatal("deploy manifests: no Deployment")
	}
	c.trackChartRBAC(objs)
	if sa := dep.Spec.Template.Spec.ServiceAccountName; dep.Namespace != companionNamespace || sa != companionSA {
		c.t.Fatalf("the Deployment runs as %s/%s, the suite as %s", dep.Namespace, sa, companionUser)
	}
	return dep
}

// companionConfig is a client configuration holding a token of the
// companion's ServiceAccount (TokenRequest API).
func (c *cluster) companionConfig() *rest.Config {
	c.t.Helper()
	exp := int64(3600)
	tok, err := c.admin.CoreV1().ServiceAccounts(companionNamespace).CreateToken(context.Background(), companionSA,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &exp}}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatalf("token of %s: %v", companionUser, err)
	}
	return &rest.Config{
		Host:            c.server,
		BearerToken:     tok.Status.Token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             200, Burst: 400,
		UserAgent: syncer.ComponentName,
	}
}

// companionFlags are the Deployment's flags the in-process companion
// honours.
type companionFlags struct {
	mode                 app.Mode
	leaseNamespace, name string
}

func flagsOf(t *testing.T, dep *appsv1.Deployment) companionFlags {
	t.Helper()
	f := companionFlags{leaseNamespace: "kube-system", name: "daemonplan-controller"}
	elect := false
	for _, a := range dep.Spec.Template.Spec.Containers[0].Args {
		k, v, _ := strings.Cut(a, "=")
		switch k {
		case "--mode":
			m, err := app.ParseMode(v)
			if err != nil {
				t.Fatalf("Deployment: %v", err)
			}
			f.mode = m
		case "--leader-elect":
			elect = v == "" || v == "true"
		case "--leader-elect-namespace":
			f.leaseNamespace = v
		case "--leader-elect-name":
			f.name = v
		}
	}
	if f.mode != app.ModeCompanion || !elect {
		t.Fatalf("the Deployment's args %q do not run a leader-elected companion", dep.Spec.Template.Spec.Containers[0].Args)
	}
	return f
}

// replica is one in-process companion replica.
type replica struct {
	name    string
	leading atomic.Bool
	// crashed makes the replica's Lease writes fail, so that stopping it
	// does not release the Lease: the standby must wait for it to expire,
	// as after a SIGKILL.
	crashed atomic.Bool
	stop    func()
}

// crash stops the replica without releasing its Lease (an in-process
// stand-in for SIGKILL: the controller's syncs under way still finish).
func (r *replica) crash() {
	r.crashed.Store(true)
	r.stop()
}

// crashableLock is a Lease lock whose writes fail once its replica has
// crashed.
type crashableLock struct {
	resourcelock.Interface
	r *replica
}

func (l crashableLock) Create(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	if l.r.crashed.Load() {
		return errors.New("crashed")
	}
	return l.Interface.Create(ctx, rec)
}

func (l crashableLock) Update(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	if l.r.crashed.Load() {
		return errors.New("crashed")
	}
	return l.Interface.Update(ctx, rec)
}

// startCompanion runs one replica of the companion in-process, as the
// Deployment would: the ServiceAccount's token, the Deployment's mode, and
// leader election on its Lease (only the holder runs the controller). Its
// log goes to the cluster directory.
func (c *cluster) startCompanion(name string, dep *appsv1.Deployment) *replica {
	c.t.Helper()
	f := flagsOf(c.t, dep)
	cfg := c.companionConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		c.t.Fatalf("companion client: %v", err)
	}
	logPath := c.path(name + ".log")
	out, err := os.Create(logPath)
	if err != nil {
		c.t.Fatalf("companion log: %v", err)
	}
	c.logs[name] = logPath
	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(out), textlogger.Verbosity(2)))
	r := &replica{name: name}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: f.leaseNamespace, Name: f.name},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: name},
	}
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: crashableLock{Interface: lock, r: r}, ReleaseOnCancel: true,
		LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
		Name: f.name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				r.leading.Store(true)
				logger.Info("Leading", "identity", name)
				factory := informers.NewSharedInformerFactory(cs, 0)
				ctl := app.NewController(f.mode, cs, factory, syncer.Config{Workers: 2}, logger)
				if err := ctl.Run(ctx); err != nil {
					logger.Error(err, "Companion stopped")
				}
				factory.Shutdown()
			},
			OnStoppedLeading: func() { r.leading.Store(false) },
		},
	})
	if err != nil {
		c.t.Fatalf("leader election: %v", err)
	}
	go func() {
		defer close(done)
		le.Run(ctx)
	}()
	stopped := false
	r.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			c.t.Errorf("companion %s did not stop", name)
		}
		out.Close()
	}
	c.t.Cleanup(r.stop)
	return r
}

// auditOf counts, from the audit log, the requests of user by
// "verb resource[/subresource]", the response code appended when it is
// not a success; only completed requests count.
func (c *cluster) auditOf(user string) map[string]int {
	c.t.Helper()
	f, err := os.Open(c.auditLog)
	if err != nil {
		c.t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			c.t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		if ev.Stage != "ResponseComplete" || ev.User.Username != user {
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		key := ev.Verb + " " + res
		if code := ev.ResponseStatus.Code; code >= 300 {
			key += " (" + strconv.Itoa(code) + ")"
		}
		out[key]++
	}
	return out
}
