package cli

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot"
)

//go:embed testdata/cluster.yaml
var embedded embed.FS

// embeddedName is the embedded cluster's file.
const embeddedName = "testdata/cluster.yaml"

// fileList is the repeatable -f flag.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }
func (f *fileList) Type() string       { return "strings" }

// common are the flags every command that reads objects takes.
type common struct {
	files     fileList
	daemonSet string
	now       string
	burst     int
	opts      Options
	// notes is where the input's notes go (the FlagSet's output, stderr).
	notes io.Writer
}

func (c *common) register(fs *pflag.FlagSet) {
	what := "default: the embedded example cluster"
	if c.opts.Source != nil {
		what = "without a capture: the cluster of the current context"
	}
	fs.VarP(&c.files, "filename", "f", "`FILE` of Kubernetes YAML or JSON: a capture (kubectl get -o yaml), or a DaemonSet manifest to apply over it (repeatable; - reads stdin; "+what+")")
	fs.StringVar(&c.daemonSet, "daemonset", "", "plan only the DaemonSet `NS/NAME` (default: every DaemonSet in the input)")
	fs.StringVar(&c.now, "now", "", "controller clock, `RFC3339` (default: the newest timestamp in the input)")
	fs.IntVar(&c.burst, "burst", 0, "creates and deletes per sync, `N` (default 250, as kube-controller-manager)")
}

// loaded is the input of a command.
type loaded struct {
	snap *snapshot.Snapshot
	// now is the clock; nowSource says where it came from, for the output.
	now       time.Time
	nowSource string
	// names are the DaemonSets to plan, as "ns/name".
	names []string
	// sources names the files read.
	sources []string
	// manifests are the DaemonSets without a uid read from the files, to
	// apply over the captured objects; applied says what became of them.
	manifests []manifest
	applied   []appliedManifest
}

// load reads the input the common flags name and applies the manifests
// in it.
func (c *common) load(stdin io.Reader) (*loaded, error) {
	if c.burst < 0 {
		return nil, &usageError{fmt.Sprintf("--burst %d: must be 0 or more", c.burst)}
	}
	l := &loaded{snap: &snapshot.Snapshot{}}
	if err := c.readFiles(l, stdin); err != nil {
		return nil, err
	}
	// -f files that hold a capture are the whole input; without one (no
	// -f, or only manifests) a Source's objects come first, the
	// manifests are applied over them. Offline, manifests without a
	// capture have nothing to be applied over.
	if c.opts.Source == nil && len(c.files) > 0 && !holdsCapture(l.snap) {
		return nil, &inputError{noCaptureError(l.manifests)}
	}
	if c.opts.Source != nil && !holdsCapture(l.snap) {
		// A Source may be slow (a cluster): judge the flags before it runs.
		if err := c.checkFlags(); err != nil {
			return nil, err
		}
		in, err := c.opts.Source(Flags{Files: append([]string(nil), c.files...), DaemonSet: c.daemonSet, Stdin: stdin})
		var ue *usageError
		switch {
		case errors.As(err, &ue):
			return nil, err
		case err != nil && len(l.manifests) > 0:
			return nil, &inputError{fmt.Errorf("%s holds no capture, so its manifests are applied over the cluster, which could not be read: %w", manifestFiles(l.manifests), err)}
		case err != nil:
			return nil, &inputError{err}
		case in.Snapshot == nil:
			return nil, &inputError{errors.New("the source returned no snapshot")}
		}
		files := l.snap
		l.snap = in.Snapshot
		merge(l.snap, files)
		l.sources = append(append([]string(nil), in.Sources...), l.sources...)
	}
	// What was read past or changed, and why, before any error about
	// what is missing.
	for _, n := range l.snap.Notes {
		fmt.Fprintf(c.notes, "note: %s\n", n)
	}
	if err := c.setClock(l); err != nil {
		return nil, err
	}
	if err := l.applyManifests(); err != nil {
		return nil, err
	}
	return l, c.pick(l)
}

// holdsCapture reports whether s, read from -f files, holds captured
// objects (nodes, pods, revisions, DaemonSets with a uid) rather than
// only manifests.
func holdsCapture(s *snapshot.Snapshot) bool {
	return len(s.DaemonSets)+len(s.Nodes)+len(s.Pods)+len(s.Revisions) > 0
}

// checkFlags judges the flags that need no input.
func (c *common) checkFlags() error {
	if err := c.setClock(&loaded{snap: &snapshot.Snapshot{}}); err != nil {
		return err
	}
	if c.daemonSet != "" {
		if _, _, err := splitName(c.daemonSet); err != nil {
			return err
		}
	}
	return nil
}

func splitName(nsName string) (string, string, error) {
	ns, name, ok := strings.Cut(nsName, "/")
	if !ok || ns == "" || name == "" {
		return "", "", &usageError{fmt.Sprintf("--daemonset %q: want NAMESPACE/NAME", nsName)}
	}
	return ns, name, nil
}

