// Command image builds the example controller's container image
// (examples/controller) into an OCI image layout, without a Docker engine
// and without pulling a base image:
//
//	cd examples/image && go run .                # writes ../../dist/controller-oci
//	go -C examples/image run . --platform linux/amd64,linux/arm64
//
// It cross-compiles the controller with CGO_ENABLED=0 (a static binary,
// -trimpath, the version, commit and date stamped with the linker's -X),
// puts it in one layer on an empty base (no shell, no libc, nothing else:
// the binary, and /etc/passwd and /etc/group naming the user nonroot, uid
// and gid 65532) and writes an image whose config runs it as 65532:65532,
// with the org.opencontainers.image.* labels (version, revision, source,
// created, title, licenses, description). With more than one --platform the
// layout holds an image index, one image per platform.
//
// The layout is a directory any OCI tool reads; to push it, or to load it:
//
//	crane push dist/controller-oci REGISTRY/controller:TAG
//	skopeo copy oci:dist/controller-oci docker://REGISTRY/controller:TAG
//	go -C examples/image run . --tarball ../../dist/controller.tar   # docker load, kind load image-archive
//
// The version, commit and date come from git (git describe --tags, the
// HEAD commit and its commit time, so that two builds of one commit are the
// same image, byte for byte); --version, --revision and --created override
// them. Without git the image says version (devel) and no revision.
//
// Why go-containerregistry and not ko: ko is a CLI that needs a base image,
// pulled from a registry or configured locally, and an output that is a
// registry or its own layout conventions; go-containerregistry is the
// library ko is built on, so that this program (and its test, which builds
// the image, reads its config back and runs the binary from its layer) owns
// every byte of the image without a registry, a daemon or a network.
//
// A Dockerfile beside this program builds the same image with Docker, for
// those who prefer it (from the repository root:
// docker build -f examples/image/Dockerfile .); it is not tested here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"
)

// options are the command-line flags.
type options struct {
	out       string
	tarball   string
	repo      string
	platforms []platform
	tag       string
	version   string
	revision  string
	created   time.Time
	source    string
}

// platform is one target: linux and an architecture (with an arm variant).
type platform struct{ os, arch, variant string }

func (p platform) String() string {
	s := p.os + "/" + p.arch
	if p.variant != "" {
		s += "/" + p.variant
	}
	return s
}

func parsePlatforms(s string) ([]platform, error) {
	var ps []platform
	for _, f := range strings.Split(s, ",") {
		parts := strings.Split(strings.TrimSpace(f), "/")
		if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
			return nil, fmt.Errorf("--platform: %q is not OS/ARCH[/VARIANT]", f)
		}
		if parts[0] != "linux" {
			return nil, fmt.Errorf("--platform: %q: the image runs on linux only", f)
		}
		p := platform{os: parts[0], arch: parts[1]}
		if len(parts) == 3 {
			p.variant = parts[2]
		}
		for _, q := range ps {
			if q == p {
				return nil, fmt.Errorf("--platform: %s given twice", p)
			}
		}
		ps = append(ps, p)
	}
	return ps, nil
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var platforms, created string
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "out", "", "directory of the OCI image layout to write, replaced if it is one (default: dist/controller-oci in the repository)")
	fs.StringVar(&o.tarball, "tarball", "", "also write the image as a tarball that docker load and kind load image-archive read (one platform only)")
	fs.StringVar(&o.repo, "repo", "", "the repository's root (default: the nearest directory above the working directory holding examples/controller/go.mod)")
	fs.StringVar(&platforms, "platform", "linux/"+hostArch(), "comma-separated OS/ARCH[/VARIANT] to build for, such as linux/amd64,linux/arm64")
	fs.StringVar(&o.tag, "tag", "ghcr.io/daemonplan/controller", "image name; the version is its tag (in the layout's org.opencontainers.image.ref.name and the tarball)")
	fs.StringVar(&o.version, "version", "", "version to stamp and label (default: git describe --tags, or a pseudo-version of the commit)")
	fs.StringVar(&o.revision, "revision", "", "commit to stamp and label (default: git rev-parse HEAD)")
	fs.StringVar(&created, "created", "", "RFC 3339 creation time (default: $SOURCE_DATE_EPOCH, else the commit's time)")
	fs.StringVar(&o.source, "source", "https://github.com/daemonplan/daemonplan", "org.opencontainers.image.source")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: image takes flags only", fs.Arg(0))
	}
	var err error
	if o.platforms, err = parsePlatforms(platforms); err != nil {
		return o, err
	}
	if o.tarball != "" && len(o.platforms) > 1 {
		return o, errors.New("--tarball holds one platform; give one --platform")
	}
	if created != "" {
		if o.created, err = time.Parse(time.RFC3339, created); err != nil {
			return o, fmt.Errorf("--created: %w", err)
		}
	}
	if strings.ContainsAny(o.tag, "@") || strings.Count(o.tag[strings.LastIndex(o.tag, "/")+1:], ":") > 0 {
		return o, fmt.Errorf("--tag %q: give the name without a tag or digest (the version is the tag)", o.tag)
	}
	return o, nil
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit code (0 built, 1 failed, 2 bad
// flags).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "image:", err)
		return 2
	}
	if err := build(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "image:", err)
		return 1
	}
	return 0
}

// findRepo is the nearest directory at or above dir that holds
// examples/controller/go.mod.
func findRepo(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "examples", "controller", "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no examples/controller/go.mod at or above %s: run it in a clone of the repository, or give --repo", dir)
		}
	}
}
