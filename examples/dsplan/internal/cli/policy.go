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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/tools/cache"

	"github.com/daemonplan/daemonplan/daemon"
	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// policyFlags are the rollout-control flags of "dsplan plan" and "dsplan
// simulate": each sets one field of daemon.RolloutPolicy. A DaemonSet's
// rollout annotations (progressive.ForDaemonSet) give its policy
// first; the flags set on the command line override the fields they name
// (see rolloutOf). With neither, the policy is zero: upstream's behaviour.
type policyFlags struct {
	partition            string
	scope                string
	paused               bool
	orderLabel           string
	orderValues          string
	domainLabel          string
	domainMaxUnavailable string
	domainMaxSurge       string
	strict               bool
	waveBake             durationFlag
	// set are the names of the flags given on the command line.
	set map[string]bool
}

// policyFlagNames are the rollout-control flags, in the order the output
// names them.
var policyFlagNames = []string{"partition", "scope", "paused", "order-label", "order-values", "domain-label",
	"domain-max-unavailable", "domain-max-surge", "strict", "wave-bake"}

func (p *policyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.partition, "partition", "", "rollout control: `N` or N% of the desired nodes keep the old revision")
	fs.StringVar(&p.scope, "scope", "", "rollout control: update only nodes matching this label `SELECTOR` (kubectl -l syntax)")
	fs.BoolVar(&p.paused, "paused", false, "rollout control: no rolling step (missing pods are still created)")
	fs.StringVar(&p.orderLabel, "order-label", "", "rollout control: update nodes grouped by this node label `KEY`, e.g. topology.kubernetes.io/zone")
	fs.StringVar(&p.orderValues, "order-values", "", "rollout control: comma-separated `VALUES` of --order-label that go first, in this order")
	fs.StringVar(&p.domainLabel, "domain-label", "", "rollout control: apply --domain-max-unavailable/--domain-max-surge per value of this node label `KEY`")
	fs.StringVar(&p.domainMaxUnavailable, "domain-max-unavailable", "", "rollout control: `N` or N% unavailable at once per domain")
	fs.StringVar(&p.domainMaxSurge, "domain-max-surge", "", "rollout control: `N` or N% surging at once per domain")
	fs.BoolVar(&p.strict, "strict", false, "rollout control: already-unavailable old pods count against maxUnavailable")
	fs.Var(&p.waveBake, "wave-bake", "rollout control: a wave barrier: each value of --order-label is a wave, started only once the earlier ones are updated and available and `DURATION` has passed since (0s: at once)")
}

// parsed records which flags fs was given; call it after fs.Parse.
func (p *policyFlags) parsed(fs *pflag.FlagSet) {
	p.set = map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { p.set[f.Name] = true })
}

// given returns the rollout-control flags set on the command line, as
// "--name", in policyFlagNames' order.
func (p *policyFlags) given() []string {
	var out []string
	for _, n := range policyFlagNames {
		if p.set[n] {
			out = append(out, "--"+n)
		}
	}
	return out
}

// check judges the flags on their own, before any input is read: a value
// that does not parse, or that RolloutPolicy.Validate refuses, is a usage
// error. What one flag needs from another (--wave-bake and --order-values
// an order label, --domain-max-unavailable a domain label) may come from a
// DaemonSet's annotations, and is judged per DaemonSet by rolloutOf.
func (p *policyFlags) check() error {
	pol, err := p.override(daemon.RolloutPolicy{})
	if err != nil {
		return err
	}
	// Stand-ins for what the annotations may give.
	if pol.Order.Label == "" && (pol.Waves != nil || pol.Order.Values != nil) {
		pol.Order.Label = "example.com/order"
	}
	if d := pol.DomainBudget; d != nil && d.Label == "" {
		d.Label = "example.com/domain"
	}
	if err := pol.Validate(); err != nil {
		return &usageError{"rollout controls: " + flagErrors(err)}
	}
	return nil
}

