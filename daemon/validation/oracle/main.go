// Command oracle is a conformance tool, not an example: it checks the
// wanted messages of daemon/validation's tests against kube-apiserver
// v1.37.2's own DaemonSet validation. It reads, on stdin, a JSON array of
// cases {"name", "daemonSet" (apps/v1), "want" (error texts)}, applies the
// API server's defaults, converts each DaemonSet to the internal type and
// validates it as a create, and reports every case whose errors differ
// from "want" (compared as sorted lists: the API server's order within
// labels and annotations is Go map order). A DaemonSet the API server
// cannot decode (an unparsable deprecated.daemonset.template.generation
// annotation) matches a want of one error ending in the decoding error's
// text. It exits 1 when a case mismatches, 2 when the input does not
// decode.
//
// It is a nested module, excluded from the library's module, because it
// needs k8s.io/kubernetes, which the library never imports. CI runs it
// (.ci/run, step 11); from the repository root:
//
//	DAEMONPLAN_VALIDATE_CASES=/tmp/validate-cases.json go test ./daemon/validation -run TestValidateCasesFile
//	cd daemon/validation/oracle && go run . < /tmp/validate-cases.json
//
// The first build compiles much of Kubernetes (a few minutes on 2 cores).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	"k8s.io/kubernetes/pkg/apis/apps/validation"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
)

// validateCase is one case of the input.
type validateCase struct {
	Name      string            `json:"name"`
	DaemonSet *appsv1.DaemonSet `json:"daemonSet"`
	Want      []string          `json:"want"`
}

func main() {
	var cases []validateCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "oracle: reading the cases:", err)
		os.Exit(2)
	}
	failed := 0
	for _, c := range cases {
		got, decodeErr := apiserverErrors(c.DaemonSet)
		if !matches(c.Want, got, decodeErr) {
			failed++
			fmt.Printf("MISMATCH %s\n  want:      %q\n  apiserver: %q (decode error: %v)\n", c.Name, c.Want, got, decodeErr)
		}
	}
	fmt.Printf("%d cases, %d mismatched\n", len(cases), failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// apiserverErrors is what the API server answers to creating ds: its
// validation errors, or the error that stopped it decoding ds.
func apiserverErrors(ds *appsv1.DaemonSet) ([]string, error) {
	ds = ds.DeepCopy()
	legacyscheme.Scheme.Default(ds)
	var internal apps.DaemonSet
	if err := legacyscheme.Scheme.Convert(ds, &internal, nil); err != nil {
		return nil, err
	}
	opts := pod.GetValidationOptionsFromPodTemplate(&internal.Spec.Template, nil)
	var out []string
	for _, e := range validation.ValidateDaemonSet(&internal, opts) {
		out = append(out, e.Error())
	}
	return out, nil
}

func matches(want, got []string, decodeErr error) bool {
	if decodeErr != nil {
		return len(want) == 1 && strings.HasSuffix(want[0], decodeErr.Error())
	}
	want, got = slices.Clone(want), slices.Clone(got)
	slices.Sort(want)
	slices.Sort(got)
	return slices.Equal(want, got)
}
