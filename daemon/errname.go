package daemon

import "strings"

// Stages of Compute that an error can come from, named in its text.
const (
	stageInput   = "invalid input"
	stageHistory = "revision history"
	stageRolling = "rolling update"
	stagePolicy  = "rollout policy"
)

// dsError is an error Compute returns: it names the DaemonSet once, then the
// stage of the sync, then the cause. The packages Compute calls name the
// DaemonSet in their own errors, since they are called on their own too;
// Error drops those repetitions from the cause's text. Unwrap returns the
// cause unchanged, so errors.Is and errors.As see every wrapped error.
type dsError struct {
	key   string // namespace/name
	stage string
	err   error
}

// nameOnce wraps err, an error of stage of the sync of the DaemonSet key
// (namespace/name), so that its text names the DaemonSet once.
func nameOnce(key, stage string, err error) error {
	return &dsError{key: key, stage: stage, err: err}
}

// Error formats the error as `daemonset "ns/name": stage: cause`, the cause
// stripped of every `daemonset "ns/name": ` and of a leading repeat of the
// stage.
func (e *dsError) Error() string {
	prefix := `daemonset "` + e.key + `": `
	cause := strings.ReplaceAll(e.err.Error(), prefix, "")
	if e.stage == "" {
		return prefix + cause
	}
	cause = strings.TrimPrefix(cause, e.stage+": ")
	return prefix + e.stage + ": " + cause
}

// Unwrap returns the cause.
func (e *dsError) Unwrap() error { return e.err }
