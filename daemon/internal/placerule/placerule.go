package placerule

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/daemonplan/daemonplan/affinity"
	"github.com/daemonplan/daemonplan/tolerations"
)

// Check names the check that decided a verdict.
type Check uint8

// The checks, in the order Decide applies them.
const (
	// None: every check passed (the verdict is Always).
	None Check = iota
	// NodeName: the template's spec.nodeName.
	NodeName
	// NodeAffinity: the nodeSelector and required node affinity.
	NodeAffinity
	// Taint: an untolerated NoSchedule taint, every NoExecute taint
	// tolerated: a pod already there may stay.
	Taint
	// NoExecuteTaint: an untolerated NoExecute taint: a pod already there
	// must go too.
	NoExecuteTaint
)

// Verdict is the outcome of Decide.
type Verdict struct {
	// Truth is whether a new daemon pod may be placed: Always, Never, or
	// Sometimes when a check was Sometimes and none was Never.
	Truth affinity.Truth
	// Check is the check that decided a Never or a Sometimes (the first
	// Sometimes); None for Always.
	Check Check
	// Taint is the deciding untolerated taint for Taint and
	// NoExecuteTaint.
	Taint corev1.Taint
}

// Decide applies the rule order. name is the nodeName check's truth;
// affinity judges the nodeSelector and required node affinity, and is
// called only when name is not Never; untolerated returns the first
// untolerated taint among the effects, and is called only when neither
// check is Never. A Never decides at once; a Sometimes decides only when no
// later check is Never (a taint, whose effects are known, wins over an
// open label value). A check's truth other than Never and Sometimes passes.
func Decide(name affinity.Truth, affinityTruth func() affinity.Truth,
	untolerated func(tolerations.EffectSet) (corev1.Taint, bool)) Verdict {
	var maybe Verdict
	switch name {
	case affinity.Never:
		return Verdict{Truth: affinity.Never, Check: NodeName}
	case affinity.Sometimes:
		maybe = Verdict{Truth: affinity.Sometimes, Check: NodeName}
	}
	switch affinityTruth() {
	case affinity.Never:
		return Verdict{Truth: affinity.Never, Check: NodeAffinity}
	case affinity.Sometimes:
		if maybe.Check == None {
			maybe = Verdict{Truth: affinity.Sometimes, Check: NodeAffinity}
		}
	}
	if taint, found := untolerated(tolerations.NoSchedule | tolerations.NoExecute); found {
		if taint.Effect == corev1.TaintEffectNoExecute {
			return Verdict{Truth: affinity.Never, Check: NoExecuteTaint, Taint: taint}
		}
		if noExecute, found := untolerated(tolerations.NoExecute); found {
			return Verdict{Truth: affinity.Never, Check: NoExecuteTaint, Taint: noExecute}
		}
		return Verdict{Truth: affinity.Never, Check: Taint, Taint: taint}
	}
	if maybe.Check != None {
		return maybe
	}
	return Verdict{Truth: affinity.Always}
}

// Of turns a two-valued check into a Truth: Always or Never.
func Of(ok bool) affinity.Truth {
	if ok {
		return affinity.Always
	}
	return affinity.Never
}
