package progressive

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/internal/nearest"
	"github.com/daemonplan/daemonplan/daemon/progressive/window"
)

// The pause-after keywords; any other value is a value of the order label.
const (
	pointCanary    = daemon.CanaryWave
	pointEveryWave = "every-wave"
)

// defaultAnnotations is what a DaemonSet that opts in gets before its keys
// are read: the health gates on with their default thresholds, and
// OnFailurePause.
func defaultAnnotations() *Annotations {
	return &Annotations{
		Gates:     Gates{Health: HealthGates{On: true, MaxRestarts: DefaultMaxRestarts, ReadyTimeout: DefaultReadyTimeout}},
		OnFailure: OnFailurePause,
	}
}

// setGate parses the value v of k, one of the keys of the canary, the
// gates, on-failure and rolled-back-from, into a. It reports false when k
// is none of them.
func (a *Annotations) setGate(k, v string) (*field.Error, bool) {
	invalid := func(detail string) (*field.Error, bool) {
		return field.Invalid(annotationsPath.Key(k), v, detail), true
	}
	g := &a.Gates
	switch k {
	case AnnotationCanary:
		n, err := parseIntOrPercent(v, 1)
		if err != "" {
			return invalid(err)
		}
		// Spread is set once every key is read (spreadOf).
		a.Policy.Canary = &daemon.CanarySpec{Count: *n}
	case AnnotationPauseAfter:
		points, err := parsePoints(v)
		if err != "" {
			return invalid(err)
		}
		g.PauseAfter = points
	case AnnotationApproved:
		ap, err := parseApproval(v)
		if err != "" {
			return invalid(err)
		}
		g.Approved = ap
	case AnnotationWindow:
		ws, err := window.Parse(v)
		if err != nil {
			return invalid(err.Error())
		}
		g.Windows = ws
	case AnnotationHealthGates:
		b, ok := parseBool(v)
		if !ok {
			return invalid(`must be "true" or "false"`)
		}
		g.Health.On = b
	case AnnotationMaxRestarts:
		n, ok := parseDecimal(v)
		if !ok || n > MaxMaxRestarts {
			return invalid(fmt.Sprintf("must be an integer from 0 to %d, without sign or leading zeros (set %s to \"false\" for no health gates)", MaxMaxRestarts, AnnotationHealthGates))
		}
		g.Health.MaxRestarts = int32(n)
	case AnnotationReadyTimeout:
		d, err := parseDuration(v, MinDuration, MaxReadyTimeout, "", `"10m"`, " (set "+AnnotationHealthGates+` to "false" for no health gates)`)
		if err != "" {
			return invalid(err)
		}
		g.Health.ReadyTimeout = d
	case AnnotationOnFailure:
		switch f := OnFailure(v); f {
		case OnFailurePause, OnFailureRollback:
			a.OnFailure = f
		default:
			detail := `must be "pause" or "rollback"`
			if want, ok := nearest.Closest(strings.ToLower(v), []string{string(OnFailurePause), string(OnFailureRollback)}, 2); ok {
				detail += ": did you mean " + strconv.Quote(want) + "?"
			}
			return invalid(detail)
		}
	case AnnotationRolledBackFrom:
		if msg := hashError(v); msg != "" {
			return invalid(msg)
		}
		a.RolledBackFrom = v
	case AnnotationOutcome:
		o, err := ParseOutcome(v)
		if err != nil {
			return invalid(err.Error())
		}
		a.Outcome = &o
	default:
		return nil, false
	}
	return nil, true
}

// spreadOf is the label a canary under p is spread across: the domain
// label when p has a per-domain budget, else the order label, else "".
func spreadOf(p *daemon.RolloutPolicy) string {
	if p.DomainBudget != nil && p.DomainBudget.Label != "" {
		return p.DomainBudget.Label
	}
	return p.Order.Label
}

// hashError says why v is not a revision hash, "" when it is one: a
// non-empty label value (a pod-template-hash is one).
func hashError(v string) string {
	if v == "" {
		return "must be a revision hash (a pod-template-hash), not empty"
	}
	if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
		return "must be a revision hash (a pod-template-hash): " + strings.Join(msgs, "; ")
	}
	return ""
}

