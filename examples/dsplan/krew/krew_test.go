package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/krew/pkg/index"
	"sigs.k8s.io/yaml"
)

// repoRoot is the repository's root, from this module's directory.
const repoRoot = "../../.."

// testTag is the version the tests render the manifest for.
const testTag = "v0.1.0"

// fakeSHA is a checksum for uri that is a valid sha256 (of the URI).
func fakeSHA(uri string) (string, error) {
	sum := sha256.Sum256([]byte(uri))
	return hex.EncodeToString(sum[:]), nil
}

func renderTemplate(t *testing.T, sha func(string) (string, error), allowMissing bool) []byte {
	t.Helper()
	text, err := os.ReadFile("dsplan.yaml")
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := render(string(text), testTag, sha, allowMissing)
	if err != nil {
		t.Fatal(err)
	}
	return manifest
}

// validateWithKrew runs krew's own validate-krew-manifest (sigs.k8s.io/krew
// v0.4.3, this module's tool: ReadPluginFromFile, ValidatePlugin against
// the file's name, every platform selector used, none overlapping) on
// manifest, written as dsplan.yaml; -skip-install, since installing needs
// kubectl and the release archives.
func validateWithKrew(t *testing.T, manifest []byte) (string, error) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "dsplan.yaml")
	if err := os.WriteFile(file, manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "validate-krew-manifest", "-manifest", file, "-skip-install").CombinedOutput()
	return string(out), err
}

func TestManifestValidatesWithKrew(t *testing.T) {
	manifest := renderTemplate(t, fakeSHA, false)
	out, err := validateWithKrew(t, manifest)
	if err != nil {
		t.Fatalf("krew rejects the rendered manifest: %v\n%s\n--- manifest:\n%s", err, out, manifest)
	}
	for _, want := range []string{"structural validation OK", "all spec.platform[] items are used", "no overlapping spec.platform[].selector"} {
		if !strings.Contains(out, want) {
			t.Errorf("validate-krew-manifest did not say %q:\n%s", want, out)
		}
	}
}

// TestKrewRejectsBrokenManifests shows the validation is the real one: the
// same manifest with one field broken fails it.
func TestKrewRejectsBrokenManifests(t *testing.T) {
	manifest := string(renderTemplate(t, fakeSHA, false))
	tests := []struct {
		name, old, new, want string
	}{
		{"a version without v", "version: v0.1.0", "version: 0.1.0", "version"},
		{"a short checksum", "sha256: ", "sha256: 0123", "sha256"},
		{"another plugin's name", "name: dsplan", "name: ds-plan", "name"},
		{"a platform twice", "arch: arm64\n", "arch: amd64\n", "overlapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := strings.Replace(manifest, tt.old, tt.new, 1)
			if broken == manifest {
				t.Fatalf("%q not in the manifest", tt.old)
			}
			out, err := validateWithKrew(t, []byte(broken))
			if err == nil {
				t.Fatalf("krew accepts a manifest with %s:\n%s", tt.name, out)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("krew's error does not mention %q:\n%s", tt.want, out)
			}
		})
	}
}

