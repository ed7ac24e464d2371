package snapshot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// benchList returns a kubectl List of one DaemonSet, n nodes and n pods.
func benchList(n int, asJSON bool) []byte {
	var b strings.Builder
	if asJSON {
		b.WriteString(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"agent","namespace":"kube-system"}}`)
		for i := range n {
			fmt.Fprintf(&b, `,{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-%d","labels":{"kubernetes.io/os":"linux"}}}`, i)
			fmt.Fprintf(&b, `,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"agent-%d","namespace":"kube-system","labels":{"app":"agent"}},"spec":{"nodeName":"node-%d","containers":[{"name":"agent","image":"agent:v1"}]},"status":{"phase":"Running"}}`, i, i)
		}
		b.WriteString("]}")
		return []byte(b.String())
	}
	b.WriteString("apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: DaemonSet\n  metadata: {name: agent, namespace: kube-system}\n")
	for i := range n {
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-%d\n    labels: {kubernetes.io/os: linux}\n", i)
		fmt.Fprintf(&b, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: agent-%d\n    namespace: kube-system\n    labels: {app: agent}\n  spec:\n    nodeName: node-%d\n    containers:\n    - {name: agent, image: \"agent:v1\"}\n  status: {phase: Running}\n", i, i)
	}
	return []byte(b.String())
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{100, 1000} {
		for _, format := range []string{"yaml", "json"} {
			data := benchList(n, format == "json")
			b.Run(fmt.Sprintf("%s/nodes=%d", format, n), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if _, err := snapshot.Decode("bench", data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
