package daemontest_test

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/simulate"
)

// The fixtures of the table tests: small clusters built with the package's
// own builders, each a function so that every test case gets fresh objects.

// settled is a DaemonSet whose three workers each run one available pod of
// the current template, with its revision and an up-to-date status, beside
// a control-plane node it does not tolerate.
func settled(opts ...dt.DaemonSetOption) simulate.Input {
	ds := dt.DaemonSet("fluentd", opts...)
	in := simulate.Input{DaemonSet: ds, Options: daemon.Options{Now: dt.Epoch, Revisions: []*appsv1.ControllerRevision{dt.Revision(ds, 1)}}}
	in.Nodes = workers("n1", "n2", "n3")
	in.Nodes = append(in.Nodes, dt.Node("cp", dt.WithTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule)))
	for _, n := range []string{"n1", "n2", "n3"} {
		in.Pods = append(in.Pods, dt.Pod(ds, "fluentd-"+n, n))
	}
	ds.Status = appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3,
		NumberReady: 3, NumberAvailable: 3, UpdatedNumberScheduled: 3}
	return in
}

func workers(names ...string) []*corev1.Node {
	out := make([]*corev1.Node, len(names))
	for i, n := range names {
		out[i] = dt.Node(n)
	}
	return out
}

// fresh is settled without pods, revisions or status: a new DaemonSet.
func fresh(opts ...dt.DaemonSetOption) simulate.Input {
	in := settled(opts...)
	in.Pods, in.Options.Revisions = nil, nil
	in.DaemonSet.Status = appsv1.DaemonSetStatus{}
	return in
}

// rollingOut is settled right after the image changed: the pods and the
// only revision are of the previous template.
func rollingOut(opts ...dt.DaemonSetOption) simulate.Input {
	in := settled(opts...)
	in.DaemonSet.Generation = 2
	dt.WithImage("registry.example/fluentd:v2")(in.DaemonSet)
	return in
}

// surging is rollingOut with maxSurge 1 and maxUnavailable 0.
func surging() simulate.Input {
	return rollingOut(dt.WithMaxSurge("1"), dt.WithMaxUnavailable("0"))
}

// podOn returns the input pod on node.
func podOn(in simulate.Input, node string) *corev1.Pod {
	for _, p := range in.Pods {
		if p.Spec.NodeName == node {
			return p
		}
	}
	return nil
}