// policyFlagOf names the flag (and the annotation) that sets each field
// of daemon.RolloutPolicy, by the field path RolloutPolicy.Validate gives.
var policyFlagOf = map[string][2]string{
	"rollout.partition":                   {"--partition", progressive.AnnotationPrefix + "partition"},
	"rollout.scope":                       {"--scope", progressive.AnnotationPrefix + "scope"},
	"rollout.order.label":                 {"--order-label", progressive.AnnotationOrderBy},
	"rollout.order.values":                {"--order-values", progressive.AnnotationPrefix + "order-values"},
	"rollout.waves.bake":                  {"--wave-bake", progressive.AnnotationPrefix + "wave-bake"},
	"rollout.domainBudget.label":          {"--domain-label", progressive.AnnotationDomain},
	"rollout.domainBudget.maxUnavailable": {"--domain-max-unavailable", progressive.AnnotationPrefix + "domain-max-unavailable"},
	"rollout.domainBudget.maxSurge":       {"--domain-max-surge", progressive.AnnotationPrefix + "domain-max-surge"},
}

// flagErrors says what RolloutPolicy.Validate's err says, each field
// named by its flag (--order-label, not rollout.order.label).
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
		names, ok := [2]string{}, false
		if errors.As(e, &fe) {
			names, ok = policyFlagOf[fe.Field]
		}
		switch {
		case !ok:
			msgs[i] = e.Error()
		case fe.Type == field.ErrorTypeRequired:
			msgs[i] = fmt.Sprintf("%s (or the %s annotation) is required: %s", names[0], names[1], fe.Detail)
		default:
			msgs[i] = fmt.Sprintf("%s %q: %s", names[0], fmt.Sprint(fe.BadValue), fe.Detail)
		}
	}
	return strings.Join(msgs, "; ")
}

// override returns pol with the fields the flags set replaced: --partition,
// --scope, --paused, --strict and --wave-bake their field; --order-label
// the whole order (its values are then --order-values, or none);
// --order-values alone the order's values; --domain-label the whole
// domain budget (from --domain-max-unavailable and --domain-max-surge);
// those two alone their budget in pol's domain budget, which must exist.
// pol is not modified (its pointers are shared).
func (p *policyFlags) override(pol daemon.RolloutPolicy) (daemon.RolloutPolicy, error) {
	set := p.set
	if set == nil {
		set = map[string]bool{}
	}
	if set["partition"] {
		v := intstr.Parse(p.partition)
		pol.Partition = &v
	}
	if set["scope"] {
		sel, err := metav1.ParseToLabelSelector(p.scope)
		if err != nil {
			return pol, &usageError{fmt.Sprintf("--scope %q: %v", p.scope, err)}
		}
		pol.Scope = sel
	}
	if set["paused"] {
		pol.Paused = p.paused
	}
	if set["strict"] {
		pol.Strict = p.strict
	}
	if set["wave-bake"] {
		pol.Waves = &rollout.WaveBarrier{Bake: p.waveBake.d}
	}
	var values []string
	if p.orderValues != "" {
		values = strings.Split(p.orderValues, ",")
	}
	switch {
	case set["order-label"]:
		pol.Order = daemon.UpdateOrder{Label: p.orderLabel, Values: values}
	case set["order-values"]:
		pol.Order.Values = values
	}
	budget := func(d *daemon.DomainBudget) {
		if set["domain-max-unavailable"] {
			d.MaxUnavailable = nil
			if p.domainMaxUnavailable != "" {
				v := intstr.Parse(p.domainMaxUnavailable)
				d.MaxUnavailable = &v
			}
		}
		if set["domain-max-surge"] {
			d.MaxSurge = nil
			if p.domainMaxSurge != "" {
				v := intstr.Parse(p.domainMaxSurge)
				d.MaxSurge = &v
			}
		}
	}
	switch {
	case set["domain-label"] && p.domainLabel == "":
		pol.DomainBudget = nil
	case set["domain-label"]:
		d := &daemon.DomainBudget{Label: p.domainLabel}
		budget(d)
		pol.DomainBudget = d
	case set["domain-max-unavailable"] || set["domain-max-surge"]:
		d := &daemon.DomainBudget{}
		if pol.DomainBudget != nil {
			*d = *pol.DomainBudget
		}
		budget(d)
		pol.DomainBudget = d
	}
	return pol, nil
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
	// overrides are the flags that changed what the annotations say.
	overrides []string
	// warnings are what the library says is ignored or selects nothing:
	// annotations with a near-miss prefix (progressive.AnnotationWarnings)
	// and order labels or values no node has (progressive.OrderWarnings).
	warnings []string
}

