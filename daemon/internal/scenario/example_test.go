package scenario_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/scenario"
)

func ExampleJudge() {
	s, err := scenario.Decode([]byte(`{
	 "name": "example",
	 "now": "2025-06-01T12:00:00Z",
	 "daemonSet": {"metadata": {"name": "ds", "namespace": "ns", "generation": 1},
	               "spec": {"selector": {"matchLabels": {"app": "ds"}}}},
	 "nodes": [{"metadata": {"name": "node-a"}}, {"metadata": {"name": "node-b"}}],
	 "pods": [],
	 "expected": {
	  "hash": "6d4b9c8f7", "creates": ["node-a"], "createsMay": ["node-b"],
	  "createsCount": {"min": 1, "max": 2}, "deletes": [],
	  "status": {"desiredNumberScheduled": 2, "currentNumberScheduled": 0, "numberMisscheduled": 0,
	             "numberReady": 0, "updatedNumberScheduled": 0, "numberAvailable": 0,
	             "numberUnavailable": 2, "observedGeneration": 1},
	  "trials": 20, "deterministic": false}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	plan := daemon.Plan{
		Hash: "6d4b9c8f7",
		Creates: []daemon.Create{
			{NodeName: "node-b", Pod: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "ds-"}}},
		},
		StatusChanged: true,
	}
	plan.Status.DesiredNumberScheduled = 2
	plan.Status.NumberUnavailable = 2
	plan.Status.ObservedGeneration = 1
	for _, line := range scenario.Judge(s, plan, nil) {
		fmt.Println(line)
	}
	// Output:
	// creates: missing "node-a": upstream always had it once, plan has it 0 times
}

func ExampleJudgeList() {
	l := scenario.NamedList{
		Name:  "deletes",
		Want:  []string{"pod-1"},
		May:   []string{"pod-2", "pod-3"},
		Count: &scenario.Count{Min: 1, Max: 2},
	}
	fmt.Println(scenario.JudgeList(l, []string{"pod-1", "pod-3"}))
	fmt.Println(scenario.JudgeList(l, []string{"pod-1", "pod-2", "pod-3"}))
	fmt.Println(scenario.JudgeList(l, []string{"pod-4"}))
	// Output:
	// []
	// [deletes: plan has 3, upstream had between 1 and 2]
	// [deletes: missing "pod-1": upstream always had it once, plan has it 0 times deletes: unexpected "pod-4": upstream had it at most 0 times, plan has it once]
}

func ExampleExpectedPlan() {
	s, err := scenario.Decode([]byte(`{
	 "name": "example", "now": "2025-06-01T12:00:00Z",
	 "daemonSet": {"metadata": {"name": "ds", "namespace": "ns"}},
	 "nodes": [], "pods": [{"metadata": {"name": "ds-x"}, "spec": {"nodeName": "gone"}}],
	 "expected": {"hash": "abc", "creates": [], "deletes": ["ds-x"],
	              "status": null, "trials": 1, "deterministic": true}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := scenario.ExpectedPlan(s)
	fmt.Println(plan.Hash, plan.Deletes[0].Pod.Name, plan.Deletes[0].NodeName, err)
	fmt.Println(len(scenario.Judge(s, plan, err)), "mismatches")
	// Output:
	// abc ds-x gone <nil>
	// 0 mismatches
}

func ExampleCompareCreatedPod() {
	recorded := []byte(`{"metadata": {"generateName": "ds-"}, "spec": {"containers": [{"name": "c", "image": "img:1"}]}}`)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ds-"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
	}
	// encoding/json adds "resources": {} and "status": {}; empty objects are
	// not compared.
	diff, err := scenario.CompareCreatedPod(recorded, pod)
	fmt.Printf("%q %v\n", diff, err)
	// Output:
	// "" <nil>
}
