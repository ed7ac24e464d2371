package cli

import (
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon/eligibility"
)

// jsonAPIVersion is the apiVersion of every -o json document (plan,
// simulate, explain). It changes only if a field ever has to change
// meaning; fields are added under the same version.
const jsonAPIVersion = "dsplan.daemonplan.io/v1alpha1"

// planJSON is the stable schema of "plan -o json|yaml": one per DaemonSet.
// Fields are added, never renamed or removed.
type planJSON struct {
	// APIVersion and Kind name the document and its JSON Schema
	// (examples/dsplan/schema): dsplan.daemonplan.io/v1alpha1 and Plan.
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// DaemonSet is "namespace/name".
	DaemonSet string `json:"daemonSet"`
	// Hash is the current revision's controller-revision-hash.
	Hash string `json:"hash"`
	// Skip is why the sync does nothing by design (SelectingAll,
	// DaemonSetDeleting).
	Skip string `json:"skip,omitempty"`
	// Creates are the pods the sync creates, by node name.
	Creates []createJSON `json:"creates"`
	// Deletes are the pods the sync deletes, by node name, then pod name.
	Deletes []deleteJSON `json:"deletes"`
	// Adopt and Release are pods, "namespace/name", the sync adopts
	// (orphans its selector matches) and releases (controlled pods it no
	// longer matches).
	Adopt   []string `json:"adopt"`
	Release []string `json:"release"`
	// DeferredCreates and DeferredDeletes count what the burst cap
	// (--burst) held back for a later sync.
	DeferredCreates int `json:"deferredCreates"`
	DeferredDeletes int `json:"deferredDeletes"`
	// History is what the sync does to the ControllerRevisions.
	History historyJSON `json:"history"`
	// Rolling is the rolling-update step, when it ran.
	Rolling *rollingJSON `json:"rolling,omitempty"`
	// Status is what the controller computes; StatusChanged whether it
	// writes it.
	Status        *appsv1.DaemonSetStatus `json:"status"`
	StatusChanged bool                    `json:"statusChanged"`
	// RequeueAfter is a Go duration ("20s"); "0s" for none.
	RequeueAfter string `json:"requeueAfter"`
	// Events are the events the controller records in this sync.
	Events []eventJSON `json:"events"`
	// Ineligible are the nodes where the DaemonSet should not run its
	// pod, sorted by name, each with why not; nodes where it should are
	// left out.
	Ineligible []verdictJSON `json:"ineligible"`
	// Applied, when the DaemonSet came from a manifest in the input (one
	// without metadata.uid), says what it was applied over.
	Applied *appliedJSON `json:"applied,omitempty"`
	// Rollout, when the DaemonSet has rollout annotations
	// (rollout.daemonplan.io/…), says which were read and how it was
	// planned: the plan is what the example controller will do.
	Rollout *rolloutJSON `json:"rollout,omitempty"`
	// Notes say what the input lacks for this plan (no revisions).
	Notes []string `json:"notes,omitempty"`
	// Error is Compute's error, its stage and cause without the DaemonSet
	// (named by daemonSet); the other fields then hold what upstream would
	// still have done.
	Error string `json:"error,omitempty"`
}

// createJSON is a pod the sync creates.
type createJSON struct {
	// Node is the node the pod is bound to (by node affinity).
	Node string `json:"node"`
	// Reason is why: NodeNeedsPod, Surge, SurgeForUnavailable.
	Reason string `json:"reason"`
}

// deleteJSON is a pod the sync deletes.
type deleteJSON struct {
	// Pod is "namespace/name".
	Pod string `json:"pod"`
	// Node is the node the pod runs on or targets.
	Node string `json:"node"`
	// Reason is why: RollingUpdate, ReplaceUnavailable, SurgeReplaced,
	// PodFailed, ExcessPod, NodeIneligible, NodeMissing, ...
	Reason string `json:"reason"`
}

