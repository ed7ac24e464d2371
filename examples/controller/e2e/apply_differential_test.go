package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/daemonplan/daemonplan/examples/dsplan/applycorpus"
)

// The apply differential (issue 37): every manifest of the corpus
// (examples/dsplan/applycorpus: mutations of real DaemonSet manifests) is
// sent to this kube-apiserver as kubectl apply would send it, with
// server-side dry-run (dryRun=All) and strict field validation (kubectl's
// default), and to dsplan's layered path (kubectl dsplan plan -f MANIFEST
// over this cluster); the two must agree on accept or reject and name the
// same fields. DAEMONPLAN_APPLY_RECORD=DIR writes the API server's answers
// (outcomes.json) and the stored bases (capture.json, a kubectl List) to DIR, for the
// offline replay in examples/dsplan's unit tests.

// lastAppliedKey is kubectl apply's annotation.
const lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"

// applyDifferential is the line TestMain prints, once the test ran.
var applyDifferential struct {
	mu   sync.Mutex
	line string
}

func printApplyDifferential(w io.Writer) {
	applyDifferential.mu.Lock()
	defer applyDifferential.mu.Unlock()
	if applyDifferential.line != "" {
		fmt.Fprintln(w, applyDifferential.line)
	}
}

func TestApplyDifferential(t *testing.T) {
	c := newCluster(t)
	ctx := context.Background()
	cases, err := applycorpus.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{applycorpus.CreateNamespace, applycorpus.OverNamespace} {
		if _, err := c.admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("namespace %s: %v", ns, err)
		}
	}
	bases, err := applycorpus.Bases(applycorpus.OverNamespace)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bases {
		body, err := kubectlModified(b.Manifest)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.admin.AppsV1().RESTClient().Post().Namespace(applycorpus.OverNamespace).Resource("daemonsets").
			Body(body).SetHeader("Content-Type", "application/json").Do(ctx).Error(); err != nil {
			t.Fatalf("base %s: %v", b.Name, err)
		}
	}

	dir := t.TempDir()
	recorded := map[string]applycorpus.Outcome{}
	disagreements, patchOnly := 0, 0
	for i, tc := range cases {
		server := c.kubectlApplyDryRun(ctx, tc)
		file := filepath.Join(dir, fmt.Sprintf("case-%03d.json", i))
		if err := os.WriteFile(file, tc.Manifest, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := c.dsplan("plan", "-f", file, "-n", tc.Namespace, "--daemonset", tc.Namespace+"/"+tc.DaemonSet)
		plugin := applycorpus.DsplanOutcome(code, stderr)
		recorded[tc.Name] = server
		if server.PatchOnly() && !plugin.Accepted {
			patchOnly++
		}
		if !server.Agrees(plugin) {
			disagreements++
			t.Errorf("%s (%s): the API server: %s; dsplan (exit %d): %s", tc.Name, tc.Class, server, code, plugin)
		}
	}
	line := fmt.Sprintf("apply-differential: %d manifests, %d disagreements (%d patches kube-apiserver refuses naming only \"patch\": judged on the refusal)", len(cases), disagreements, patchOnly)
	t.Log(line)
	applyDifferential.mu.Lock()
	applyDifferential.line = line
	applyDifferential.mu.Unlock()

	if out := os.Getenv("DAEMONPLAN_APPLY_RECORD"); out != "" {
		if err := applycorpus.WriteOutcomes(filepath.Join(out, "outcomes.json"), recorded); err != nil {
			t.Fatal(err)
		}
		list, err := c.admin.AppsV1().DaemonSets(applycorpus.OverNamespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		list.APIVersion, list.Kind = "v1", "List"
		for i := range list.Items {
			list.Items[i].APIVersion, list.Items[i].Kind = "apps/v1", "DaemonSet"
			list.Items[i].ManagedFields = nil
		}
		data, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, "capture.json"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// kubectlModified is the manifest as kubectl apply sends it: its status
// dropped, its last-applied annotation set to the manifest without it.
func kubectlModified(manifest []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(manifest))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	delete(obj, "status")
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	ann, _ := meta["annotations"].(map[string]any)
	delete(ann, lastAppliedKey)
	last, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[lastAppliedKey] = string(last)
	return json.Marshal(obj)
}

// kubectlApplyDryRun sends tc as kubectl apply --dry-run=server would:
// an apiVersion the server does not serve DaemonSets in fails the REST
// mapping; a create is a POST of the manifest; over a stored object, the
// three-way strategic merge patch of its last-applied annotation, the
// manifest and the object, PATCHed.
func (c *cluster) kubectlApplyDryRun(ctx context.Context, tc applycorpus.Case) applycorpus.Outcome {
	rejected := func(msg string) applycorpus.Outcome {
		return applycorpus.Outcome{Fields: applycorpus.Fields(msg), Message: msg}
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(tc.Manifest, &head); err != nil {
		return rejected(err.Error())
	}
	if !c.servesDaemonSets(head.APIVersion) {
		return rejected(fmt.Sprintf("apiVersion: Unsupported value: %q: no matches for kind \"DaemonSet\" in version %q", head.APIVersion, head.APIVersion))
	}
	modified, err := kubectlModified(tc.Manifest)
	if err != nil {
		return rejected(err.Error())
	}
	rc := c.admin.AppsV1().RESTClient()
	if tc.Mode == applycorpus.Create {
		err = rc.Post().Namespace(tc.Namespace).Resource("daemonsets").Param("dryRun", "All").Param("fieldValidation", "Strict").
			Body(modified).SetHeader("Content-Type", "application/json").Do(ctx).Error()
	} else {
		var live *appsv1.DaemonSet
		live, err = c.admin.AppsV1().DaemonSets(tc.Namespace).Get(ctx, tc.DaemonSet, metav1.GetOptions{})
		if err != nil {
			return rejected("getting the stored object: " + err.Error())
		}
		var current []byte
		if current, err = json.Marshal(live); err != nil {
			return rejected(err.Error())
		}
		original := []byte(live.Annotations[lastAppliedKey])
		var meta strategicpatch.LookupPatchMeta
		if meta, err = strategicpatch.NewPatchMetaFromStruct(appsv1.DaemonSet{}); err != nil {
			return rejected(err.Error())
		}
		var patch []byte
		if patch, err = strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true); err != nil {
			return rejected("kubectl: " + err.Error())
		}
		err = rc.Patch(types.StrategicMergePatchType).Namespace(tc.Namespace).Resource("daemonsets").Name(tc.DaemonSet).
			Param("dryRun", "All").Param("fieldValidation", "Strict").Body(patch).Do(ctx).Error()
	}
	if err != nil {
		return rejected(err.Error())
	}
	return applycorpus.Outcome{Accepted: true}
}

// servesDaemonSets reports whether the API server serves daemonsets in
// group version gv, as kubectl's REST mapping finds out.
func (c *cluster) servesDaemonSets(gv string) bool {
	list, err := c.admin.Discovery().ServerResourcesForGroupVersion(gv)
	if err != nil {
		return false
	}
	for _, r := range list.APIResources {
		if r.Name == "daemonsets" && r.Kind == "DaemonSet" {
			return true
		}
	}
	return false
}