// goreleaser is the part of .goreleaser.yaml the release matrix is made
// of.
type goreleaser struct {
	Version int `json:"version"`
	Builds  []struct {
		ID      string   `json:"id"`
		Dir     string   `json:"dir"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Flags   []string `json:"flags"`
		Ldflags []string `json:"ldflags"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
	} `json:"builds"`
	Archives []struct {
		ID              string   `json:"id"`
		IDs             []string `json:"ids"`
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		FormatOverrides []struct {
			Goos    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
		Files []string `json:"files"`
	} `json:"archives"`
	Checksum struct {
		NameTemplate string `json:"name_template"`
		Algorithm    string `json:"algorithm"`
	} `json:"checksum"`
}

func readGoreleaser(t *testing.T) goreleaser {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var g goreleaser
	if err := yaml.Unmarshal(data, &g); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	return g
}

// release is the release matrix: the platforms and the programs
// (directory, package), as .ci/run cross-compiles them.
var (
	releasePlatforms = []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64", "windows/amd64", "windows/arm64"}
	releasePrograms  = map[string]string{ // binary: directory and package
		"kubectl-dsplan":        "examples/dsplan:./cmd/kubectl-dsplan",
		"daemonplan-controller": "examples/controller:.",
	}
	stampPackages = map[string]string{
		"kubectl-dsplan":        "github.com/daemonplan/daemonplan/examples/dsplan/internal/cli",
		"daemonplan-controller": "github.com/daemonplan/daemonplan/examples/controller/internal/app",
	}
)

func TestGoreleaserBuildsTheMatrix(t *testing.T) {
	g := readGoreleaser(t)
	if g.Version != 2 {
		t.Errorf("version: %d, want 2 (GoReleaser v2's schema)", g.Version)
	}
	got := map[string]string{}
	for _, b := range g.Builds {
		if b.ID != b.Binary {
			t.Errorf("build %s: binary %s, want the id (archives and the krew manifest name it)", b.ID, b.Binary)
		}
		got[b.Binary] = b.Dir + ":" + b.Main
		var platforms []string
		for _, goos := range b.Goos {
			for _, goarch := range b.Goarch {
				platforms = append(platforms, goos+"/"+goarch)
			}
		}
		if diff := cmp.Diff(releasePlatforms, platforms, cmp.Transformer("sort", sorted)); diff != "" {
			t.Errorf("build %s's platforms (-want +got):\n%s", b.ID, diff)
		}
		if !slices.Contains(b.Env, "CGO_ENABLED=0") || !slices.Contains(b.Flags, "-trimpath") {
			t.Errorf("build %s: env %q, flags %q; want CGO_ENABLED=0 and -trimpath (as .ci/run and examples/image build)", b.ID, b.Env, b.Flags)
		}
		ld := strings.Join(b.Ldflags, " ")
		for _, v := range []string{"version", "commit", "date"} {
			if want := "-X " + stampPackages[b.Binary] + "." + v + "="; !strings.Contains(ld, want) {
				t.Errorf("build %s: ldflags %q do not stamp %s (want %q)", b.ID, ld, v, want)
			}
		}
		if _, err := os.Stat(filepath.Join(repoRoot, b.Dir, "go.mod")); err != nil {
			t.Errorf("build %s: dir %s is not a module: %v", b.ID, b.Dir, err)
		}
	}
	if diff := cmp.Diff(releasePrograms, got); diff != "" {
		t.Errorf("builds (-want +got):\n%s", diff)
	}
	var archives []string
	for _, a := range g.Archives {
		archives = append(archives, strings.Join(a.IDs, ","))
		if !slices.Contains(a.Files, "LICENSE") {
			t.Errorf("archive %s: files %q, want LICENSE (krew-index requires a license in the archive)", a.ID, a.Files)
		}
	}
	if diff := cmp.Diff([]string{"daemonplan-controller", "kubectl-dsplan"}, archives, cmp.Transformer("sort", sorted)); diff != "" {
		t.Errorf("one archive per build (-want +got):\n%s", diff)
	}
	if g.Checksum.NameTemplate == "" || g.Checksum.Algorithm != "sha256" {
		t.Errorf("checksum: %+v, want a sha256 checksums file", g.Checksum)
	}
}

// TestManifestPointsAtTheReleaseArchives: one krew platform per release
// platform, each at the URI of the archive GoReleaser names for it, with
// the binary it holds.
func TestManifestPointsAtTheReleaseArchives(t *testing.T) {
	g := readGoreleaser(t)
	var want []index.Platform
	for _, a := range g.Archives {
		if !slices.Contains(a.IDs, "kubectl-dsplan") {
			continue
		}
		for _, p := range releasePlatforms {
			goos, goarch, _ := strings.Cut(p, "/")
			format := a.Formats[0]
			for _, o := range a.FormatOverrides {
				if o.Goos == goos {
					format = o.Formats[0]
				}
			}
			name := strings.NewReplacer("{{ .Tag }}", testTag, "{{ .Os }}", goos, "{{ .Arch }}", goarch).Replace(a.NameTemplate)
			if strings.Contains(name, "{{") {
				t.Fatalf("archive name_template %q uses more than .Tag, .Os and .Arch", a.NameTemplate)
			}
			bin := "kubectl-dsplan"
			if goos == "windows" {
				bin += ".exe"
			}
			uri := "https://github.com/daemonplan/daemonplan/releases/download/" + testTag + "/" + name + "." + format
			sum, _ := fakeSHA(uri)
			want = append(want, index.Platform{
				URI:    uri,
				Sha256: sum,
				Bin:    bin,
			})
		}
	}
	var plugin index.Plugin
	if err := yaml.Unmarshal(renderTemplate(t, fakeSHA, false), &plugin); err != nil {
		t.Fatal(err)
	}
	var got []index.Platform
	for _, p := range plugin.Spec.Platforms {
		goos, goarch := p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]
		if !strings.Contains(p.URI, "_"+goos+"_"+goarch+".") {
			t.Errorf("platform %s/%s points at %s", goos, goarch, p.URI)
		}
		p.Selector = nil
		got = append(got, p)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	if plugin.Spec.Version != testTag {
		t.Errorf("spec.version = %q, want %q", plugin.Spec.Version, testTag)
	}
}

// TestCICrossCompilesTheMatrix: .ci/run's cross-compile step builds the
// release's platforms and programs.
func TestCICrossCompilesTheMatrix(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	var platforms, programs []string
	for _, m := range regexp.MustCompile(`(?m)^release_(platforms|programs)=\(([^)]*)\)`).FindAllSubmatch(data, -1) {
		fields := strings.Fields(string(m[2]))
		if string(m[1]) == "platforms" {
			platforms = fields
		} else {
			programs = fields
		}
	}
	if diff := cmp.Diff(releasePlatforms, platforms, cmp.Transformer("sort", sorted)); diff != "" {
		t.Errorf(".ci/run's release_platforms (-want +got):\n%s", diff)
	}
	var want []string
	for _, dirMain := range releasePrograms {
		want = append(want, dirMain)
	}
	if diff := cmp.Diff(want, programs, cmp.Transformer("sort", sorted)); diff != "" {
		t.Errorf(".ci/run's release_programs (-want +got):\n%s", diff)
	}
}

func TestRenderForLocalArchives(t *testing.T) {
	dir := t.TempDir()
	// Archives for linux only: the others are missing.
	for _, name := range []string{"kubectl-dsplan_v0.1.0_linux_amd64.tar.gz", "kubectl-dsplan_v0.1.0_linux_arm64.tar.gz"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version", testTag, "--archives", dir}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "darwin_amd64") {
		t.Errorf("with archives missing: exit %d, stderr %q; want 1 naming the first missing one", code, stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"--version", testTag, "--archives", dir, "--allow-missing"}, &stdout, &stderr); code != 0 {
		t.Fatalf("--allow-missing: exit %d: %s", code, stderr.String())
	}
	var plugin index.Plugin
	if err := yaml.Unmarshal(stdout.Bytes(), &plugin); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range plugin.Spec.Platforms {
		sum := sha256.Sum256([]byte(path.Base(p.URI)))
		if p.Sha256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: sha256 %s is not the archive's", p.URI, p.Sha256)
		}
		got = append(got, path.Base(p.URI))
	}
	if diff := cmp.Diff([]string{"kubectl-dsplan_v0.1.0_linux_amd64.tar.gz", "kubectl-dsplan_v0.1.0_linux_arm64.tar.gz"}, got); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	if out, err := validateWithKrew(t, stdout.Bytes()); err != nil {
		t.Errorf("krew rejects the manifest for local archives: %v\n%s", err, out)
	}
}

func sorted(in []string) []string {
	out := slices.Clone(in)
	slices.Sort(out)
	return out
}
