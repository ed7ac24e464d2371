package app

import (
	"context"
	"fmt"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/daemonplan/daemonplan/examples/controller/internal/companion"
	"github.com/daemonplan/daemonplan/examples/controller/internal/controller"
	"github.com/daemonplan/daemonplan/examples/controller/internal/syncer"
)

// Mode is what the controller is to the cluster.
type Mode string

const (
	// ModeReplace: the controller is the cluster's DaemonSet controller,
	// instead of kube-controller-manager's (which must be off): package
	// controller.
	ModeReplace Mode = "replace"
	// ModeCompanion: the controller runs beside kube-controller-manager's
	// DaemonSet controller and rolls out only the OnDelete DaemonSets that
	// opt in with rollout annotations, by deleting old pods: package
	// companion.
	ModeCompanion Mode = "companion"
)

// ParseMode returns the Mode named s ("" is ModeReplace).
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeReplace:
		return ModeReplace, nil
	case ModeCompanion:
		return ModeCompanion, nil
	}
	return "", fmt.Errorf("unknown mode %q: want %q or %q", s, ModeReplace, ModeCompanion)
}

// Runner is a controller of either mode: Run runs it until ctx is done;
// HasSynced says whether its caches have synced.
type Runner interface {
	Run(ctx context.Context) error
	// HasSynced reports whether the informer caches the controller reads
	// have synced (syncer.Syncer.HasSynced); /readyz waits for it.
	HasSynced() bool
}

// NewController returns the controller of mode (ModeReplace when empty),
// reading the cluster through factory's informers and writing through
// client: controller.New or companion.New.
func NewController(mode Mode, client kubernetes.Interface, factory informers.SharedInformerFactory, cfg syncer.Config, logger klog.Logger) Runner {
	if mode == ModeCompanion {
		return companion.New(client, factory, cfg, logger)
	}
	return controller.New(client, factory, cfg, logger)
}