// parsePoints splits the pause-after list: comma-separated, spaces around
// a value dropped, each "canary", "every-wave" or a label value; empty and
// repeated values are errors. What a value needs (the canary, the order
// label) is checked with the other keys (gateNeeds).
func parsePoints(v string) ([]string, string) {
	parts := strings.Split(v, ",")
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return nil, fmt.Sprintf(`value %d is empty: must be comma-separated approval points: %q, %q or values of the order label`, i+1, pointCanary, pointEveryWave)
		case slices.Contains(out, p):
			return nil, fmt.Sprintf("value %q is repeated", p)
		case p == pointCanary || p == pointEveryWave:
		default:
			if msgs := validation.IsValidLabelValue(p); len(msgs) > 0 {
				return nil, fmt.Sprintf("value %q is not %q, %q or a label value: %s", p, pointCanary, pointEveryWave, strings.Join(msgs, "; "))
			}
		}
		out = append(out, p)
	}
	return out, ""
}

// nearKeyword returns the pause-after keyword p probably misspells
// ("every_wave", "Canary"), and false when p is a keyword or far from
// both.
func nearKeyword(p string) (string, bool) {
	if p == pointCanary || p == pointEveryWave {
		return "", false
	}
	low := strings.ToLower(p)
	if nearest.Distance(low, pointCanary, 1) <= 1 {
		return pointCanary, true
	}
	if nearest.Distance(low, pointEveryWave, 2) <= 2 {
		return pointEveryWave, true
	}
	return "", false
}

// parseApproval parses "<hash>/<wave>", split at the first "/": the hash
// a revision hash, the wave daemon.CanaryWave, daemon.RestWave, or a
// WaveOf name ("<label>=<value>", "!<label>").
func parseApproval(v string) (*Approval, string) {
	hash, wave, ok := strings.Cut(v, "/")
	if !ok {
		return nil, `must be "<revision hash>/<wave>", as kubectl dsplan rollout approve writes it`
	}
	if msg := hashError(hash); msg != "" {
		return nil, "the part before the first \"/\" " + msg
	}
	if msg := waveError(wave); msg != "" {
		return nil, msg
	}
	return &Approval{Hash: hash, Wave: wave}, ""
}

// waveError says why w is not a wave name, "" when it is one.
func waveError(w string) string {
	want := fmt.Sprintf("the wave after the first \"/\" must be %q, %q, \"<label>=<value>\" or \"!<label>\"", daemon.CanaryWave, daemon.RestWave)
	switch {
	case w == daemon.CanaryWave || w == daemon.RestWave:
		return ""
	case strings.HasPrefix(w, "!"):
		if msgs := validation.IsQualifiedName(w[1:]); len(msgs) > 0 {
			return want + ": " + strings.Join(msgs, "; ")
		}
		return ""
	}
	label, value, ok := strings.Cut(w, "=")
	if !ok {
		return want
	}
	if msgs := append(validation.IsQualifiedName(label), validation.IsValidLabelValue(value)...); len(msgs) > 0 {
		return want + ": " + strings.Join(msgs, "; ")
	}
	return ""
}

// gateNeeds reports what the canary and pause-after keys need and miss,
// and the pause-after values that misspell a keyword (a value listed in
// order-values is a wave, never a misspelling).
func (a *Annotations) gateNeeds(annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	has := func(k string) bool { _, ok := annotations[k]; return ok }
	points := a.Gates.PauseAfter
	var near []string
	for _, p := range points {
		if w, ok := nearKeyword(p); ok && !slices.Contains(a.Policy.Order.Values, p) {
			near = append(near, fmt.Sprintf("%q is not an approval point: did you mean %s?", p, w))
		}
	}
	if len(near) > 0 {
		errs = append(errs, field.Invalid(annotationsPath.Key(AnnotationPauseAfter), annotations[AnnotationPauseAfter], strings.Join(near, "; ")))
		return errs
	}
	if slices.Contains(points, pointCanary) && !has(AnnotationCanary) {
		errs = append(errs, field.Required(annotationsPath.Key(AnnotationCanary), "needed by "+AnnotationPauseAfter+` "canary"`))
	}
	if has(AnnotationOrderBy) {
		return errs
	}
	for _, p := range points {
		switch {
		case p == pointCanary || (p == pointEveryWave && has(AnnotationCanary)):
			continue
		case p == pointEveryWave:
			errs = append(errs, field.Required(annotationsPath.Key(AnnotationOrderBy),
				"needed by "+AnnotationPauseAfter+` "every-wave": waves are the values of the order label (or the canary and the rest)`))
		default:
			errs = append(errs, field.Required(annotationsPath.Key(AnnotationOrderBy),
				fmt.Sprintf("needed by %s %q: a value names the wave of that value of the order label", AnnotationPauseAfter, p)))
		}
		break // one error for the one missing key
	}
	return errs
}
