package progressive

import (
	"slices"
	"strings"
)

// misspelt reports whether k, not under AnnotationPrefix, has the name of a
// rollout key under a prefix of the daemonplan.io domain: a typo of the
// prefix.
func misspelt(k string) bool {
	i := strings.IndexByte(k, '/')
	if i < 0 || !strings.Contains(k[:i], "daemonplan") {
		return false
	}
	return slices.Contains(rolloutKeys, AnnotationPrefix+k[i+1:]) || k[i+1:] == "max-surge"
}
