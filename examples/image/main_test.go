package main

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"github.com/google/go-containerregistry/pkg/v1/validate"
)

// TestBuildImage builds the controller's image as the documented command
// does, into an OCI layout in a temporary directory, reads it back as any
// OCI tool would (its index, manifest and config: entrypoint, user,
// labels, platform) and runs the binary from its layer with --version.
func TestBuildImage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "controller-oci")
	const (
		version  = "v0.1.0-test"
		revision = "0123456789abcdef0123456789abcdef01234567"
		created  = "2026-12-01T10:00:00Z"
	)
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"--out", out, "--version", version, "--revision", revision, "--created", created}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("run = %d, stderr:\n%s", code, stderr.String())
	}
	t.Logf("%s", stdout.String())

	p, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 {
		t.Fatalf("index.json lists %d manifests, want 1", len(im.Manifests))
	}
	desc := im.Manifests[0]
	wantDesc := v1.Descriptor{
		MediaType: types.OCIManifestSchema1,
		Annotations: map[string]string{
			"org.opencontainers.image.ref.name": "ghcr.io/daemonplan/controller:" + version,
			"org.opencontainers.image.created":  created,
		},
	}
	if diff := cmp.Diff(wantDesc, desc, cmp.FilterPath(func(p cmp.Path) bool {
		f := p.Last().String()
		return f == ".Digest" || f == ".Size"
	}, cmp.Ignore())); diff != "" {
		t.Errorf("index.json's descriptor (-want +got):\n%s", diff)
	}
	img, err := p.Image(desc.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Image(img); err != nil {
		t.Errorf("the image is not consistent (digests, sizes, diff IDs): %v", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.title":       "daemonplan-controller",
		"org.opencontainers.image.description": description,
		"org.opencontainers.image.version":     version,
		"org.opencontainers.image.revision":    revision,
		"org.opencontainers.image.created":     created,
		"org.opencontainers.image.source":      "https://github.com/daemonplan/daemonplan",
		"org.opencontainers.image.licenses":    "Apache-2.0",
	}
	wantConfig := v1.Config{
		Entrypoint: []string{"/usr/local/bin/daemonplan-controller"},
		User:       "65532:65532",
		WorkingDir: "/",
		Labels:     wantLabels,
	}
	if diff := cmp.Diff(wantConfig, cf.Config); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("linux/"+runtime.GOARCH, cf.OS+"/"+cf.Architecture); diff != "" {
		t.Errorf("platform (-want +got):\n%s", diff)
	}
	if got := cf.Created.UTC().Format(time.RFC3339); got != created {
		t.Errorf("created = %s, want %s", got, created)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLabels, m.Annotations); diff != "" {
		t.Errorf("manifest annotations (-want +got):\n%s", diff)
	}

	files := layerFiles(t, img)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	if diff := cmp.Diff([]string{"etc/", "etc/group", "etc/passwd", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/daemonplan-controller"}, names, sortStrings); diff != "" {
		t.Errorf("the layer's files (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(files["etc/passwd"].data), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd does not name nonroot 65532:\n%s", files["etc/passwd"].data)
	}
	bin := files["usr/local/bin/daemonplan-controller"]
	if bin.mode != 0o755 {
		t.Errorf("binary mode = %o, want 755", bin.mode)
	}

	if runtime.GOOS != "linux" {
		t.Skipf("the image's linux binary does not run on %s", runtime.GOOS)
	}
	exe := filepath.Join(t.TempDir(), "daemonplan-controller")
	if err := os.WriteFile(exe, bin.data, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(exe, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", exe, err, got)
	}
	want := "daemonplan-controller " + version + " (commit 0123456789ab, " + created + ") " + runtime.Version() + " linux/" + runtime.GOARCH + "\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("--version (-want +got):\n%s", diff)
	}
	// A static binary: no program interpreter (the dynamic loader).
	if bytes.Contains(bin.data[:min(len(bin.data), 4096)], []byte("ld-linux")) {
		t.Errorf("the binary names a dynamic loader; want a static (CGO_ENABLED=0) binary")
	}
}

var sortStrings = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

type layerFile struct {
	mode int64
	data []byte
}

// layerFiles reads the image's one layer.
func layerFiles(t *testing.T, img v1.Image) map[string]layerFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	if mt, _ := layers[0].MediaType(); mt != types.OCILayer {
		t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files := map[string]layerFile{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want root", h.Name, h.Uid, h.Gid)
		}
		files[h.Name] = layerFile{mode: h.Mode, data: data}
	}
	return files
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "defaults"},
		{name: "two platforms", args: []string{"--platform", "linux/amd64,linux/arm64"}},
		{name: "not linux", args: []string{"--platform", "darwin/arm64"}, wantErr: "linux only"},
		{name: "no arch", args: []string{"--platform", "linux"}, wantErr: "OS/ARCH"},
		{name: "a platform twice", args: []string{"--platform", "linux/amd64,linux/amd64"}, wantErr: "given twice"},
		{name: "tarball of two platforms", args: []string{"--platform", "linux/amd64,linux/arm64", "--tarball", "x.tar"}, wantErr: "one platform"},
		{name: "bad time", args: []string{"--created", "yesterday"}, wantErr: "--created"},
		{name: "a tag in --tag", args: []string{"--tag", "example.com:5000/controller:v1"}, wantErr: "without a tag"},
		{name: "a registry port is no tag", args: []string{"--tag", "example.com:5000/controller"}},
		{name: "an argument", args: []string{"build"}, wantErr: "flags only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseFlags(tt.args, io.Discard)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && !strings.Contains(got, tt.wantErr) {
				t.Errorf("parseFlags(%q) = %v, want an error containing %q", tt.args, err, tt.wantErr)
			}
		})
	}
}

