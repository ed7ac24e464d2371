package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// policyFlags are the rollout-control flags of "dsplan plan" and "dsplan
// simulate": one per rollout annotation key (see keyflags.go), each
// replacing that annotation of the DaemonSets planned, and
// --domain-max-surge, the per-domain surge of replace mode, which has no
// annotation. With neither annotations nor flags, the policy is zero:
// upstream's behaviour.
type policyFlags struct {
	// keys are the flags of the annotation keys, in the schema's order.
	keys           []*keyFlag
	domainMaxSurge string
	// set are the names of the flags given on the command line.
	set map[string]bool
}

// register registers the flags: the keys that shape a plan, and with
// beyond the others too (simulate replays the gates).
func (p *policyFlags) register(fs *pflag.FlagSet, beyond bool) {
	p.registerKeys(fs, beyond)
	fs.StringVar(&p.domainMaxSurge, "domain-max-surge", "", "replace mode's per-domain surge (no annotation): `N` or N% surging at once per value of the domain label (--domain or the annotation)")
}

// parsed records which flags fs was given; call it after fs.Parse.
func (p *policyFlags) parsed(fs *pflag.FlagSet) {
	p.set = map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { p.set[f.Name] = true })
}

// given returns the rollout-control flags set on the command line, as
// "--name", in the schema's order and --domain-max-surge last.
func (p *policyFlags) given() []string {
	out := p.givenKeys()
	if p.set["domain-max-surge"] {
		out = append(out, "--domain-max-surge")
	}
	return out
}

// check judges the flags on their own, before any input is read: a value
// the library's parser refuses, or a --domain-max-surge that
// RolloutPolicy.Validate refuses, is a usage error naming the flag.
func (p *policyFlags) check() error {
	if err := p.checkKeys(); err != nil {
		return err
	}
	if _, err := p.surge(&daemon.RolloutPolicy{DomainBudget: &daemon.DomainBudget{Label: "example.com/domain"}}); err != nil {
		return err
	}
	return nil
}

// surge returns pol with --domain-max-surge applied, when given, to its
// domain budget, which must exist: pol's pointers are shared, never
// written.
func (p *policyFlags) surge(pol *daemon.RolloutPolicy) (daemon.RolloutPolicy, error) {
	out := *pol
	if !p.set["domain-max-surge"] {
		return out, nil
	}
	if pol.DomainBudget == nil {
		return out, &usageError{fmt.Sprintf("--domain-max-surge needs --domain (or the %s annotation)", progressive.AnnotationDomain)}
	}
	d := *pol.DomainBudget
	d.MaxSurge = nil
	if p.domainMaxSurge != "" {
		v := intstr.Parse(p.domainMaxSurge)
		d.MaxSurge = &v
	}
	out.DomainBudget = &d
	if err := out.Validate(); err != nil {
		return out, &usageError{"rollout controls: " + flagErrors(err)}
	}
	return out, nil
}

// flagErrors says what RolloutPolicy.Validate's err says, the per-domain
// surge named by its flag.
func flagErrors(err error) string {
	var errs []error
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		errs = agg.Errors()
	} else {
		errs = []error{err}
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		var fe *field.Error
		if errors.As(e, &fe) && fe.Field == "rollout.domainBudget.maxSurge" {
			msgs[i] = fmt.Sprintf("--domain-max-surge %q: %s", fmt.Sprint(fe.BadValue), fe.Detail)
			continue
		}
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// dsRollout is how one DaemonSet is planned: the DaemonSet to plan with, its
// policy, and what was read from its annotations, for the output.
type dsRollout struct {
	// ds is the DaemonSet to plan with: the input's, or a shallow copy
	// with the strategy the annotations give (an OnDelete DaemonSet rolls
	// as RollingUpdate with the annotated budget, as companion mode plans
	// it).
	ds     *appsv1.DaemonSet
	policy daemon.RolloutPolicy
	// annotations are the rollout annotations read (nil: none);
	// parsed what they say.
	annotations map[string]string
	parsed      *progressive.Annotations
	// strategy says how the strategy was taken, "" when the DaemonSet's
	// own was kept without annotations.
	strategy string
	// companion says that companion mode rolls the DaemonSet out (OnDelete
	// with rollout annotations): it applies the progress deadline.
	companion bool
	// overrides are the flags that changed what the annotations say, as
	// "--name"; flagValues the key flags with their values, as
	// "--name=value".
	overrides, flagValues []string
	// inert is why the DaemonSet's own rollout annotations will not be
	// carried out beside kube-controller-manager (progressive.Inert), ""
	// when they will be or it has none: the preview's headline.
	inert string
	// warnings are what the library says is ignored or selects nothing:
	// annotations with a near-miss prefix (progressive.AnnotationWarnings)
	// and order labels or values no node has (progressive.OrderWarnings).
	warnings []string
}

// rolloutOf reads the rollout annotations of ds, with the key flags
// given over them (withFlags), by the library (progressive.ForDaemonSet):
// the policy the controller would roll ds out with, and the DaemonSet to
// plan with. Annotations that are invalid on their own (or a budget they
// contradict) are an input error naming the DaemonSet and each key; the
// flags making them invalid is a usage error naming each flag. nodes are
// the nodes the order is checked against (warnings). ds is not modified.
func (p *policyFlags) rolloutOf(ds *appsv1.DaemonSet, nodes []*corev1.Node) (dsRollout, error) {
	r := dsRollout{ds: ds, inert: progressive.Inert(ds)}
	name := cache.MetaObjectToName(ds).String()
	for k, v := range ds.Annotations {
		if strings.HasPrefix(k, progressive.AnnotationPrefix) {
			if r.annotations == nil {
				r.annotations = map[string]string{}
			}
			r.annotations[k] = v
		}
	}
	withFlags, flagged := p.withFlags(ds)
	planned, err := progressive.ForDaemonSet(withFlags)
	r.warnings = planned.Warnings
	if err != nil {
		if _, ownErr := progressive.ForDaemonSet(ds); flagged && ownErr == nil {
			return r, &usageError{fmt.Sprintf("rollout controls of %s: %s", name, p.keyErrors(err))}
		}
		if !flagged {
			return r, &inputError{fmt.Errorf("daemonset %q: rollout annotations: %w", name, err)}
		}
		return r, &inputError{fmt.Errorf("daemonset %q: rollout annotations and the flags: %s", name, p.keyErrors(err))}
	}
	r.ds, r.parsed = planned.DaemonSet, planned.Annotations
	if r.ds == withFlags {
		r.ds = ds // the flags change annotations, which the plan does not read
	}
	if r.parsed != nil {
		if ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
			r.companion = true
			ru := r.ds.Spec.UpdateStrategy.RollingUpdate
			r.strategy = fmt.Sprintf("OnDelete with rollout annotations: planned as companion mode rolls it out (RollingUpdate, maxUnavailable %s, maxSurge 0: it deletes old pods, kube-controller-manager recreates them)",
				ru.MaxUnavailable.String())
		} else {
			r.strategy = fmt.Sprintf("%s: its own budget under the annotated policy, as replace mode rolls it out",
				ds.Spec.UpdateStrategy.Type)
		}
		r.overrides = p.given()
		r.flagValues = p.givenValues()
		if p.set["domain-max-surge"] {
			r.flagValues = append(r.flagValues, "--domain-max-surge="+p.domainMaxSurge)
		}
	}
	pol, err := p.surge(&planned.Policy)
	if err != nil {
		return r, err
	}
	r.policy = pol
	r.warnings = append(r.warnings, progressive.OrderWarnings(&pol, nodes)...)
	return r, nil
}

