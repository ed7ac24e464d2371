package cli

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	appsv1 "k8s.io/api/apps/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/daemonplan/daemonplan/daemon/progressive"
)

// The rollout-control flags are the rollout annotations' schema
// (progressive.Keys), one flag per key, named as the key without its
// prefix (--canary is rollout.daemonplan.io/canary): a flag given replaces
// that annotation of every DaemonSet planned (or adds it), and the
// DaemonSet's annotations so changed are parsed by the library's parser,
// as the controller would parse them. A key added to the schema is a flag
// at once, its help the schema's doc.

// keyFlag is the flag of one rollout annotation key.
type keyFlag struct {
	key progressive.Key
	// name is the flag's name: the key's without the prefix.
	name string
	// value is the value given; set says it was given (as --name or an
	// older name, see flagAliases).
	value string
	set   bool
}

func (f *keyFlag) String() string { return f.value }
func (f *keyFlag) Set(v string) error {
	f.value, f.set = v, true
	return nil
}

// Type is the value's kind in the help: "bool" for a true/false key, so
// that --paused alone means --paused=true.
func (f *keyFlag) Type() string {
	if f.key.Bool {
		return "bool"
	}
	return "value"
}

// flagAliases are the older names of two key flags, still accepted:
// --order-label is --order-by, --domain-label --domain.
var flagAliases = map[string]string{"order-label": "order-by", "domain-label": "domain"}

// registerKeys registers the flag of every key of the schema that shapes
// a plan (progressive.Key.Plan), and with beyond the others too (the
// gates, the progress deadline, on-failure: what simulate replays beyond
// one plan).
func (p *policyFlags) registerKeys(fs *pflag.FlagSet, beyond bool) {
	for _, k := range progressive.Keys() {
		if !k.Plan && !beyond {
			continue
		}
		f := &keyFlag{key: k, name: strings.TrimPrefix(k.Name, progressive.AnnotationPrefix)}
		p.keys = append(p.keys, f)
		fl := fs.VarPF(f, f.name, "", fmt.Sprintf("rollout annotation %s (overrides it): %s", k.Name, k.Doc))
		if k.Bool {
			fl.NoOptDefVal = "true"
		}
	}
	for alias, name := range flagAliases {
		if f := p.keyFlag(name); f != nil {
			fl := fs.VarPF(f, alias, "", "the older name of --"+name)
			fl.Hidden = true
		}
	}
}

// keyFlag returns the flag named name, nil when none is registered.
func (p *policyFlags) keyFlag(name string) *keyFlag {
	for _, f := range p.keys {
		if f.name == name {
			return f
		}
	}
	return nil
}

// flagOfKey returns the flag of the annotation key, nil when none is
// registered.
func (p *policyFlags) flagOfKey(key string) *keyFlag {
	return p.keyFlag(strings.TrimPrefix(key, progressive.AnnotationPrefix))
}

// checkKeys judges each key flag given on its own, by the library's
// parser (progressive.Key.Check): a value it refuses is a usage error
// naming the flag and the key. What a value needs of other keys may come
// from a DaemonSet's annotations, and is judged per DaemonSet (withFlags).
func (p *policyFlags) checkKeys() error {
	var msgs []string
	for _, f := range p.keys {
		if !f.set {
			continue
		}
		if err := f.key.Check(f.value); err != nil {
			msgs = append(msgs, p.keyErrors(err))
		}
	}
	if len(msgs) > 0 {
		return &usageError{"rollout controls: " + strings.Join(msgs, "; ")}
	}
	return nil
}

// withFlags returns ds with the key flags given applied over its
// annotations (ds itself when none is given; else a shallow copy with a
// new annotation map), and whether any was given. ds is not modified.
func (p *policyFlags) withFlags(ds *appsv1.DaemonSet) (*appsv1.DaemonSet, bool) {
	var annotations map[string]string
	for _, f := range p.keys {
		if !f.set {
			continue
		}
		if annotations == nil {
			annotations = maps.Clone(ds.Annotations)
			if annotations == nil {
				annotations = map[string]string{}
			}
		}
		annotations[f.key.Name] = f.value
	}
	if annotations == nil {
		return ds, false
	}
	cp := *ds
	cp.Annotations = annotations
	return &cp, true
}

// givenKeys returns the key flags given, as "--name", in the schema's
// order.
func (p *policyFlags) givenKeys() []string {
	var out []string
	for _, f := range p.keys {
		if f.set {
			out = append(out, "--"+f.name)
		}
	}
	return out
}

// givenValues returns the key flags given with their values, as
// "--name=value", in the schema's order.
func (p *policyFlags) givenValues() []string {
	var out []string
	for _, f := range p.keys {
		if f.set {
			out = append(out, "--"+f.name+"="+f.value)
		}
	}
	return out
}

// keyErrors says what the library's annotation errors err say, each at a
// key a flag gave named by that flag and the key
// (`--canary "0" (rollout.daemonplan.io/canary): must be …`), a key a
// flag needs and nobody gave as the flag or the annotation to add; the
// others (a DaemonSet's own annotations) as the library says them.
func (p *policyFlags) keyErrors(err error) string {
	var errs []error
	var agg utilerrors.Aggregate
	switch {
	case errors.As(err, &agg):
		errs = agg.Errors()
	default:
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			errs = u.Unwrap()
		} else {
			errs = []error{err}
		}
	}
	annotations := field.NewPath("metadata", "annotations")
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		var fe *field.Error
		if !errors.As(e, &fe) {
			msgs = append(msgs, e.Error())
			continue
		}
		var f *keyFlag
		for _, k := range p.keys {
			if annotations.Key(k.key.Name).String() == fe.Field {
				f = k
			}
		}
		switch {
		case f == nil:
			msgs = append(msgs, fe.Error())
		case fe.Type == field.ErrorTypeRequired:
			msgs = append(msgs, fmt.Sprintf("--%s (or the %s annotation) is required: %s", f.name, f.key.Name, fe.Detail))
		case f.set:
			msgs = append(msgs, fmt.Sprintf("--%s %s (%s): %s", f.name, strconv.Quote(f.value), f.key.Name, fe.Detail))
		default:
			msgs = append(msgs, fe.Error())
		}
	}
	return strings.Join(msgs, "; ")
}