// readFiles reads the -f files, or the embedded cluster without any (and
// without a Source). Each
// file is decoded on its own; DaemonSets without a uid are kept apart as
// manifests, the other objects merged, a later one replacing an earlier
// one of the same kind, namespace and name.
func (c *common) readFiles(l *loaded, stdin io.Reader) error {
	add := func(name, path string, data []byte, s *snapshot.Snapshot, err error) error {
		if err != nil {
			return &inputError{manifestDecodeError(name, path, data, err)}
		}
		ms := takeManifests(s, name)
		if needsRawRead(s, ms) {
			if data, err = fileData(path, data); err != nil {
				return &inputError{err}
			}
			if err := attachRaw(name, data, ms); err != nil {
				return &inputError{err}
			}
		}
		if len(ms) == 0 && !holdsCapture(s) {
			return &inputError{emptyFileError(name, s)}
		}
		l.manifests = append(l.manifests, ms...)
		merge(l.snap, s)
		l.sources = append(l.sources, name)
		return nil
	}
	if len(c.files) == 0 && c.opts.Source == nil {
		data, err := embedded.ReadFile(embeddedName)
		if err != nil {
			return &inputError{err}
		}
		name := "(embedded) " + embeddedName
		s, err := snapshot.Decode(name, data)
		if err := add(name, "", data, s, err); err != nil {
			return err
		}
		l.sources = []string{"the embedded example cluster"}
	}
	for _, f := range c.files {
		name := f
		var s *snapshot.Snapshot
		var data []byte
		var err error
		if f == "-" {
			name = "(stdin)"
			s, data, err = decodeWhole(name, stdin)
		} else {
			s, data, err = decodeFile(f)
		}
		if err := add(name, f, data, s, err); err != nil {
			return err
		}
	}
	return nil
}

// decodeFile decodes the file at path a few megabytes at a time: a
// capture of thousands of nodes is never held whole. data is the file's
// bytes when it had to be read whole (a pipe), nil otherwise.
func decodeFile(path string) (s *snapshot.Snapshot, data []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		// A pipe or device (-f /dev/stdin, <(kubectl ...)): no ReadAt.
		return decodeWhole(path, f)
	}
	s, err = snapshot.DecodeFrom(path, f, st.Size())
	return s, nil, err
}

// decodeWhole decodes what r reads to its end, held whole (and returned,
// for a second reading of manifests): a pipe cannot be read twice, which
// the decoder needs for files it does not stream.
func decodeWhole(name string, r io.Reader) (*snapshot.Snapshot, []byte, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, err
	}
	s, err := snapshot.Decode(name, data)
	return s, data, err
}

// setClock sets the clock: --now, or the newest timestamp in the input.
func (c *common) setClock(l *loaded) error {
	if c.now != "" {
		t, err := time.Parse(time.RFC3339, c.now)
		if err != nil {
			return &usageError{fmt.Sprintf("--now %q: not an RFC3339 time (2006-01-02T15:04:05Z)", c.now)}
		}
		l.now, l.nowSource = t, "--now"
	} else if t := l.snap.Newest(); !t.IsZero() {
		l.now, l.nowSource = t, "the newest timestamp in the input; set --now to change"
	} else {
		l.nowSource = "the input holds no timestamp; set --now"
	}
	return nil
}

// pick sets the DaemonSets to plan.
func (c *common) pick(l *loaded) error {
	if c.daemonSet != "" {
		ns, name, err := splitName(c.daemonSet)
		if err != nil {
			return err
		}
		if _, err := l.snap.For(ns, name); err != nil {
			return &inputError{err}
		}
		l.names = []string{c.daemonSet}
		return nil
	}
	l.names = l.snap.Names()
	if len(l.names) == 0 {
		return &inputError{fmt.Errorf("no DaemonSet (apps/v1) in %s", strings.Join(l.sources, ", "))}
	}
	return nil
}

// header describes the input: what was read, what was applied and the
// clock.
func (l *loaded) header(w io.Writer) {
	s := l.snap
	fmt.Fprintf(w, "input: %s: %d DaemonSets, %d nodes, %d pods, %d revisions\n", strings.Join(l.sources, ", "),
		len(s.DaemonSets), len(s.Nodes), len(s.Pods), len(s.Revisions))
	for _, a := range l.applied {
		fmt.Fprintf(w, "applied: %s\n", a.describe())
		for _, d := range a.diff {
			fmt.Fprintf(w, "  changes %s\n", d)
		}
		for _, d := range a.change.Dropped {
			fmt.Fprintf(w, "  note: the manifest leaves out %s, which the captured object has: this apply removes it (kubectl apply keeps what it did not set itself)\n", d)
		}
	}
	if l.now.IsZero() {
		fmt.Fprintf(w, "now: the zero time (%s)\n", l.nowSource)
	} else {
		fmt.Fprintf(w, "now: %s (%s)\n", l.now.UTC().Format(time.RFC3339), l.nowSource)
	}
}