// historyJSON are the ControllerRevision changes, by revision name.
type historyJSON struct {
	// Create is the revision the sync creates (none or one).
	Create []string `json:"create"`
	// Update are the revisions whose revision number goes up.
	Update []string `json:"update"`
	// Delete are the old revisions past revisionHistoryLimit.
	Delete []string `json:"delete"`
	// Adopt and Release are revisions the DaemonSet takes over or lets go.
	Adopt   []string `json:"adopt"`
	Release []string `json:"release"`
	// Relabel are pods, "namespace/name", that get the current
	// controller-revision-hash label.
	Relabel []string `json:"relabel"`
	// CollisionCount is the status's collisionCount, when the sync writes
	// it.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
}

// rollingJSON is the rolling-update step's budget arithmetic.
type rollingJSON struct {
	// Desired is the number of nodes that should run the pod.
	Desired int `json:"desired"`
	// MaxUnavailable and MaxSurge are the budgets scaled against Desired.
	MaxUnavailable int `json:"maxUnavailable"`
	MaxSurge       int `json:"maxSurge"`
	// Unavailable (maxSurge 0) and Surge (surge) are what the step
	// counted against them; Available the nodes with an available pod
	// (surge).
	Unavailable int `json:"unavailable"`
	Surge       int `json:"surge"`
	Available   int `json:"available"`
	// Candidates are the old pods (nodes, under surge) waiting for the
	// budget.
	Candidates int `json:"candidates"`
}

// verdictJSON is the placement verdict of one node.
type verdictJSON struct {
	// Node is the node's name.
	Node string `json:"node"`
	// ShouldRun is whether the DaemonSet should run a pod there (a
	// create when it has none); MayKeepPod whether a pod already there may
	// stay (only an untolerated NoSchedule taint).
	ShouldRun  bool `json:"shouldRun"`
	MayKeepPod bool `json:"mayKeepPod"`
	// WhyNot are the reasons, in words, as explain prints them.
	WhyNot []string `json:"whyNot"`
}

// appliedJSON is what a manifest was applied over.
type appliedJSON struct {
	// File is the -f file the manifest came from.
	File string `json:"file"`
	// Created is true when no captured DaemonSet had its namespace and
	// name: it was created.
	Created bool `json:"created"`
	// OverUID and OverGeneration are the captured DaemonSet's, when it was
	// applied over one; Generation and TemplateGeneration the result's.
	OverUID            string `json:"overUID,omitempty"`
	OverGeneration     int64  `json:"overGeneration,omitempty"`
	Generation         int64  `json:"generation"`
	TemplateGeneration string `json:"templateGeneration"`
	// TemplateChanged and SpecChanged say what the apply changes: a
	// changed template starts a rollout.
	TemplateChanged bool `json:"templateChanged"`
	SpecChanged     bool `json:"specChanged"`
	// Dropped are the captured object's labels and annotations the
	// manifest leaves out (field paths), which this apply removes.
	Dropped []string `json:"dropped,omitempty"`
	// TemplateChanges are the pod template's changed fields
	// (apply.TemplateDiff), every changed leaf in key order, when the
	// template changes; absent otherwise.
	TemplateChanges []fieldChangeJSON `json:"templateChanges,omitempty"`
	// RollbackTo is the older revision whose template the result has
	// (rollout.RollbackTo): the rollout it starts is a rollback to that
	// revision; absent (0) when the template is new or unchanged.
	RollbackTo int64 `json:"rollbackTo,omitempty"`
}

