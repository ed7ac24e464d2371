package controller

import "fmt"

// Mode is what the controller is to the cluster.
type Mode string

const (
	// ModeReplace: the controller is the cluster's DaemonSet controller,
	// instead of kube-controller-manager's (which must be off): it creates
	// and deletes pods, writes revisions and status. Rollout annotations
	// (daemon.ParseRolloutAnnotations) shape its plans, surge included;
	// progress-deadline and the rollout conditions are ModeCompanion's
	// only (this mode writes upstream's status, nothing more).
	ModeReplace Mode = "replace"
	// ModeCompanion: the controller runs beside kube-controller-manager's
	// DaemonSet controller and rolls out only the DaemonSets that opt in:
	// updateStrategy OnDelete and at least one rollout annotation.
	// kube-controller-manager keeps creating missing pods, deleting failed
	// and misplaced ones, writing revisions and status; under OnDelete it
	// never replaces an old pod. The companion plans each such DaemonSet as
	// if its strategy were RollingUpdate with the annotated budget and
	// maxSurge 0, under the annotated policy, and carries out only the
	// rolling step's deletes; kube-controller-manager recreates each
	// deleted pod at the current revision. It never creates a pod, writes a
	// revision or a status counter; it writes its own status conditions
	// (RolloutProgressing, RolloutPaused, RolloutBlocked) with a patch that
	// touches nothing else.
	ModeCompanion Mode = "companion"
)

// ParseMode returns the Mode named s ("" is ModeReplace).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeReplace:
		return ModeReplace, nil
	case ModeCompanion:
		return ModeCompanion, nil
	}
	return "", fmt.Errorf("unknown mode %q: want %q or %q", s, ModeReplace, ModeCompanion)
}

// mode is c.Mode, ModeReplace when empty.
func (c Config) mode() Mode {
	if c.Mode == "" {
		return ModeReplace
	}
	return c.Mode
}
