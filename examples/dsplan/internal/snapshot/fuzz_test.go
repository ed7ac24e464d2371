package snapshot_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

// FuzzSnapshot feeds arbitrary bytes to Decode: it must return an error or
// a snapshot, never panic, and a snapshot must survive Encode and Decode:
// the second decoding equals the first (times to the second), and encoding
// it again gives the same bytes.
func FuzzSnapshot(f *testing.F) {
	f.Add([]byte(kubectlList))
	f.Add([]byte("apiVersion: v1\nkind: Pod\nmetadata: {name: p, creationTimestamp: \"2026-01-02T03:04:05.5Z\"}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: \"0.5\"}}\n"))
	f.Add([]byte(`{"apiVersion":"v1","kind":"PodList","items":[{"metadata":{"name":"b"}}]}`))
	f.Add([]byte("---\n---\nfoo: [1, 2\n"))
	f.Add([]byte(`[{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"r"},"data":{"spec":{}},"revision":2}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s1, err := snapshot.Decode("fuzz", data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("Decode() returned an empty error")
			}
			return
		}
		enc1, err := s1.Encode()
		if err != nil {
			t.Fatalf("Encode() error: %v", err)
		}
		s2, err := snapshot.Decode("enc1", enc1)
		if err != nil {
			t.Fatalf("Decode(Encode()) error: %v\n%s", err, enc1)
		}
		enc2, err := s2.Encode()
		if err != nil {
			t.Fatalf("Encode() error: %v", err)
		}
		if string(enc1) != string(enc2) {
			t.Fatalf("Encode(Decode(Encode())) differs:\n%s\n---\n%s", enc1, enc2)
		}
		s3, err := snapshot.Decode("enc2", enc2)
		if err != nil {
			t.Fatal(err)
		}
		s2.Notes = nil
		if !equality.Semantic.DeepEqual(s2, s3) {
			t.Fatalf("Decode(Encode(s)) != s for\n%s", enc2)
		}
		if len(s1.DaemonSets) != len(s2.DaemonSets) || len(s1.Nodes) != len(s2.Nodes) || len(s1.Pods) != len(s2.Pods) || len(s1.Revisions) != len(s2.Revisions) {
			t.Fatalf("round trip lost objects:\n%s", enc1)
		}
	})
}
