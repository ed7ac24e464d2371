package daemon_test

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	dt "github.com/daemonplan/daemonplan/daemon/daemontest"
)

// A plan's error names the DaemonSet once. errors.Is tells invalid input
// (planning again cannot help until the DaemonSet changes) with one test;
// errors.As gives the stage, the text without the DaemonSet (for an event
// on it) and the field at fault.
func ExampleError() {
	ds := dt.DaemonSet("fluentd")
	one := intstr.FromString("one")
	ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &one
	nodes := []*corev1.Node{dt.Node("n1")}
	pods := []*corev1.Pod{dt.Pod(ds, "fluentd-n1", "n1")}

	_, err := daemon.Compute(ds, nodes, pods, daemon.Options{Now: dt.Epoch})
	fmt.Println(err)
	fmt.Println("invalid input:", errors.Is(err, daemon.ErrInvalidInput))
	var de *daemon.Error
	if errors.As(err, &de) {
		fmt.Printf("%s | %s | %s\n", de.DaemonSet, de.Stage, de.Message())
	}
	var fe *field.Error
	if errors.As(err, &fe) {
		fmt.Println("field:", fe.Field)
	}
	// Output:
	// daemonset "default/fluentd": rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "one": must be an integer or a percentage such as "25%"
	// invalid input: true
	// default/fluentd | rolling update | rolling update: spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "one": must be an integer or a percentage such as "25%"
	// field: spec.updateStrategy.rollingUpdate.maxUnavailable
}