func TestTagOf(t *testing.T) {
	for _, tt := range []struct{ version, want string }{
		{"v0.1.0", "v0.1.0"},
		{"v0.0.0-20261127193225-83bccffdb80f+dirty", "v0.0.0-20261127193225-83bccffdb80f-dirty"},
		{"", "devel"},
	} {
		if diff := cmp.Diff(tt.want, tagOf(tt.version)); diff != "" {
			t.Errorf("tagOf(%q) (-want +got):\n%s", tt.version, diff)
		}
	}
}

func TestClearLayoutRefusesOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := clearLayout(dir); err == nil || !strings.Contains(err.Error(), "not an OCI layout") {
		t.Errorf("clearLayout(a directory with notes.txt) = %v, want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("notes.txt is gone: %v", err)
	}
}

// TestWriteLayoutIndex: with several platforms the layout holds one image
// index whose manifests say their platform (random images stand in for
// the controller's, which TestBuildImage builds).
func TestWriteLayoutIndex(t *testing.T) {
	platforms := []platform{{os: "linux", arch: "amd64"}, {os: "linux", arch: "arm64"}}
	var images []v1.Image
	for _, pl := range platforms {
		img, err := random.Image(1024, 1)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		cf.OS, cf.Architecture = pl.os, pl.arch
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			t.Fatal(err)
		}
		images = append(images, img)
	}
	out := filepath.Join(t.TempDir(), "oci")
	s := stamp{version: "v0.1.0", created: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	if err := writeLayout(out, images, platforms, "example.com/controller:v0.1.0", s); err != nil {
		t.Fatal(err)
	}
	// Written twice: the second replaces the first.
	if err := writeLayout(out, images, platforms, "example.com/controller:v0.1.0", s); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(out)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Manifests) != 1 || tm.Manifests[0].MediaType != types.OCIImageIndex {
		t.Fatalf("index.json: %+v, want one image index", tm.Manifests)
	}
	if got := tm.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; got != "example.com/controller:v0.1.0" {
		t.Errorf("ref.name = %q", got)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	inner, err := idx.ImageIndex(tm.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate.Index(inner); err != nil {
		t.Errorf("the image index is not consistent: %v", err)
	}
	im, err := inner.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range im.Manifests {
		got = append(got, m.Platform.String())
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64"}, got); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
}
