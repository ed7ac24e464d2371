package snapshot_test

import (
	"fmt"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

func ExampleSnapshot_For() {
	// What `kubectl get ds,nodes,pods -n kube-system -o yaml` prints, cut short.
	data := []byte(`apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: agent, namespace: kube-system, uid: ds-1, generation: 1, creationTimestamp: "2026-01-02T03:00:00Z"}
  spec:
    selector: {matchLabels: {app: agent}}
    template:
      metadata: {labels: {app: agent}}
      spec: {containers: [{name: agent, image: agent:v1}]}
- apiVersion: v1
  kind: Node
  metadata: {name: node-a, creationTimestamp: "2026-01-02T03:04:05Z"}
`)
	s, err := snapshot.Decode("cluster.yaml", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	in, err := s.For("kube-system", "agent")
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := daemon.Compute(in.DaemonSet, in.Nodes, in.Pods, daemon.Options{Now: s.Newest(), Revisions: in.Revisions})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("now:", s.Newest().Format("2006-01-02T15:04:05Z"))
	for _, c := range plan.Creates {
		fmt.Println("create on", c.NodeName, "because", c.Reason)
	}
	// Output:
	// now: 2026-01-02T03:04:05Z
	// create on node-a because NodeNeedsPod
}

func ExampleDecode() {
	// Two documents, one of a kind a snapshot does not keep.
	data := []byte(`apiVersion: v1
kind: Node
metadata: {name: node-a}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: kube-system}
`)
	s, err := snapshot.Decode("cluster.yaml", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(s.Nodes), "node")
	for _, n := range s.Notes {
		fmt.Println(n)
	}

	// A file that is not Kubernetes YAML names its line.
	_, err = snapshot.Decode("values.yaml", []byte("apiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\nreplicas: 3\n"))
	fmt.Println(err)
	// Output:
	// 1 node
	// skipped 1 v1 ConfigMap (kube-system/settings): not a kind a plan reads
	// values.yaml:5: not a Kubernetes object: apiVersion and kind are required
}

func ExampleSnapshot_Encode() {
	s, err := snapshot.Decode("in.json", []byte(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-a"}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := s.Encode()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// apiVersion: v1
	// items:
	// - apiVersion: v1
	//   kind: Node
	//   metadata:
	//     name: node-a
	//   spec: {}
	//   status:
	//     daemonEndpoints:
	//       kubeletEndpoint:
	//         Port: 0
	//     nodeInfo:
	//       architecture: ""
	//       bootID: ""
	//       containerRuntimeVersion: ""
	//       kernelVersion: ""
	//       kubeProxyVersion: ""
	//       kubeletVersion: ""
	//       machineID: ""
	//       operatingSystem: ""
	//       osImage: ""
	//       systemUUID: ""
	// kind: List
}