// fieldChangeJSON is one changed field of the pod template.
type fieldChangeJSON struct {
	// Path is the field's path under the DaemonSet, such as
	// spec.template.spec.containers[kube-proxy].image: list elements that
	// have a name are named, others indexed ([0]); map keys that are not
	// plain identifiers are bracketed.
	Path string `json:"path"`
	// Old and New are the field's compact JSON values before and after
	// the apply (a string value keeps its quotes); absent where the field
	// is absent on that side.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// eventJSON is an event the controller records.
type eventJSON struct {
	// Type is Normal or Warning; Reason and Message as the event has them.
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// toJSON renders one result in the schema; l gives the nodes and what
// was applied.
func toJSON(r result, l *loaded) planJSON {
	p := r.plan
	out := planJSON{
		APIVersion:      jsonAPIVersion,
		Kind:            "Plan",
		DaemonSet:       r.name,
		Hash:            p.Hash,
		Skip:            string(p.Skip),
		Creates:         []createJSON{},
		Deletes:         []deleteJSON{},
		Adopt:           podNames(p.Adopt),
		Release:         podNames(p.Release),
		DeferredCreates: p.DeferredCreates,
		DeferredDeletes: p.DeferredDeletes,
		History: historyJSON{
			Create:         []string{},
			Update:         revNames(p.History.Update),
			Delete:         revNames(p.History.Delete),
			Adopt:          revNames(p.History.Adopt),
			Release:        revNames(p.History.Release),
			Relabel:        podNames(p.History.Relabel),
			CollisionCount: p.History.CollisionCount,
		},
		StatusChanged: p.StatusChanged,
		RequeueAfter:  p.RequeueAfter.String(),
		Events:        []eventJSON{},
		Notes:         r.notes,
		Rollout:       r.rollout.toJSON(),
	}
	if r.err == nil || p.Hash != "" || p.StatusChanged {
		st := p.Status
		out.Status = &st
	}
	if p.History.Create != nil {
		out.History.Create = append(out.History.Create, p.History.Create.Name)
	}
	for _, c := range p.Creates {
		out.Creates = append(out.Creates, createJSON{Node: c.NodeName, Reason: string(c.Reason)})
	}
	for _, d := range p.Deletes {
		out.Deletes = append(out.Deletes, deleteJSON{Pod: podName(d.Pod), Node: d.NodeName, Reason: string(d.Reason)})
	}
	if s := p.Rolling; s != nil {
		out.Rolling = &rollingJSON{
			Desired: s.Desired, MaxUnavailable: s.MaxUnavailable, MaxSurge: s.MaxSurge,
			Unavailable: s.NumUnavailable, Surge: s.NumSurge, Available: s.NumAvailable, Candidates: s.Candidates,
		}
	}
	for _, e := range p.Events {
		out.Events = append(out.Events, eventJSON{Type: e.Type, Reason: e.Reason, Message: e.Message})
	}
	if r.err != nil {
		out.Error = r.errText()
	}
	out.Ineligible = ineligible(r.ds, l.snap.Nodes)
	for _, a := range l.applied {
		if a.name == r.name {
			out.Applied = a.toJSON()
		}
	}
	return out
}

// ineligible lists the verdicts of the nodes where ds should not run, by
// node name; none for a nil ds.
func ineligible(ds *appsv1.DaemonSet, nodes []*corev1.Node) []verdictJSON {
	out := []verdictJSON{}
	if ds == nil {
		return out
	}
	elig := eligibility.New(ds, false)
	for _, n := range nodes {
		if n == nil {
			continue
		}
		if run, _ := elig.ShouldRun(n); run {
			continue
		}
		v := elig.Explain(n)
		out = append(out, verdictJSON{Node: n.Name, ShouldRun: v.ShouldRun, MayKeepPod: v.ShouldContinueRunning, WhyNot: append([]string{}, reasons(v)...)})
	}
	slices.SortFunc(out, func(a, b verdictJSON) int { return strings.Compare(a.Node, b.Node) })
	return out
}

func (a appliedManifest) toJSON() *appliedJSON {
	out := &appliedJSON{File: a.file, Created: a.over == nil, Generation: a.result.Generation,
		TemplateGeneration: a.result.Annotations[appsv1.DeprecatedTemplateGeneration],
		TemplateChanged:    a.change.Template, SpecChanged: a.change.Spec, Dropped: a.change.Dropped,
		RollbackTo: a.rollback}
	for _, d := range a.diff {
		out.TemplateChanges = append(out.TemplateChanges, fieldChangeJSON{Path: d.Path, Old: d.Old, New: d.New})
	}
	if a.over != nil {
		out.OverUID, out.OverGeneration = string(a.over.UID), a.over.Generation
	}
	return out
}

func podName(p *corev1.Pod) string {
	if p == nil {
		return "<nil>"
	}
	return cache.MetaObjectToName(p).String()
}

func podNames(pods []*corev1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, podName(p))
	}
	return out
}

func revNames(revs []*appsv1.ControllerRevision) []string {
	out := make([]string, 0, len(revs))
	for _, r := range revs {
		if r == nil {
			out = append(out, "<nil>")
			continue
		}
		out = append(out, r.Name)
	}
	return out
}
