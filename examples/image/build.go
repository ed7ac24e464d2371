package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// binaryPath is where the controller sits in the image, its
	// entrypoint.
	binaryPath = "/usr/local/bin/daemonplan-controller"
	// user is the image's user: distroless' nonroot, which the
	// Deployment's securityContext names too.
	user = "65532:65532"
	// stampPackage holds the controller's -X variables (version, commit,
	// date).
	stampPackage = "github.com/daemonplan/daemonplan/examples/controller/internal/app"
	title        = "daemonplan-controller"
	description  = "The daemonplan example DaemonSet controller (replace and companion modes)"
	licenses     = "Apache-2.0"
)

// build compiles the controller for each platform, assembles the images and
// writes the layout (and the tarball).
func build(ctx context.Context, o options, stdout, stderr io.Writer) error {
	repo := o.repo
	if repo == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if repo, err = findRepo(wd); err != nil {
			return err
		}
	}
	out := o.out
	if out == "" {
		out = filepath.Join(repo, "dist", "controller-oci")
	}
	s, err := resolveStamp(ctx, o, repo, stderr)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "daemonplan-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var images []v1.Image
	for _, p := range o.platforms {
		bin := filepath.Join(tmp, strings.NewReplacer("/", "-").Replace(p.String()))
		if err := compile(ctx, repo, p, s, bin, stderr); err != nil {
			return err
		}
		img, err := assemble(bin, p, s, o.source)
		if err != nil {
			return fmt.Errorf("image for %s: %w", p, err)
		}
		images = append(images, img)
	}

	ref := o.tag + ":" + tagOf(s.version)
	if err := writeLayout(out, images, o.platforms, ref, s); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %s, version %s, revision %s, created %s\n", out, ref, versionOrDevel(s.version), orUnknown(s.revision), s.created.Format(time.RFC3339))
	for i, img := range images {
		fmt.Fprintf(stdout, "  %s: %s\n", o.platforms[i], describe(img))
	}
	if o.tarball != "" {
		tag, err := name.NewTag(ref)
		if err != nil {
			return fmt.Errorf("--tag: %w", err)
		}
		if err := tarball.WriteToFile(o.tarball, tag, images[0]); err != nil {
			return fmt.Errorf("--tarball: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s (docker load -i, kind load image-archive)\n", o.tarball)
	}
	return nil
}

// compile builds the controller for p into bin: static, trimmed, stamped.
func compile(ctx context.Context, repo string, p platform, s stamp, bin string, stderr io.Writer) error {
	ldflags := []string{"-s", "-w"}
	for _, kv := range [][2]string{{"version", s.version}, {"commit", s.revision}, {"date", s.created.Format(time.RFC3339)}} {
		if kv[1] != "" {
			ldflags = append(ldflags, "-X", stampPackage+"."+kv[0]+"="+kv[1])
		}
	}
	cmd := exec.CommandContext(ctx, goCommand(), "build", "-trimpath", "-buildvcs=false", "-ldflags", strings.Join(ldflags, " "), "-o", bin, ".")
	cmd.Dir = filepath.Join(repo, "examples", "controller")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.os, "GOARCH="+p.arch)
	switch p.arch {
	case "arm":
		cmd.Env = append(cmd.Env, "GOARM="+strings.TrimPrefix(p.variant, "v"))
	case "amd64":
		if p.variant != "" {
			cmd.Env = append(cmd.Env, "GOAMD64="+p.variant)
		}
	}
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build of examples/controller for %s: %w", p, err)
	}
	return nil
}

// goCommand is the go command that runs this program ($GOROOT/bin/go when
// it exists), so that the controller is built by the same toolchain.
func goCommand() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if _, err := os.Stat(filepath.Join(root, "bin", "go")); err == nil {
			return filepath.Join(root, "bin", "go")
		}
	}
	return "go"
}

// assemble puts the binary bin on an empty base: one layer, the config
// that runs it as user with the labels.
func assemble(bin string, p platform, s stamp, source string) (v1.Image, error) {
	layer, err := rootLayer(bin, s.created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   v1.Time{Time: s.created},
			CreatedBy: "examples/image: CGO_ENABLED=0 go build -trimpath ./examples/controller",
			Comment:   "the static controller binary, /etc/passwd and /etc/group naming nonroot (65532)",
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.os, p.arch, p.variant
	cf.Created = v1.Time{Time: s.created}
	cf.Author = "daemonplan"
	cf.Config = v1.Config{
		Entrypoint: []string{binaryPath},
		User:       user,
		WorkingDir: "/",
		Labels:     labels(s, source),
	}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, err
	}
	return mutate.Annotations(img, labels(s, source)).(v1.Image), nil
}