// rolloutOf reads the rollout annotations of ds and applies the flags over
// them: the policy the controller will roll ds out with, and the
// DaemonSet to plan with. Invalid annotations (or a budget they
// contradict) are an input error naming the DaemonSet and each key; a
// policy the flags make invalid is a usage error. nodes are the nodes the
// order is checked against (warnings). ds is not modified.
func (p *policyFlags) rolloutOf(ds *appsv1.DaemonSet, nodes []*corev1.Node) (dsRollout, error) {
	r := dsRollout{ds: ds}
	name := cache.MetaObjectToName(ds).String()
	for k, v := range ds.Annotations {
		if strings.HasPrefix(k, progressive.AnnotationPrefix) {
			if r.annotations == nil {
				r.annotations = map[string]string{}
			}
			r.annotations[k] = v
		}
	}
	planned, err := progressive.ForDaemonSet(ds)
	r.warnings = planned.Warnings
	if err != nil {
		return r, &inputError{fmt.Errorf("daemonset %q: rollout annotations: %w", name, err)}
	}
	r.ds, r.parsed = planned.DaemonSet, planned.Annotations
	base := planned.Policy
	if a := planned.Annotations; a != nil {
		if ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType {
			r.companion = true
			ru := r.ds.Spec.UpdateStrategy.RollingUpdate
			r.strategy = fmt.Sprintf("OnDelete with rollout annotations: planned as companion mode rolls it out (RollingUpdate, maxUnavailable %s, maxSurge 0: it deletes old pods, kube-controller-manager recreates them)",
				ru.MaxUnavailable.String())
		} else {
			r.strategy = fmt.Sprintf("%s: its own budget under the annotated policy, as replace mode rolls it out (companion mode leaves a %s DaemonSet to kube-controller-manager)",
				ds.Spec.UpdateStrategy.Type, ds.Spec.UpdateStrategy.Type)
		}
	}
	pol, err := p.override(base)
	if err != nil {
		return r, err
	}
	if r.parsed != nil {
		r.overrides = p.given()
	}
	if pol.Order.Values != nil && pol.Order.Label == "" {
		return r, &usageError{fmt.Sprintf("rollout controls of %s: --order-values needs --order-label (or the %s annotation)", name, progressive.AnnotationOrderBy)}
	}
	if d := pol.DomainBudget; d != nil && d.Label == "" {
		return r, &usageError{fmt.Sprintf("rollout controls of %s: --domain-max-unavailable and --domain-max-surge need --domain-label (or the %s annotation)", name, progressive.AnnotationDomain)}
	}
	if pol.Waves != nil && pol.Order.Label == "" && pol.Canary == nil {
		return r, &usageError{fmt.Sprintf("rollout controls of %s: --wave-bake needs --order-label (or the %s annotation) or a canary: the waves are the values of an order label, or the canary and the rest", name, progressive.AnnotationOrderBy)}
	}
	if err := pol.Validate(); err != nil {
		from := "the flags"
		if r.parsed != nil {
			from = "its annotations and the flags"
		}
		return r, &usageError{fmt.Sprintf("rollout controls of %s (%s): %s", name, from, flagErrors(err))}
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
	keys := slices.Sorted(maps.Keys(r.annotations))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = strings.TrimPrefix(k, progressive.AnnotationPrefix) + "=" + r.annotations[k]
	}
	s := fmt.Sprintf("rollout annotations read (%s): %s; %s", strings.TrimSuffix(progressive.AnnotationPrefix, "/"), strings.Join(parts, ", "), r.strategy)
	if len(r.overrides) > 0 {
		s += "; overridden by " + strings.Join(r.overrides, ", ")
	}
	return s
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
}

// toJSON is the JSON of the annotations read; nil when there are none.
func (r *dsRollout) toJSON() *rolloutJSON {
	if r.parsed == nil {
		return nil
	}
	out := &rolloutJSON{Annotations: maps.Clone(r.annotations), Strategy: r.strategy, OverriddenBy: append([]string{}, r.overrides...)}
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
