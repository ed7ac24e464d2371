package daemontest

import (
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/types"
)

// NewerHash is the controller-revision-hash label of NewerRevision: the
// hash a kube-controller-manager newer than this build labels the pods of
// that revision with (see WithHash).
const NewerHash = "newer"

// NewerRevision returns the ControllerRevision a kube-controller-manager
// newer than this build records for ds's template when the template also
// sets field, a pod spec field this build's k8s.io/api types do not know,
// to value: Revision(ds, number) whose data holds
// spec.template.spec.<field>, named <ds>-NewerHash and labelled NewerHash.
// It is what a cluster newer than the build looks like to Compute: a
// template skew (rollout.TemplateSkewError). Should the data not encode
// (value cannot be JSON), Data is Revision's.
func NewerRevision(ds *appsv1.DaemonSet, number int64, field string, value any) *appsv1.ControllerRevision {
	rev := Revision(ds, number)
	rev.Name = ds.Name + "-" + NewerHash
	rev.UID = types.UID("rev-" + rev.Name)
	rev.Labels[appsv1.ControllerRevisionHashLabelKey] = NewerHash
	var doc struct {
		Spec struct {
			Template map[string]any `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(rev.Data.Raw, &doc); err != nil {
		return rev
	}
	spec, _ := doc.Spec.Template["spec"].(map[string]any)
	if spec == nil {
		return rev
	}
	spec[field] = value
	// encoding/json sorts the keys of maps, as the revision data's are.
	if data, err := json.Marshal(doc); err == nil {
		rev.Data.Raw = data
	}
	return rev
}
