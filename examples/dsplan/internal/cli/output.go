package cli

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// planJSON is the stable schema of "plan -o json|yaml": one per DaemonSet.
// Fields are added, never renamed or removed.
type planJSON struct {
	// DaemonSet is "namespace/name".
	DaemonSet string `json:"daemonSet"`
	// Hash is the current revision's controller-revision-hash.
	Hash string `json:"hash"`
	// Skip is why the sync does nothing by design (SelectingAll,
	// DaemonSetDeleting).
	Skip    string       `json:"skip,omitempty"`
	Creates []createJSON `json:"creates"`
	Deletes []deleteJSON `json:"deletes"`
	// Adopt and Release are pods, "namespace/name".
	Adopt           []string     `json:"adopt"`
	Release         []string     `json:"release"`
	DeferredCreates int          `json:"deferredCreates"`
	DeferredDeletes int          `json:"deferredDeletes"`
	History         historyJSON  `json:"history"`
	Rolling         *rollingJSON `json:"rolling,omitempty"`
	// Status is what the controller computes; StatusChanged whether it
	// writes it.
	Status        *appsv1.DaemonSetStatus `json:"status"`
	StatusChanged bool                    `json:"statusChanged"`
	// RequeueAfter is a Go duration ("20s"); "0s" for none.
	RequeueAfter string      `json:"requeueAfter"`
	Events       []eventJSON `json:"events"`
	Notes        []string    `json:"notes,omitempty"`
	// Error is Compute's error; the other fields then hold what upstream
	// would still have done.
	Error string `json:"error,omitempty"`
}

type createJSON struct {
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

type deleteJSON struct {
	Pod    string `json:"pod"`
	Node   string `json:"node"`
	Reason string `json:"reason"`
}

// historyJSON are the ControllerRevision changes, by revision name;
// Relabel are pods, "namespace/name".
type historyJSON struct {
	Create         []string `json:"create"`
	Update         []string `json:"update"`
	Delete         []string `json:"delete"`
	Adopt          []string `json:"adopt"`
	Release        []string `json:"release"`
	Relabel        []string `json:"relabel"`
	CollisionCount *int32   `json:"collisionCount,omitempty"`
}

// rollingJSON is the rolling-update step's budget arithmetic.
type rollingJSON struct {
	Desired        int `json:"desired"`
	MaxUnavailable int `json:"maxUnavailable"`
	MaxSurge       int `json:"maxSurge"`
	Unavailable    int `json:"unavailable"`
	Surge          int `json:"surge"`
	Available      int `json:"available"`
	Candidates     int `json:"candidates"`
}

type eventJSON struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// toJSON renders one result in the schema.
func toJSON(r result) planJSON {
	p := r.plan
	out := planJSON{
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
		out.Error = r.err.Error()
	}
	return out
}

func podName(p *corev1.Pod) string {
	if p == nil {
		return "<nil>"
	}
	return p.Namespace + "/" + p.Name
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
