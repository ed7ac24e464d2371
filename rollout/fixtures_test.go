package rollout_test

// This file owns the conformance fixtures of the rollout package:
// testdata/hashes.json and testdata/history.json. They are extracted from
// the scenarios in /work/shared/conformance/public/*.json, each of which
// records what kube-controller-manager v1.37.2's DaemonSet controller did in
// one sync. The repository's tests read only the extracts, so they pass
// without /work/shared. To regenerate them (and review the diff):
//
//	go test ./rollout -run '^TestConformanceFixtures$' -update-conformance
//
// The flag is not called -update so that it cannot clash with a flag of
// another test file of this package.

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

var updateConformance = flag.Bool("update-conformance", false,
	"rewrite rollout/testdata/{hashes,history}.json from the conformance scenarios")

// conformanceSource is where the upstream scenarios live on the machine
// that generated the fixtures; CONFORMANCE_DIR overrides it.
const conformanceSource = "/work/shared/conformance/public"

const (
	hashFixturesFile    = "testdata/hashes.json"
	historyFixturesFile = "testdata/history.json"
)

// hashFixture is one scenario without ControllerRevisions in which upstream
// created the first revision: its hash is ComputeHash(template,
// collisionCount).
type hashFixture struct {
	Scenario string `json:"scenario"`
	// Template is the scenario's spec.template exactly as the file holds it,
	// so that decoding it gives the object upstream hashed.
	Template       json.RawMessage `json:"template"`
	CollisionCount *int32          `json:"collisionCount"`
	Hash           string          `json:"hash"`
}

// historyFixture is the part of one scenario that revision history needs:
// the DaemonSet and every ControllerRevision of the namespace (data
// compacted, as upstream stored it), and, only where they can matter, the
// pods in reduced form. Pods matter when duplicate current revisions can be
// merged (two revisions with equal data, or upstream relabelled pods) or
// when the cleanup can run (more revisions than revisionHistoryLimit);
// elsewhere they are omitted, and ConstructHistory and CleanupHistory then
// ignore pods anyway.
type historyFixture struct {
	Scenario  string               `json:"scenario"`
	DaemonSet json.RawMessage      `json:"daemonSet"`
	Revisions []json.RawMessage    `json:"revisions,omitempty"`
	Pods      []historyPodFixture  `json:"pods,omitempty"`
	Expected  historyFixtureResult `json:"expected"`
}

// historyPodFixture is a pod reduced to what claiming, the live-hash set
// and relabelling read.
type historyPodFixture struct {
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	UID       types.UID         `json:"uid"`
	Labels    map[string]string `json:"labels,omitempty"`
	// Controller is the pod's controller reference as "kind/name/uid", ""
	// when it has none.
	Controller string `json:"controller,omitempty"`
	// Deleting is true when the pod has a deletionTimestamp.
	Deleting bool `json:"deleting,omitempty"`
	// TargetNode is the node the pod targets (spec.nodeName, else the single
	// metadata.name value of its required node affinity), "" when none.
	TargetNode string `json:"targetNode,omitempty"`
}

// historyFixtureResult is the revision-related part of a scenario's
// expected outcome (see the conformance README for the *May fields).
type historyFixtureResult struct {
	Hash                string   `json:"hash"`
	HashMay             []string `json:"hashMay,omitempty"`
	Error               string   `json:"error,omitempty"`
	RevisionsCreated    []string `json:"revisionsCreated,omitempty"`
	RevisionsUpdated    []string `json:"revisionsUpdated,omitempty"`
	RevisionsDeleted    []string `json:"revisionsDeleted,omitempty"`
	RevisionsDeletedMay []string `json:"revisionsDeletedMay,omitempty"`
	Relabels            []string `json:"relabels,omitempty"`
	RelabelsMay         []string `json:"relabelsMay,omitempty"`
	// CollisionCount is status.collisionCount as upstream wrote it, when it
	// wrote a status.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
}

