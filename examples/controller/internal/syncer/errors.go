package syncer

import (
	"errors"
	"sync"

	"github.com/daemonplan/daemonplan/daemon"
)

// ErrorList collects errors from concurrent actions. The zero value is
// empty and ready.
type ErrorList struct {
	mu   sync.Mutex
	errs []error
}

// Add appends err; nil is ignored.
func (l *ErrorList) Add(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// Errs returns the errors added, in the order they were.
func (l *ErrorList) Errs() []error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.errs
}

// IsInvalidSpec reports whether err from daemon.Compute says the DaemonSet
// itself is wrong (retrying cannot help until it changes): input Compute
// cannot use, an invalid selector, rollout policy, maxSurge or
// maxUnavailable all match daemon.ErrInvalidInput.
func IsInvalidSpec(err error) bool {
	return errors.Is(err, daemon.ErrInvalidInput)
}

// MessageOf returns err's text for people who already know which
// DaemonSet it is about (an event on the object, a log line with the key):
// a plan's error without its DaemonSet, its stage and cause
// (daemon.Error.Message), which name the field and the problem only; any
// other error as it is. "" for nil.
func MessageOf(err error) string {
	var de *daemon.Error
	switch {
	case errors.As(err, &de):
		return de.Message()
	case err != nil:
		return err.Error()
	}
	return ""
}

// Keyless is Err printed as MessageOf prints it, for an error whose text
// names the DaemonSet already; errors.As and errors.Is still see Err.
type Keyless struct{ Err error }

// Error is MessageOf(Err).
func (e Keyless) Error() string { return MessageOf(e.Err) }

// Unwrap returns Err.
func (e Keyless) Unwrap() error { return e.Err }
