package affinity

import (
	"strings"

	"k8s.io/apimachinery/pkg/selection"
)

// validRequirement reports whether labels.NewRequirement(key, op, values)
// succeeds for one of the node-selector operators (In, NotIn, Exists,
// DoesNotExist, Gt, Lt; any other is rejected), without calling it.
// apimachinery validates keys and values with regular expressions and builds
// an error for each failure, which costs microseconds and allocations per
// requirement; the checks here scan the strings and allocate nothing. A
// differential test (TestValidatorAgreesWithLabels) and a fuzz target
// (FuzzValidRequirement) hold them to apimachinery's answer both ways.
func validRequirement(key string, op selection.Operator, values []string) bool {
	if !isLabelKey(key) {
		return false
	}
	switch op {
	case selection.In, selection.NotIn:
		if len(values) == 0 {
			return false
		}
	case selection.Exists, selection.DoesNotExist:
		if len(values) != 0 {
			return false
		}
	case selection.GreaterThan, selection.LessThan:
		if len(values) != 1 {
			return false
		}
		if _, ok := parseInt64(values[0]); !ok {
			return false
		}
	default:
		// Equals and friends never come from a node selector.
		return false
	}
	for _, v := range values {
		if !isLabelValue(v) {
			return false
		}
	}
	return true
}

// isLabelKey reports whether s is a label key: an optional DNS-1123
// subdomain prefix of at most 253 characters and a slash, then a name.
func isLabelKey(s string) bool {
	prefix, name, found := strings.Cut(s, "/")
	if !found {
		return isLabelName(s)
	}
	return prefix != "" && len(prefix) <= 253 && isDNS1123Subdomain(prefix) && isLabelName(name)
}

// isLabelValue reports whether s is a label value: empty, or a name.
func isLabelValue(s string) bool {
	return s == "" || isLabelName(s)
}

// isLabelName reports whether s is 1 to 63 characters of letters, digits,
// '-', '_' and '.', starting and ending with a letter or digit.
func isLabelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isDNS1123Subdomain reports whether s is dot-separated labels of lowercase
// letters, digits and '-', each starting and ending with a letter or digit
// (the length limit is checked by the caller).
func isDNS1123Subdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if label == "" || !isLowerAlnum(label[0]) || !isLowerAlnum(label[len(label)-1]) {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if c := label[i]; !isLowerAlnum(c) && c != '-' {
				return false
			}
		}
		if !more {
			return true
		}
		s = rest
	}
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isLowerAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}
