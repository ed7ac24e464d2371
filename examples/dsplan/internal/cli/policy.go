package cli

import (
	"flag"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/daemonplan/daemonplan/daemon"
)

// policyFlags are the rollout-control flags of "dsplan plan" and "dsplan
// simulate": each sets one field of daemon.RolloutPolicy, and none set
// leaves the policy zero, which is upstream's behaviour.
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
}

func (p *policyFlags) register(fs *flag.FlagSet) {
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

// policy builds the RolloutPolicy the flags ask for; a value that does not
// parse or that RolloutPolicy.Validate refuses is a usage error.
func (p *policyFlags) policy() (daemon.RolloutPolicy, error) {
	var pol daemon.RolloutPolicy
	if p.partition != "" {
		v := intstr.Parse(p.partition)
		pol.Partition = &v
	}
	if p.scope != "" {
		sel, err := metav1.ParseToLabelSelector(p.scope)
		if err != nil {
			return pol, &usageError{fmt.Sprintf("--scope %q: %v", p.scope, err)}
		}
		pol.Scope = sel
	}
	pol.Paused, pol.Strict = p.paused, p.strict
	if p.waveBake.set {
		pol.Waves = &daemon.WaveBarrier{Bake: p.waveBake.d}
	}
	pol.Order.Label = p.orderLabel
	if p.orderValues != "" {
		if p.orderLabel == "" {
			return pol, &usageError{"--order-values needs --order-label"}
		}
		pol.Order.Values = strings.Split(p.orderValues, ",")
	}
	switch {
	case p.domainLabel != "":
		d := &daemon.DomainBudget{Label: p.domainLabel}
		if p.domainMaxUnavailable != "" {
			v := intstr.Parse(p.domainMaxUnavailable)
			d.MaxUnavailable = &v
		}
		if p.domainMaxSurge != "" {
			v := intstr.Parse(p.domainMaxSurge)
			d.MaxSurge = &v
		}
		pol.DomainBudget = d
	case p.domainMaxUnavailable != "" || p.domainMaxSurge != "":
		return pol, &usageError{"--domain-max-unavailable and --domain-max-surge need --domain-label"}
	}
	if err := pol.Validate(); err != nil {
		return pol, &usageError{fmt.Sprintf("rollout controls: %v", err)}
	}
	return pol, nil
}
