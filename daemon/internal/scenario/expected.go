package scenario

import (
	"encoding/json"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Count bounds the size of a recorded list over all runs.
type Count struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Expected is what upstream did in a scenario. For each list X, X holds what
// every run did, XMay what only some runs did, and XCount, when non-nil, the
// bounds of |X| over the runs. Lists of names are multisets (a node can get
// several creates).
type Expected struct {
	// Hash is the controller-revision-hash of the current revision; HashMay
	// holds the other values some runs had.
	Hash    string   `json:"hash"`
	HashMay []string `json:"hashMay,omitempty"`

	// Creates are node names; Deletes, Adopts, Releases and Relabels pod
	// names.
	Creates       []string `json:"creates"`
	CreatesMay    []string `json:"createsMay,omitempty"`
	CreatesCount  *Count   `json:"createsCount,omitempty"`
	Deletes       []string `json:"deletes"`
	DeletesMay    []string `json:"deletesMay,omitempty"`
	DeletesCount  *Count   `json:"deletesCount,omitempty"`
	Adopts        []string `json:"adopts,omitempty"`
	AdoptsMay     []string `json:"adoptsMay,omitempty"`
	AdoptsCount   *Count   `json:"adoptsCount,omitempty"`
	Releases      []string `json:"releases,omitempty"`
	ReleasesMay   []string `json:"releasesMay,omitempty"`
	ReleasesCount *Count   `json:"releasesCount,omitempty"`
	Relabels      []string `json:"relabels,omitempty"`
	RelabelsMay   []string `json:"relabelsMay,omitempty"`
	RelabelsCount *Count   `json:"relabelsCount,omitempty"`

	// The Revisions lists are ControllerRevision names.
	RevisionsCreated       []string `json:"revisionsCreated,omitempty"`
	RevisionsCreatedMay    []string `json:"revisionsCreatedMay,omitempty"`
	RevisionsCreatedCount  *Count   `json:"revisionsCreatedCount,omitempty"`
	RevisionsDeleted       []string `json:"revisionsDeleted,omitempty"`
	RevisionsDeletedMay    []string `json:"revisionsDeletedMay,omitempty"`
	RevisionsDeletedCount  *Count   `json:"revisionsDeletedCount,omitempty"`
	RevisionsUpdated       []string `json:"revisionsUpdated,omitempty"`
	RevisionsUpdatedMay    []string `json:"revisionsUpdatedMay,omitempty"`
	RevisionsUpdatedCount  *Count   `json:"revisionsUpdatedCount,omitempty"`
	RevisionsAdopted       []string `json:"revisionsAdopted,omitempty"`
	RevisionsAdoptedMay    []string `json:"revisionsAdoptedMay,omitempty"`
	RevisionsAdoptedCount  *Count   `json:"revisionsAdoptedCount,omitempty"`
	RevisionsReleased      []string `json:"revisionsReleased,omitempty"`
	RevisionsReleasedMay   []string `json:"revisionsReleasedMay,omitempty"`
	RevisionsReleasedCount *Count   `json:"revisionsReleasedCount,omitempty"`

	// Status is the status upstream wrote; nil means JSON null: no write.
	// StatusMay holds the other outcomes some runs had; a nil entry is a
	// run that wrote nothing.
	Status    *appsv1.DaemonSetStatus   `json:"status"`
	StatusMay []*appsv1.DaemonSetStatus `json:"statusMay,omitempty"`

	// Error is the error upstream returned; nil when it returned none.
	// ErrorMay holds the other outcomes some runs had; a nil entry is a run
	// without error.
	Error    *string   `json:"error,omitempty"`
	ErrorMay []*string `json:"errorMay,omitempty"`

	// CreatedPods maps a node name to the pod upstream POSTed for it, as
	// recorded.
	CreatedPods map[string]json.RawMessage `json:"createdPods,omitempty"`

	// Trials is how many runs were made; Deterministic whether they all
	// agreed.
	Trials        int  `json:"trials"`
	Deterministic bool `json:"deterministic"`
}

// NamedList is one list of Expected with its name in the file.
type NamedList struct {
	// Name is the key of the list ("creates", "revisionsDeleted", ...).
	Name  string
	Want  []string
	May   []string
	Count *Count
}

// Lists returns the lists of e in a fixed order: creates, deletes, adopts,
// releases, relabels, then the revisionsCreated, revisionsDeleted,
// revisionsUpdated, revisionsAdopted and revisionsReleased lists. The
// slices are e's own.
func (e *Expected) Lists() []NamedList {
	return []NamedList{
		{"creates", e.Creates, e.CreatesMay, e.CreatesCount},
		{"deletes", e.Deletes, e.DeletesMay, e.DeletesCount},
		{"adopts", e.Adopts, e.AdoptsMay, e.AdoptsCount},
		{"releases", e.Releases, e.ReleasesMay, e.ReleasesCount},
		{"relabels", e.Relabels, e.RelabelsMay, e.RelabelsCount},
		{"revisionsCreated", e.RevisionsCreated, e.RevisionsCreatedMay, e.RevisionsCreatedCount},
		{"revisionsDeleted", e.RevisionsDeleted, e.RevisionsDeletedMay, e.RevisionsDeletedCount},
		{"revisionsUpdated", e.RevisionsUpdated, e.RevisionsUpdatedMay, e.RevisionsUpdatedCount},
		{"revisionsAdopted", e.RevisionsAdopted, e.RevisionsAdoptedMay, e.RevisionsAdoptedCount},
		{"revisionsReleased", e.RevisionsReleased, e.RevisionsReleasedMay, e.RevisionsReleasedCount},
	}
}

// statusCounters are the keys every recorded status object must hold.
var statusCounters = []string{
	"desiredNumberScheduled", "currentNumberScheduled", "numberMisscheduled",
	"numberReady", "updatedNumberScheduled", "numberAvailable",
	"numberUnavailable", "observedGeneration",
}

// decodeExpected decodes the "expected" object strictly. "hash" and
// "status" must be present (status may be null), and every status object
// must hold all eight counters, so that a missing one is not read as 0.
func decodeExpected(raw json.RawMessage) (Expected, error) {
	var e Expected
	if err := strict(raw, &e); err != nil {
		return Expected{}, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Expected{}, err
	}
	for _, k := range []string{"hash", "status"} {
		if _, ok := keys[k]; !ok {
			return Expected{}, fmt.Errorf("%s: required", k)
		}
	}
	if err := checkStatusKeys("status", keys["status"]); err != nil {
		return Expected{}, err
	}
	if may, ok := keys["statusMay"]; ok {
		var list []json.RawMessage
		if err := json.Unmarshal(may, &list); err != nil {
			return Expected{}, fmt.Errorf("statusMay: %w", err)
		}
		for i, s := range list {
			if err := checkStatusKeys(fmt.Sprintf("statusMay[%d]", i), s); err != nil {
				return Expected{}, err
			}
		}
	}
	nodes := make([]string, 0, len(e.CreatedPods))
	for node := range e.CreatedPods {
		nodes = append(nodes, node)
	}
	slices.Sort(nodes)
	for _, node := range nodes {
		if err := strict(e.CreatedPods[node], new(corev1.Pod)); err != nil {
			return Expected{}, fmt.Errorf("createdPods[%q]: %w", node, err)
		}
	}
	for _, l := range e.Lists() {
		if l.Count != nil && (l.Count.Min < 0 || l.Count.Min > l.Count.Max) {
			return Expected{}, fmt.Errorf("%sCount: invalid bounds {min: %d, max: %d}", l.Name, l.Count.Min, l.Count.Max)
		}
	}
	return e, nil
}

// checkStatusKeys checks that a status object, unless null, holds every
// counter.
func checkStatusKeys(path string, raw json.RawMessage) error {
	if isAbsentOrNull(raw) {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, k := range statusCounters {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("%s.%s: required", path, k)
		}
	}
	return nil
}

// allowedStrings returns v followed by may, without duplicates.
func allowedStrings(v string, may []string) []string {
	out := []string{v}
	for _, m := range may {
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}
