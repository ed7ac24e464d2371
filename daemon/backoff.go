package daemon

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// Backoff is the failed-pod backoff state; see Options.FailedPodBackoff.
type Backoff struct {
	entries map[BackoffKey]BackoffEntry
}

// BackoffKey identifies one backoff.
type BackoffKey struct {
	UID                types.UID
	ObservedGeneration int64
	NodeName           string
}

// BackoffEntry is the state of one backoff.
type BackoffEntry struct {
	Key        BackoffKey
	Delay      time.Duration
	LastUpdate time.Time
}
