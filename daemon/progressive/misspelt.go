package progressive

import (
	"fmt"
	"slices"
	"strings"

	"github.com/daemonplan/daemonplan/daemon/internal/nearest"
)

// misspelt reports whether k, not under AnnotationPrefix, has the name of a
// rollout key under a prefix of the daemonplan.io domain: a typo of the
// prefix, which ParseAnnotations refuses.
func misspelt(k string) bool {
	i := strings.IndexByte(k, '/')
	if i < 0 || !strings.Contains(k[:i], "daemonplan") {
		return false
	}
	return slices.Contains(rolloutKeys, AnnotationPrefix+k[i+1:]) || k[i+1:] == "max-surge"
}

// prefixSlack is how many edits from AnnotationPrefix's domain a key's
// prefix may be to count as a near miss.
const prefixSlack = 2

// keySlack is how many edits from a rollout key's name an unknown key's
// name under AnnotationPrefix may be for its error to say "did you mean"
// (pause-afer, rolled-back-form).
const keySlack = 2

// nearMiss returns the key k probably meant when its prefix is a near
// miss of AnnotationPrefix: its domain within prefixSlack edits of
// rollout.daemonplan.io (case aside), or the domain with "." for the
// "/" (rollout.daemonplan.io.partition). Keys under the prefix, and those
// misspelt already refuses, are not near misses.
func nearMiss(k string) (string, bool) {
	if strings.HasPrefix(k, AnnotationPrefix) || misspelt(k) {
		return "", false
	}
	domain := AnnotationPrefix[:len(AnnotationPrefix)-1]
	near := func(p string) bool {
		return nearest.Distance(strings.ToLower(p), domain, prefixSlack) <= prefixSlack
	}
	if i := strings.IndexByte(k, '/'); i >= 0 {
		if name := k[i+1:]; name != "" && near(k[:i]) {
			return AnnotationPrefix + name, true
		}
		return "", false
	}
	for i := len(domain) - prefixSlack; i <= len(domain)+prefixSlack && i < len(k); i++ {
		if i > 0 && k[i] == '.' && i+1 < len(k) && near(k[:i]) {
			return AnnotationPrefix + k[i+1:], true
		}
	}
	return "", false
}

// AnnotationWarnings lists, by key, the annotations that look like
// rollout annotations with a misspelt prefix (rollout.deamonplan.io/…,
// rollout.daemon-plan.io/…, rollout.daemonplan.io.partition), each
// "metadata.annotations[KEY]: … did you mean …?". They are warnings, not
// errors: a key a few letters from the prefix may belong to another tool,
// and an error would hold back the rollout of a DaemonSet that has not
// opted in. Keys naming a rollout key under another daemonplan.io prefix
// are ParseAnnotations' errors, not warnings. It modifies nothing.
func AnnotationWarnings(annotations map[string]string) []string {
	var out []string
	for k := range annotations {
		if want, ok := nearMiss(k); ok {
			out = append(out, fmt.Sprintf("%s: ignored, not a rollout annotation: did you mean %s?", annotationsPath.Key(k), want))
		}
	}
	slices.Sort(out)
	return out
}
