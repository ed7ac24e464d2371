package simulate

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// DefaultMaxSteps is the step limit of Run when Config.MaxSteps is 0.
const DefaultMaxSteps = 1000

// Config configures Run. The zero value works: created pods are
// bound, running and ready the instant they are created, none fails,
// deletions finish at once and nothing else happens.
type Config struct {
	// Seed seeds the simulator's only random choice: which created pods
	// fail.
	Seed uint64
	// BindDelay is the time from a pod's creation to the scheduler setting
	// its spec.nodeName; until then the pod is bound only by its node
	// affinity.
	BindDelay time.Duration
	// ReadyDelay is the time from a pod's creation to it running and being
	// Ready (or failing); at least BindDelay. A pod on a node that is not
	// Ready waits for the node. Pods of the input that are not Ready get
	// it too, counted from their own creation (at once when that is past),
	// unless FailingReason says they are failing: those stay as they are.
	ReadyDelay time.Duration
	// FailFraction is the fraction of created pods that fail (phase
	// Failed) at ReadyDelay instead of becoming Ready, drawn per pod from
	// Seed.
	FailFraction float64
	// GracePeriod is the time from a delete to the pod's removal; the pod
	// carries a deletionTimestamp meanwhile.
	GracePeriod time.Duration
	// Events change the cluster at given times after the start.
	Events []Event
	// MaxSteps bounds the number of syncs: DefaultMaxSteps when 0.
	MaxSteps int
	// Check, when set, computes the plan of every sync in place of the
	// simulator's daemon.Planner and judges it (daemontest.Checker runs
	// daemontest.CheckPlan, its seed offset by the step); its findings are
	// in the step's trace. Nil computes plans with a daemon.Planner and
	// judges nothing.
	Check func(step int, in Input) Checked
	// OnStep, when set, is called after each sync with its trace and the
	// cluster as the plan left it (Now is the sync's time). The objects
	// are never modified afterwards and may be kept, read-only (those the
	// simulation did not change are Run's input's own); the cluster's slices
	// change as the simulation goes on and must not be kept or modified.
	// It is how a caller records per-node state (a chart) without running
	// the simulation again.
	OnStep func(StepTrace, *Cluster)
	// Zones resolves the time zones of Cluster.Gates' windows
	// (time.LoadLocation is one; the library reads no zone database). nil
	// resolves "UTC" only.
	Zones window.Zones
}

// EventKind is the kind of a Event.
type EventKind string

// The kinds of cluster events.
const (
	// NodeJoin adds Event.Node (replacing a node of that name).
	NodeJoin EventKind = "NodeJoin"
	// NodeLeave removes the node NodeName; its pods are garbage-collected
	// at once, as the pod GC does for pods of deleted nodes. Pods bound to
	// it only by affinity stay.
	NodeLeave EventKind = "NodeLeave"
	// NodeNotReady turns the node NodeName NotReady, with the not-ready
	// NoSchedule and NoExecute taints; its pods stop being Ready.
	NodeNotReady EventKind = "NodeNotReady"
	// NodeReady turns the node NodeName Ready again; its running pods
	// become Ready.
	NodeReady EventKind = "NodeReady"
	// TemplateChange sets the image of the template's first container to
	// Image, as an update through the API server does (apply.Update): the
	// generation and the deprecated.daemonset.template.generation
	// annotation go up by one, so that pods labelled with the old
	// pod-template-generation are no longer updated.
	TemplateChange EventKind = "TemplateChange"
)

// Event is a change the simulator makes to the cluster at a given
// time, outside the plans.
type Event struct {
	// At is the time after the start of the simulation.
	At       time.Duration
	Kind     EventKind
	Node     *corev1.Node // NodeJoin
	NodeName string       // NodeLeave, NodeNotReady, NodeReady
	Image    string       // TemplateChange
}

// String describes the event for StepTrace.Events: its kind followed by the
// node's name (the Node's for NodeJoin, NodeName otherwise) or, for
// TemplateChange, the image.
func (e Event) String() string {
	switch e.Kind {
	case NodeJoin:
		if e.Node != nil {
			return fmt.Sprintf("%s %s", e.Kind, e.Node.Name)
		}
	case TemplateChange:
		return fmt.Sprintf("%s %s", e.Kind, e.Image)
	}
	return fmt.Sprintf("%s %s", e.Kind, e.NodeName)
}

// Checked is what Config.Check returns for one sync: the plan and error of
// Compute on the sync's input, and what is wrong with them.
type Checked struct {
	Plan daemon.Plan
	Err  error
	// Violations are the broken rules, one error each, kept in the step's
	// StepTrace.Violations.
	Violations []error
	// Panicked says that Compute panicked on the input (the panic among
	// Violations): the run stops at this step.
	Panicked bool
}