// labels are the org.opencontainers.image.* keys of the image spec's
// annotations, set as config labels (what docker inspect and registries
// show) and as manifest annotations.
func labels(s stamp, source string) map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       title,
		"org.opencontainers.image.description": description,
		"org.opencontainers.image.version":     versionOrDevel(s.version),
		"org.opencontainers.image.created":     s.created.Format(time.RFC3339),
		"org.opencontainers.image.source":      source,
		"org.opencontainers.image.licenses":    licenses,
	}
	if s.revision != "" {
		l["org.opencontainers.image.revision"] = s.revision
	}
	return l
}

// rootLayer is the image's one layer, gzipped: the binary at binaryPath
// (root-owned, 0755) and /etc/passwd and /etc/group with root and nonroot,
// every entry at time mod so that the layer depends only on its content.
func rootLayer(bin string, mod time.Time) (v1.Layer, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := []string{"etc/", "usr/", "usr/local/", "usr/local/bin/"}
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755, ModTime: mod, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	files := []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")},
		{"etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{strings.TrimPrefix(binaryPath, "/"), 0o755, data},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mod, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	raw := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(raw)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// writeLayout replaces out with an OCI image layout holding the image (one
// platform) or an index of them, under the reference ref.
func writeLayout(out string, images []v1.Image, platforms []platform, ref string, s stamp) error {
	if err := clearLayout(out); err != nil {
		return err
	}
	p, err := layout.Write(out, empty.Index)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	annotations := map[string]string{
		"org.opencontainers.image.ref.name": ref,
		"org.opencontainers.image.created":  s.created.Format(time.RFC3339),
	}
	// The descriptor is written here rather than by AppendImage, which
	// would add an artifactType (the config's media type) that an image
	// manifest does not carry.
	var top interface {
		Digest() (v1.Hash, error)
		Size() (int64, error)
	}
	var mediaType types.MediaType
	if len(images) == 1 {
		if err := p.WriteImage(images[0]); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		top, mediaType = images[0], types.OCIManifestSchema1
	} else {
		idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
		for i, img := range images {
			idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
				Add: img,
				Descriptor: v1.Descriptor{
					MediaType: types.OCIManifestSchema1,
					Platform:  &v1.Platform{OS: platforms[i].os, Architecture: platforms[i].arch, Variant: platforms[i].variant},
				},
			})
		}
		if err := p.WriteIndex(idx); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		top, mediaType = idx, types.OCIImageIndex
	}
	digest, err := top.Digest()
	if err != nil {
		return err
	}
	size, err := top.Size()
	if err != nil {
		return err
	}
	return p.AppendDescriptor(v1.Descriptor{MediaType: mediaType, Digest: digest, Size: size, Annotations: annotations})
}

// clearLayout removes out when it is an OCI layout (this program's output)
// or empty, and refuses any other directory.
func clearLayout(out string) error {
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(out, "oci-layout")); err != nil {
			return fmt.Errorf("--out %s: a directory that is not an OCI layout; not replacing it", out)
		}
	}
	return os.RemoveAll(out)
}

// describe is an image's digest and sizes, for the summary.
func describe(img v1.Image) string {
	digest, err := img.Digest()
	if err != nil {
		return err.Error()
	}
	layers, err := img.Layers()
	if err != nil {
		return err.Error()
	}
	var compressed int64
	for _, l := range layers {
		n, err := l.Size()
		if err != nil {
			return err.Error()
		}
		compressed += n
	}
	manifest, _ := img.RawManifest()
	config, _ := img.RawConfigFile()
	return fmt.Sprintf("%s, layer %s compressed, %s with config and manifest", digest, mib(compressed), mib(compressed+int64(len(manifest)+len(config))))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n) }

// tagInvalid are the characters a tag cannot hold (it is
// [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}).
var tagInvalid = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// tagOf is the image tag of a version: "+dirty" becomes "-dirty"; an
// unknown version is "devel".
func tagOf(version string) string {
	if version == "" {
		return "devel"
	}
	t := tagInvalid.ReplaceAllString(version, "-")
	return t[:min(128, len(t))]
}

func versionOrDevel(v string) string {
	if v == "" {
		return "(devel)"
	}
	return v
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
