package syncer

import (
	"errors"

	"github.com/daemonplan/daemonplan/daemon/progressive"
	"github.com/daemonplan/daemonplan/rollout"
)

// ReasonTemplateSkew is the reason of the Warning event (both modes) of a
// DaemonSet whose plan stops at a template skew (daemon.Plan.TemplateSkew,
// a *rollout.TemplateSkewError): the cluster is newer than this build, and
// its newest ControllerRevision holds fields of the pod template this
// build's types do not know. The DaemonSet is held: neither mode writes a
// pod, a revision or a status counter of it until it plans again.
const ReasonTemplateSkew = progressive.ReasonTemplateSkew

// IsTemplateSkew reports whether err from daemon.Compute is a template
// skew (rollout.ErrTemplateSkew). Retrying cannot help until the build is
// upgraded or the revision history changes.
func IsTemplateSkew(err error) bool {
	return errors.Is(err, rollout.ErrTemplateSkew)
}

// TemplateSkewMessage is the message of the Warning event and of the
// conditions of a template skew err: the skew's own text, which names the
// revision and the unknown fields and says to upgrade; MessageOf(err) when
// err holds no *rollout.TemplateSkewError.
func TemplateSkewMessage(err error) string {
	var skew *rollout.TemplateSkewError
	if errors.As(err, &skew) {
		return skew.Error()
	}
	return MessageOf(err)
}
