package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/daemonplan/daemonplan/daemon/daemontest"
	"github.com/daemonplan/daemonplan/daemon/progressive/progressivetest"
)

// TestBadInputs runs the bad-input corpus (daemon/progressive's
// testdata/bad-inputs.json) through "dsplan simulate" over a capture of
// the corpus cluster annotated by each row (progressivetest.Cluster): a
// refused row exits 1 naming the field, a held one exits non-zero naming
// the key and the value (its exit code is the held outcome's, which the
// outcome table decides), an accepted one exits 0 (badInputOutcome).
func TestBadInputs(t *testing.T) {
	data, err := os.ReadFile("../../daemon/progressive/testdata/bad-inputs.json")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := progressivetest.Corpus(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var tally progressivetest.Tally
	for i, r := range rows {
		t.Run(r.Name(), func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(r.Name(), "/", "-")+".yaml")
			if err := os.WriteFile(path, corpusCapture(t, r), 0o644); err != nil {
				t.Fatal(err)
			}
			got, text := badInputOutcome(path)
			if msg := tally.Add(r, got, text); msg != "" {
				t.Errorf("row %d: %s", i+1, msg)
			}
		})
	}
	t.Log(tally)
	if tally.Silent > 0 || tally.Wrong > 0 {
		t.Error(tally)
	}
}

// badInputOutcome runs "dsplan simulate" over the capture at path and
// says what became of its DaemonSet's annotations: Accepted on exit 0,
// Refused on exit 1 with a field named (metadata.annotations[…]), Held on
// any other failure; text is what it printed, stderr first.
func badInputOutcome(path string) (progressivetest.Outcome, string) {
	var stdout, stderr bytes.Buffer
	code := Run([]string{"simulate", "-f", path, "--daemonset", "default/agent", "--now", daemontest.Epoch.Format("2006-01-02T15:04:05Z")}, nil, &stdout, &stderr, Options{})
	text := stderr.String() + stdout.String()
	switch {
	case code == 0:
		return progressivetest.Accepted, text
	case code == 1 && strings.Contains(text, "metadata.annotations["):
		return progressivetest.Refused, text
	}
	return progressivetest.Held, text
}

// corpusCapture is the corpus cluster annotated by r, as "kubectl get
// ds,nodes,pods,controllerrevisions -o yaml" prints it.
func corpusCapture(t *testing.T, r progressivetest.Row) []byte {
	t.Helper()
	ds, nodes, pods, revs := progressivetest.Cluster(r.AnnotationsFor(progressivetest.Hash()))
	list := &corev1.List{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "List"}}
	add := func(obj runtime.Object) {
		list.Items = append(list.Items, runtime.RawExtension{Object: obj})
	}
	ds.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}
	add(ds)
	for _, n := range nodes {
		n.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}
		add(n)
	}
	for _, p := range pods {
		p.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}
		add(p)
	}
	for _, rev := range revs {
		rev.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ControllerRevision"}
		add(rev)
	}
	out, err := yaml.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
