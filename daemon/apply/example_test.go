package apply_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/daemonplan/daemonplan/daemon/apply"
)

// A manifest with a new image, written over the DaemonSet the cluster
// runs: the API server bumps the generation and the template generation,
// and keeps the object's identity and status.
func ExampleUpdate() {
	stored, _ := apply.Create(manifest("agent:v1"), "6f1c0a52", time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC))
	stored.Status.ObservedGeneration = 1

	next := manifest("agent:v2") // from git: no uid, no status, no defaults
	got, change, err := apply.Update(stored, next)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("uid:", got.UID, "generation:", got.Generation, "observed:", got.Status.ObservedGeneration)
	fmt.Println("template generation:", got.Annotations[appsv1.DeprecatedTemplateGeneration], "template changed:", change.Template)
	fmt.Println("imagePullPolicy:", got.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	// Output:
	// uid: 6f1c0a52 generation: 2 observed: 1
	// template generation: 2 template changed: true
	// imagePullPolicy: IfNotPresent
}