// conformanceScenario is the subset of a scenario file the generator reads.
type conformanceScenario struct {
	Name      string `json:"name"`
	DaemonSet struct {
		Spec struct {
			Template json.RawMessage `json:"template"`
		} `json:"spec"`
		Status struct {
			CollisionCount *int32 `json:"collisionCount"`
		} `json:"status"`
	} `json:"daemonSet"`
	RawDaemonSet json.RawMessage   `json:"-"`
	Revisions    []json.RawMessage `json:"revisions"`
	Pods         []*corev1.Pod     `json:"pods"`
	Expected     struct {
		historyFixtureResult
		Status *struct {
			CollisionCount *int32 `json:"collisionCount"`
		} `json:"status"`
	} `json:"expected"`
}

func TestConformanceFixtures(t *testing.T) {
	if !*updateConformance {
		// Without the flag, only check that the committed fixtures load.
		if len(loadHashFixtures(t)) == 0 || len(loadHistoryFixtures(t)) == 0 {
			t.Fatal("empty conformance fixtures")
		}
		return
	}
	dir := conformanceSource
	if d := os.Getenv("CONFORMANCE_DIR"); d != "" {
		dir = d
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance scenarios in %s (err %v)", dir, err)
	}
	slices.Sort(files)
	var hashes []hashFixture
	var histories []historyFixture
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sc conformanceScenario
		if err := json.Unmarshal(data, &sc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var raw struct {
			DaemonSet json.RawMessage `json:"daemonSet"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sc.RawDaemonSet = raw.DaemonSet
		exp := sc.Expected.historyFixtureResult
		if sc.Expected.Status != nil {
			exp.CollisionCount = sc.Expected.Status.CollisionCount
		}
		if sc.Revisions == nil && exp.Hash != "" {
			hashes = append(hashes, hashFixture{
				Scenario:       sc.Name,
				Template:       sc.DaemonSet.Spec.Template,
				CollisionCount: sc.DaemonSet.Status.CollisionCount,
				Hash:           exp.Hash,
			})
		}
		fx := historyFixture{Scenario: sc.Name, DaemonSet: raw.DaemonSet, Revisions: sc.Revisions, Expected: exp}
		if podsMatterForHistory(t, sc) {
			for _, p := range sc.Pods {
				if p != nil {
					fx.Pods = append(fx.Pods, reducePodForHistory(p))
				}
			}
		}
		histories = append(histories, fx)
	}
	writeFixtureJSON(t, hashFixturesFile, hashes)
	writeFixtureJSON(t, historyFixturesFile, histories)
	t.Logf("wrote %d hash and %d history fixtures", len(hashes), len(histories))
}

// podsMatterForHistory reports whether the pods of sc can change the
// revision work: duplicates may be merged (pods relabelled) or old
// revisions cleaned up (live hashes spared).
func podsMatterForHistory(t *testing.T, sc conformanceScenario) bool {
	exp := sc.Expected.historyFixtureResult
	if len(exp.Relabels) > 0 || len(exp.RelabelsMay) > 0 {
		return true
	}
	var ds appsv1.DaemonSet
	if err := json.Unmarshal(sc.RawDaemonSet, &ds); err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	if ds.Spec.RevisionHistoryLimit == nil || len(sc.Revisions) > int(*ds.Spec.RevisionHistoryLimit) {
		return true
	}
	seen := map[string]bool{}
	for _, raw := range sc.Revisions {
		var rev struct {
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &rev); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, rev.Data); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if seen[compact.String()] {
			return true
		}
		seen[compact.String()] = true
	}
	return false
}

func reducePodForHistory(p *corev1.Pod) historyPodFixture {
	out := historyPodFixture{
		Name:       p.Name,
		Namespace:  p.Namespace,
		UID:        p.UID,
		Labels:     p.Labels,
		Deleting:   p.DeletionTimestamp != nil,
		TargetNode: p.Spec.NodeName,
	}
	if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
		out.Controller = ref.Kind + "/" + ref.Name + "/" + string(ref.UID)
	}
	if out.TargetNode == "" && p.Spec.Affinity != nil && p.Spec.Affinity.NodeAffinity != nil &&
		p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
	terms:
		for _, term := range p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			for _, req := range term.MatchFields {
				if req.Key == metav1.ObjectNameField && req.Operator == corev1.NodeSelectorOpIn {
					if len(req.Values) == 1 {
						out.TargetNode = req.Values[0]
					}
					break terms
				}
			}
		}
	}
	return out
}

// pod returns the typed pod of f: spec.nodeName holds the target node.
func (f historyPodFixture) pod() *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: f.Name, Namespace: f.Namespace, UID: f.UID, Labels: f.Labels},
		Spec:       corev1.PodSpec{NodeName: f.TargetNode},
	}
	if f.Controller != "" {
		parts := strings.SplitN(f.Controller, "/", 3)
		for len(parts) < 3 {
			parts = append(parts, "")
		}
		p.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: "apps/v1", Kind: parts[0], Name: parts[1], UID: types.UID(parts[2]),
			Controller: fixturePtr(true), BlockOwnerDeletion: fixturePtr(true),
		}}
	}
	if f.Deleting {
		p.DeletionTimestamp = &metav1.Time{}
	}
	return p
}

// writeFixtureJSON writes v, a slice, as a JSON array with one compact
// element per line, so that a regenerated file diffs by scenario.
func writeFixtureJSON[T any](t *testing.T, path string, v []T) {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("[")
	for i, e := range v {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n")
		buf.Write(line)
	}
	buf.WriteString("\n]")
	data := buf.Bytes()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The fixtures are read once per test binary; callers must not modify
// what they get.
var (
	hashFixturesOnce = sync.OnceValues(func() ([]hashFixture, error) {
		var out []hashFixture
		return out, readFixtureJSON(hashFixturesFile, &out)
	})
	historyFixturesOnce = sync.OnceValues(func() ([]historyFixture, error) {
		var out []historyFixture
		return out, readFixtureJSON(historyFixturesFile, &out)
	})
)

func loadHashFixtures(t testing.TB) []hashFixture {
	t.Helper()
	out, err := hashFixturesOnce()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func loadHistoryFixtures(t testing.TB) []historyFixture {
	t.Helper()
	out, err := historyFixturesOnce()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readFixtureJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s (regenerate with -update-conformance): %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding %s: %w", path, err)
	}
	return nil
}

// decodeHistoryFixture returns the typed objects of fx, with every
// revision's data compacted as upstream stored it.
func decodeHistoryFixture(t testing.TB, fx historyFixture) (*appsv1.DaemonSet, []*appsv1.ControllerRevision) {
	t.Helper()
	ds := new(appsv1.DaemonSet)
	if err := json.Unmarshal(fx.DaemonSet, ds); err != nil {
		t.Fatalf("%s: daemonSet: %v", fx.Scenario, err)
	}
	var revs []*appsv1.ControllerRevision
	for i, raw := range fx.Revisions {
		rev := new(appsv1.ControllerRevision)
		if err := json.Unmarshal(raw, rev); err != nil {
			t.Fatalf("%s: revisions[%d]: %v", fx.Scenario, i, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, rev.Data.Raw); err != nil {
			t.Fatalf("%s: revisions[%d].data: %v", fx.Scenario, i, err)
		}
		rev.Data.Raw = compact.Bytes()
		revs = append(revs, rev)
	}
	return ds, revs
}

// isCollision reports whether upstream's sync failed on a revision name
// collision.
func (r historyFixtureResult) isCollision() bool {
	return r.Error != "" && len(r.RevisionsCreated) == 1 && strings.Contains(r.Error, "already exists")
}

// fixturePtr returns a pointer to a copy of v.
func fixturePtr[T any](v T) *T { return &v }
