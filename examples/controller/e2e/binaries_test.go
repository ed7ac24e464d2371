package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// binaries are the paths of the control-plane programs and of the kwok
// stage configuration.
type binaries struct {
	etcd, apiserver, scheduler, controllerManager, kwok string
	kwokConfig                                          string
}

// toolModules are the directories, relative to this package, of the
// modules that pin the control plane; each one's tools are built with
// `go build -o DIR tool`.
var toolModules = []string{"../tools/kube", "../tools/kwok"}

// kwokStages are the stage files, relative to the kwok module's root, that
// make kwok behave as a fast kubelet: nodes become Ready, pods become
// Running and Ready, and deleted pods go away.
var kwokStages = []string{
	"kustomize/stage/node/fast/node-initialize.yaml",
	"kustomize/stage/pod/fast/pod-ready.yaml",
	"kustomize/stage/pod/fast/pod-delete.yaml",
}

var (
	binOnce     sync.Once
	binResult   *binaries
	binErr      error
	binDuration time.Duration
	binCold     bool
)

// requireBinaries returns the control plane, building it on first use; it
// skips the test when that is impossible, unless E2E=1 asks for a failure.
func requireBinaries(t *testing.T) *binaries {
	t.Helper()
	if os.Getenv("E2E") != "1" && !cached() {
		if d, ok := t.Deadline(); ok && time.Until(d) < minColdBuildBudget {
			t.Skipf("e2e: the control plane is not built yet and a cold build (up to an hour on two busy cores) does not fit in this test run's -timeout; run with -timeout 90m or E2E=1")
		}
	}
	b, err := loadBinaries()
	if err != nil {
		if os.Getenv("E2E") == "1" {
			t.Fatalf("e2e: control plane unavailable (E2E=1): %v", err)
		}
		t.Skipf("e2e: control plane unavailable: %v", err)
	}
	return b
}

func loadBinaries() (*binaries, error) {
	binOnce.Do(func() {
		start := time.Now()
		binResult, binCold, binErr = buildBinaries()
		binDuration = time.Since(start)
	})
	return binResult, binErr
}

// minColdBuildBudget is the least time left before the test binary's
// deadline for which a test starts a cold build of the control plane rather
// than skipping (unless E2E=1).
const minColdBuildBudget = 45 * time.Minute

// cached reports whether the control plane for the current tools modules is
// already built.
func cached() bool {
	hash, err := toolsHash()
	if err != nil {
		return false
	}
	root, err := cacheRoot()
	if err != nil {
		return false
	}
	return binariesIn(filepath.Join(root, hash, "bin")).missing() == nil
}

// toolsHash is a digest of every tools module's go.mod and go.sum.
func toolsHash() (string, error) {
	h := sha256.New()
	for _, m := range toolModules {
		for _, f := range []string{"go.mod", "go.sum"} {
			data, err := os.ReadFile(filepath.Join(m, f))
			if err != nil {
				return "", fmt.Errorf("tools module %s: %w", m, err)
			}
			fmt.Fprintf(h, "%s/%s %d\n", m, f, len(data))
			h.Write(data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// cacheRoot is where built control planes are kept.
func cacheRoot() (string, error) {
	if d := os.Getenv("DAEMONPLAN_E2E_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the e2e binaries: %w", err)
	}
	return filepath.Join(d, "daemonplan-e2e"), nil
}

func binariesIn(dir string) *binaries {
	return &binaries{
		// The etcd server module's main package is named after its
		// directory, "server".
		etcd:              filepath.Join(dir, "server"),
		apiserver:         filepath.Join(dir, "kube-apiserver"),
		scheduler:         filepath.Join(dir, "kube-scheduler"),
		controllerManager: filepath.Join(dir, "kube-controller-manager"),
		kwok:              filepath.Join(dir, "kwok"),
		kwokConfig:        filepath.Join(dir, "kwok-stages.yaml"),
	}
}

func (b *binaries) missing() error {
	for _, p := range []string{b.etcd, b.apiserver, b.scheduler, b.controllerManager, b.kwok, b.kwokConfig} {
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	return nil
}

// buildBinaries returns the cached control plane for the current tools
// modules, building it first when the cache has none. It reports whether it
// had to build.
func buildBinaries() (*binaries, bool, error) {
	hash, err := toolsHash()
	if err != nil {
		return nil, false, err
	}
	root, err := cacheRoot()
	if err != nil {
		return nil, false, err
	}
	dir := filepath.Join(root, hash, "bin")
	b := binariesIn(dir)
	if b.missing() == nil {
		return b, false, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, false, fmt.Errorf("building the control plane needs the go command: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, false, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "build-")
	if err != nil {
		return nil, false, err
	}
	defer os.RemoveAll(tmp)
	for _, m := range toolModules {
		if err := runBuild(goBin, m, "build", "-trimpath", "-o", tmp+string(filepath.Separator), "tool"); err != nil {
			return nil, true, err
		}
	}
	kwokDir, err := output(goBin, "../tools/kwok", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok")
	if err != nil {
		return nil, true, err
	}
	var stages []string
	for _, s := range kwokStages {
		data, err := os.ReadFile(filepath.Join(kwokDir, s))
		if err != nil {
			return nil, true, fmt.Errorf("kwok stage %s: %w", s, err)
		}
		stages = append(stages, strings.TrimSpace(string(data)))
	}
	if err := os.WriteFile(filepath.Join(tmp, "kwok-stages.yaml"), []byte(strings.Join(stages, "\n---\n")+"\n"), 0o644); err != nil {
		return nil, true, err
	}
	if err := binariesIn(tmp).missing(); err != nil {
		return nil, true, fmt.Errorf("build finished without every binary: %w", err)
	}
	// Another test process may have won the race; its binaries are as good.
	if err := os.Rename(tmp, dir); err != nil && b.missing() != nil {
		return nil, true, fmt.Errorf("installing the control plane into %s: %w", dir, err)
	}
	return b, true, nil
}

// runBuild runs the go command in a tools module at the lowest priority, so
// a cold build leaves the machine usable.
func runBuild(goBin, dir string, args ...string) error {
	name, full := goBin, args
	if nice, err := exec.LookPath("nice"); err == nil {
		name, full = nice, append([]string{"-n", "19", goBin}, args...)
	}
	cmd := exec.Command(name, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), dir, err, tail(string(out), 40))
	}
	return nil
}

func output(goBin, dir string, args ...string) (string, error) {
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("go %s in %s: %w\n%s", strings.Join(args, " "), dir, err, ee.Stderr)
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