// describe says, in a line, which rollout annotations were read and how
// the DaemonSet is planned; "" when it has none.
func (r *dsRollout) describe() string {
	if r.parsed == nil {
		return ""
	}
	if len(r.annotations) == 0 {
		return fmt.Sprintf("rollout annotations from the flags (%s); %s", strings.Join(r.flagValues, ", "), r.strategy)
	}
	keys := slices.Sorted(maps.Keys(r.annotations))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.TrimPrefix(k, progressive.AnnotationPrefix) + "=" + r.annotations[k]
	}
	s := fmt.Sprintf("rollout annotations read (%s): %s; %s", strings.TrimSuffix(progressive.AnnotationPrefix, "/"), strings.Join(parts, ", "), r.strategy)
	if len(r.flagValues) > 0 {
		s += "; overridden by " + strings.Join(r.flagValues, ", ")
	}
	return s
}

// headline is the preview's first line for a DaemonSet whose rollout
// annotations are inert beside kube-controller-manager, "" for another:
// the library's reason (progressive.Inert), and what the preview shows.
func (r *dsRollout) headline() string {
	if r.inert == "" {
		return ""
	}
	return r.inert + " (what follows is how replace mode, which replaces kube-controller-manager, would roll it out)"
}

// rolloutJSON is what a DaemonSet's rollout annotations said, in plan and
// simulate -o json.
type rolloutJSON struct {
	// Annotations are the keys under rollout.daemonplan.io/ read from the
	// DaemonSet, with their values.
	Annotations map[string]string `json:"annotations"`
	// Strategy says how the DaemonSet is planned: an OnDelete one as
	// companion mode rolls it out (RollingUpdate with the annotated
	// maxUnavailable, maxSurge 0), another with its own budget.
	Strategy string `json:"strategy"`
	// MaxUnavailable is the budget planned with (OnDelete: the
	// max-unavailable annotation, 1 without it), "" when the DaemonSet's
	// own strategy is kept.
	MaxUnavailable string `json:"maxUnavailable,omitempty"`
	// ProgressDeadline is the progress-deadline annotation (a Go
	// duration), "" without it; it takes no part in a plan.
	ProgressDeadline string `json:"progressDeadline,omitempty"`
	// OverriddenBy are the rollout-control flags given on the command
	// line, which override what the annotations say.
	OverriddenBy []string `json:"overriddenBy"`
	// Inert says why the DaemonSet's own rollout annotations will not be
	// carried out beside kube-controller-manager (a DaemonSet that is not
	// OnDelete: kube-controller-manager rolls it out by itself) and what
	// to change; absent when they will be.
	Inert string `json:"inert,omitempty"`
}

// toJSON is the JSON of the annotations read; nil when there are none.
func (r *dsRollout) toJSON() *rolloutJSON {
	if r.parsed == nil {
		return nil
	}
	annotations := maps.Clone(r.annotations)
	if annotations == nil {
		annotations = map[string]string{} // only flags
	}
	out := &rolloutJSON{Annotations: annotations, Strategy: r.strategy, OverriddenBy: append([]string{}, r.overrides...), Inert: r.inert}
	if ru := r.ds.Spec.UpdateStrategy.RollingUpdate; r.strategyChanged() && ru != nil && ru.MaxUnavailable != nil {
		out.MaxUnavailable = ru.MaxUnavailable.String()
	}
	if r.parsed != nil && r.parsed.ProgressDeadline > 0 {
		out.ProgressDeadline = r.parsed.ProgressDeadline.String()
	}
	return out
}

// strategyChanged reports whether the DaemonSet is planned with another
// strategy than its own.
func (r *dsRollout) strategyChanged() bool {
	return r.parsed != nil && strings.HasPrefix(r.strategy, "OnDelete")
}
