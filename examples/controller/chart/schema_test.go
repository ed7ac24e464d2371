package chart_test

import (
	"strings"
	"testing"
)

// TestValuesRefused checks that bad values stop the render with an error
// naming the value: values.schema.json (checked by helm install, upgrade,
// template and lint alike) and the templates' own checks.
func TestValuesRefused(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   []string // each in the error
	}{
		{"an unknown mode", set(map[string]any{"mode": "both"}), []string{"/mode", "companion", "replace"}},
		{"no replica", set(map[string]any{"replicaCount": 0}), []string{"/replicaCount"}},
		{"a misspelt key", set(map[string]any{"replicas": 3}), []string{"replicas"}},
		{"a misspelt nested key", set(map[string]any{"serviceMonitor.enable": true}), []string{"/serviceMonitor", "enable"}},
		{"a pull policy", set(map[string]any{"image.pullPolicy": "Sometimes"}), []string{"/image/pullPolicy"}},
		{"a digest without algorithm", set(map[string]any{"image.digest": "abc"}), []string{"/image/digest"}},
		{"a port", set(map[string]any{"metrics.port": 70000}), []string{"/metrics/port"}},
		{"a percentage over 100", set(map[string]any{"podDisruptionBudget.maxUnavailable": "150%"}), []string{"/podDisruptionBudget/maxUnavailable"}},
		{"a Prometheus duration", set(map[string]any{"prometheusRule.stalledFor": "30 minutes"}), []string{"/prometheusRule/stalledFor"}},
		{"a namespace name", set(map[string]any{"rolloutStatus.rbac.namespaces": []any{"Kube_System"}}), []string{"/rolloutStatus/rbac/namespaces/0"}},
		{"anti-affinity", set(map[string]any{"podAntiAffinity": "always"}), []string{"/podAntiAffinity"}},
		{"a flag without dash", set(map[string]any{"extraArgs": []any{"workers=3"}}), []string{"/extraArgs/0"}},
		{"a ServiceMonitor without the Service", set(map[string]any{"serviceMonitor.enabled": true, "metrics.service.enabled": false}), []string{"serviceMonitor.enabled", "metrics.service.enabled"}},
		{"no ServiceAccount to run as", set(map[string]any{"serviceAccount.create": false}), []string{"serviceAccount.name"}},
		{"an empty image repository", set(map[string]any{"image.repository": ""}), []string{"image.repository is not set", "README.md, Install", "--set image.repository="}},
		{"an image without tag or digest", set(map[string]any{"image.tag": ""}), []string{"image.tag (or image.digest) is not set", "--set image.repository=REGISTRY/controller --set image.tag=TAG"}},
	}
	ch := loadChart(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(ch, withImage(tt.values), releaseName, releaseNamespace, "Helm")
			if err == nil {
				t.Fatalf("rendered with %v, want an error", tt.values)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
	// The chart's own values name no image: no release has published one.
	_, err := render(ch, nil, releaseName, releaseNamespace, "Helm")
	if err == nil || !strings.Contains(err.Error(), "image.repository is not set; no release has published the controller's image yet") {
		t.Errorf("render with the chart's values: error %v, want the image to be required", err)
	}
}
