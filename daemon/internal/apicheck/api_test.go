package apicheck

import (
	"bytes"
	"flag"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "write each library package's api.txt from its source")

// modulePath is the root module, whose library packages have an api.txt.
const modulePath = "github.com/daemonplan/daemonplan"

// updateCommand records the API as it is; the failure messages print it.
const updateCommand = "go test ./daemon/internal/apicheck -run TestAPI -update"

// apiFile is the name of each library package's API listing, kept in the
// package's own directory.
const apiFile = "api.txt"

// TestAPI keeps every library package's api.txt equal to the exported
// API its source declares: a change to the API fails here until the
// listing is recorded again (with -update), so it shows in review. A
// library package is one of the root module outside internal/ and
// examples/ and not a command; nested modules (the oracles, the examples'
// programs) are not reached. An api.txt in a directory that is not a
// library package (one moved or removed) fails too.
//
// The packages are loaded from the compiler's export data, which
// `go list -export` builds (from the build cache when warm): type-checking
// k8s.io/api from source would take tens of seconds.
func TestAPI(t *testing.T) {
	root := moduleRoot(t)
	pkgs := libraryPackages(t, root)
	if len(pkgs) == 0 {
		t.Fatal("found no library package")
	}
	imp := exportImporter(t, root, pkgs)

	listed := map[string]bool{}
	for _, p := range pkgs {
		rel := filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/"))
		listed[rel] = true
		tp, err := imp.Import(p)
		if err != nil {
			t.Fatalf("loading %s: %v", p, err)
		}
		got := Lines(tp, modulePath)
		path := filepath.Join(root, rel, apiFile)
		if *update {
			writeListing(t, path, rel, got)
			continue
		}
		want, err := readListing(path)
		if err != nil {
			t.Errorf("%v: %s has no recorded API; record it with\n\t%s", err, rel, updateCommand)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s differs from the package's exported API (-%s +source):\n%s\n"+
				"If the change is deliberate, record it with\n\t%s\n"+
				"and say what a user of the library notices under \"## [Unreleased]\" in CHANGELOG.md "+
				"(### Added, Changed, Deprecated or Removed).",
				filepath.Join(rel, apiFile), apiFile, diff, updateCommand)
		}
	}

	// An api.txt where no library package is: the package moved or went.
	for _, rel := range strayListings(t, root, listed) {
		path := filepath.Join(root, rel, apiFile)
		if *update {
			if err := os.Remove(path); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s lists the API of %s, which is not a library package (moved, removed or internal); "+
			"remove the file with\n\t%s\nand say so in CHANGELOG.md", filepath.Join(rel, apiFile), rel, updateCommand)
	}
}

// moduleRoot returns the directory of the root module's go.mod, above the
// test's own directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte("module "+modulePath+"\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod of module %s above the test's directory", modulePath)
		}
		dir = parent
	}
}

// goList runs the go command's list in the module root and returns its
// output.
func goList(t *testing.T, root string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// libraryPackages returns the import paths of the root module's library
// packages, sorted.
func libraryPackages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	for line := range strings.Lines(goList(t, root, "-f", "{{.ImportPath}} {{.Name}}", "./...")) {
		path, name, _ := strings.Cut(strings.TrimSpace(line), " ")
		rel := strings.TrimPrefix(strings.TrimPrefix(path, modulePath), "/")
		elems := strings.Split(rel, "/")
		if name == "main" || elems[0] == "examples" || slices.Contains(elems, "internal") {
			continue
		}
		pkgs = append(pkgs, path)
	}
	slices.Sort(pkgs)
	return pkgs
}

// exportImporter returns an importer that reads pkgs and everything they
// import from the export data `go list -export` names.
func exportImporter(t *testing.T, root string, pkgs []string) types.Importer {
	t.Helper()
	files := map[string]string{}
	args := append([]string{"-export", "-deps", "-f", "{{if .Export}}{{.ImportPath}}\t{{.Export}}{{end}}"}, pkgs...)
	for line := range strings.Lines(goList(t, root, args...)) {
		path, file, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if ok {
			files[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) {
		file, ok := files[path]
		if !ok {
			return nil, fmt.Errorf("go list -export named no export data for %s", path)
		}
		return os.Open(file)
	}
	return importer.ForCompiler(token.NewFileSet(), "gc", lookup)
}

// listingHeader is the first line of every api.txt, a comment that says
// what the file is and how to record it again.
func listingHeader(rel string) string {
	return "# The exported API of " + filepath.ToSlash(rel) + ", one name a line. Generated: " + updateCommand
}

// readListing returns an api.txt's lines, comments and blank lines left
// out.
func readListing(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	for line := range strings.Lines(string(data)) {
		line = strings.TrimRight(line, "\r\n")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// writeListing records lines as the api.txt at path, under its header.
func writeListing(t *testing.T, path, rel string, lines []string) {
	t.Helper()
	text := listingHeader(rel) + "\n" + strings.Join(lines, "\n") + "\n"
	if old, err := os.ReadFile(path); err == nil && string(old) == text {
		return
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d lines)", filepath.Join(rel, apiFile), len(lines))
}

// strayListings returns, sorted, the directories (relative to root) that
// hold an api.txt but are not in listed. Nested modules and testdata are
// not searched.
func strayListings(t *testing.T, root string, listed map[string]bool) []string {
	t.Helper()
	var stray []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != root {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if d.Name() != apiFile {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if !listed[rel] {
			stray = append(stray, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(stray)
	return stray
}
