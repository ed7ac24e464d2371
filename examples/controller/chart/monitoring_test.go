package chart_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// serviceMonitor and prometheusRule are the fields of prometheus-operator's
// kinds the chart sets (the tests decode strictly, so a misspelt field
// fails).
type serviceMonitor struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Selector struct {
			MatchLabels map[string]string `json:"matchLabels"`
		} `json:"selector"`
		NamespaceSelector struct {
			MatchNames []string `json:"matchNames"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Interval      string `json:"interval"`
			ScrapeTimeout string `json:"scrapeTimeout"`
			HonorLabels   bool   `json:"honorLabels"`
		} `json:"endpoints"`
	} `json:"spec"`
}

type prometheusRule struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// TestSelectors checks that the PodDisruptionBudget, the metrics Service
// and the ServiceMonitor select the Deployment's pods and port.
func TestSelectors(t *testing.T) {
	objs := mustRender(t, allOn).objects(t)
	var dep appsv1.Deployment
	only(t, objs, "Deployment", "").decode(t, &dep)
	var pdb policyv1.PodDisruptionBudget
	only(t, objs, "PodDisruptionBudget", "").decode(t, &pdb)
	var svc corev1.Service
	only(t, objs, "Service", "").decode(t, &svc)
	var sm serviceMonitor
	only(t, objs, "ServiceMonitor", "").decode(t, &sm)

	pod := dep.Spec.Template.Labels
	selects := func(sel map[string]string, labels map[string]string) bool {
		for k, v := range sel {
			if labels[k] != v {
				return false
			}
		}
		return len(sel) > 0
	}
	if !selects(dep.Spec.Selector.MatchLabels, pod) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", dep.Spec.Selector.MatchLabels, pod)
	}
	if !selects(pdb.Spec.Selector.MatchLabels, pod) || pdb.Spec.MaxUnavailable == nil || *pdb.Spec.MaxUnavailable != intstr.FromString("50%") {
		t.Errorf("PodDisruptionBudget %+v", pdb.Spec)
	}
	if !selects(svc.Spec.Selector, pod) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != intstr.FromString("metrics") || svc.Spec.Ports[0].Name != "metrics" {
		t.Errorf("metrics Service %+v", svc.Spec)
	}
	if !selects(sm.Spec.Selector.MatchLabels, svc.Labels) || !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{svc.Namespace}) ||
		len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" || sm.Spec.Endpoints[0].Path != "/metrics" || !sm.Spec.Endpoints[0].HonorLabels {
		t.Errorf("ServiceMonitor %+v does not scrape the metrics Service %v", sm.Spec, svc.Labels)
	}
	if sm.Metadata.Labels["release"] != "prometheus" {
		t.Errorf("ServiceMonitor labels %v lack serviceMonitor.labels", sm.Metadata.Labels)
	}
}

// TestAlerts checks the PrometheusRule: its four alerts, PromQL that
// Prometheus' own parser accepts, each on series
// the controller exports — named in the README's metrics section and in
// the controller's source (examples/controller/internal) — and scoped to
// the metrics Service's job.
func TestAlerts(t *testing.T) {
	objs := mustRender(t, allOn).objects(t)
	var pr prometheusRule
	only(t, objs, "PrometheusRule", "").decode(t, &pr)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	source := controllerSource(t)
	var alerts []string
	for _, g := range pr.Spec.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			expr, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
			if err != nil {
				t.Errorf("%s: %q is not PromQL: %v", r.Alert, r.Expr, err)
				continue
			}
			var names []string
			parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
				vs, ok := n.(*parser.VectorSelector)
				if !ok {
					return nil
				}
				names = append(names, vs.Name)
				scoped := false
				for _, m := range vs.LabelMatchers {
					scoped = scoped || (m.Name == "job" && m.Type == labels.MatchEqual && m.Value == "daemonplan-controller-metrics")
				}
				if !scoped {
					t.Errorf("%s: %s is not scoped to the metrics Service's job", r.Alert, vs)
				}
				return nil
			})
			if len(names) == 0 {
				t.Errorf("%s: %q reads no series", r.Alert, r.Expr)
			}
			for _, n := range names {
				short, ok := strings.CutPrefix(n, "daemonplan_controller_")
				if !ok {
					t.Errorf("%s reads %s, not a series of the controller", r.Alert, n)
					continue
				}
				if !strings.Contains(string(readme), short) {
					t.Errorf("%s reads %s, which examples/controller/README.md does not list", r.Alert, n)
				}
				// The source builds rollout_* names from "rollout" and
				// the rest.
				if !strings.Contains(source, `"`+strings.TrimPrefix(short, "rollout_")+`"`) {
					t.Errorf("%s reads %s, which the controller's source does not name", r.Alert, n)
				}
			}
			if _, err := model.ParseDuration(r.For); err != nil {
				t.Errorf("%s: for %q: %v", r.Alert, r.For, err)
			}
		}
	}
	want := []string{"DaemonplanRolloutProgressDeadlineExceeded", "DaemonplanRolloutHealthGateFailed", "DaemonplanRolloutStalled", "DaemonplanControllerNotLeading"}
	if diff := cmp.Diff(want, alerts); diff != "" {
		t.Errorf("alerts (-want +got):\n%s", diff)
	}
}

// controllerSource is the controller's Go source, concatenated.
func controllerSource(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir("../internal", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		b.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
