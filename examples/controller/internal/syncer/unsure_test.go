package syncer

import (
	"errors"
	"fmt"
	"net"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestMayHaveApplied covers which failed writes leave their outcome
// unknown.
func TestMayHaveApplied(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "internal error (etcd failed after committing)", err: apierrors.NewInternalError(errors.New("etcdserver: leader changed")), want: true},
		{name: "gateway timeout", err: apierrors.NewTimeoutError("request timed out", 1), want: true},
		{name: "server timeout", err: apierrors.NewServerTimeout(gr, "create", 1), want: true},
		{name: "service unavailable", err: apierrors.NewServiceUnavailable("shutting down"), want: true},
		{name: "broken connection (no status)", err: fmt.Errorf("post pods: %w", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}), want: true},
		{name: "too many requests (rejected before it ran)", err: apierrors.NewTooManyRequests("throttled", 1), want: false},
		{name: "forbidden", err: apierrors.NewForbidden(gr, "p", errors.New("quota")), want: false},
		{name: "conflict", err: apierrors.NewConflict(gr, "p", errors.New("uid")), want: false},
		{name: "not found", err: apierrors.NewNotFound(gr, "p"), want: false},
		{name: "wrapped internal error", err: fmt.Errorf("create pod on node n1: %w", apierrors.NewInternalError(errors.New("x"))), want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MayHaveApplied(tc.err); got != tc.want {
				t.Errorf("MayHaveApplied(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestWriteFenceUnsure covers the mark of a pod write of unknown outcome:
// it holds until cleared, for its key only, and forgetting the key drops
// it.
func TestWriteFenceUnsure(t *testing.T) {
	f := NewWriteFence(map[string]RVSource{FencePods: &fakeRV{"10"}, FenceDaemonSets: &fakeRV{"10"}})
	f.MarkUnsure("ns/a")
	if !f.isUnsure("ns/a") || f.isUnsure("ns/b") {
		t.Fatalf("isUnsure: a %v, b %v; want true, false", f.isUnsure("ns/a"), f.isUnsure("ns/b"))
	}
	f.clearUnsure("ns/a")
	if f.isUnsure("ns/a") {
		t.Error("still unsure after clearUnsure")
	}
	f.MarkUnsure("ns/a")
	f.forget("ns/a")
	if f.isUnsure("ns/a") {
		t.Error("still unsure after forget")
	}
}
