package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installCommands returns the shell commands of the README's Install
// section, one a line (continued lines joined), each with its trailing
// comment; a command whose comment says "cluster" or "network" needs one.
func installCommands(t *testing.T, readme string) (run, skipped []string) {
	t.Helper()
	start := strings.Index(readme, "\n## Install\n")
	if start < 0 {
		t.Fatal("README.md has no ## Install section")
	}
	section := readme[start+1:]
	if end := strings.Index(section[len("## Install"):], "\n## "); end >= 0 {
		section = section[:len("## Install")+end]
	}
	inBlock := false
	var cmd strings.Builder
	sc := bufio.NewScanner(strings.NewReader(section))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
			continue
		case strings.HasPrefix(line, "```"):
			inBlock = false
			continue
		case !inBlock:
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cmd.WriteString(strings.TrimSuffix(line, `\`))
			continue
		}
		cmd.WriteString(line)
		full := strings.TrimSpace(cmd.String())
		cmd.Reset()
		command, comment, _ := strings.Cut(full, " #")
		if strings.Contains(comment, "cluster") || strings.Contains(comment, "network") {
			skipped = append(skipped, full)
			continue
		}
		run = append(run, strings.TrimSpace(command))
	}
	return run, skipped
}

// TestREADMEInstall runs, as written and in order, the commands of the
// README's Install section that need neither a cluster nor the network
// beyond Go's module proxy, in a copy of the repository's tracked files
// (so that what they build, dist/ among it, lands in the copy) with $GOBIN
// in a temporary directory on the PATH.
func TestREADMEInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the controller and kubectl-dsplan")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree: %v", err)
	}
	src := strings.TrimSpace(string(root))
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	run, skipped := installCommands(t, string(readme))
	if len(run) < 5 {
		t.Fatalf("the Install section has %d commands to run, want at least 5: %q", len(run), run)
	}
	clone := copyTracked(t, src)
	bin := t.TempDir()
	env := append(os.Environ(), "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, c := range run {
		cmd := exec.Command("bash", "-euo", "pipefail", "-c", c)
		cmd.Dir, cmd.Env = clone, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("README Install: %s: %v\n%s", c, err, out)
		}
		t.Logf("ran: %s", c)
	}
	for _, c := range skipped {
		t.Logf("not run (needs a cluster or the network): %s", c)
	}
	// The commands set the pushed image in the manifests kubectl applies.
	data, err := os.ReadFile(filepath.Join(clone, "examples/controller/deploy/04-deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "image: REGISTRY/controller:TAG\n") {
		t.Errorf("after the Install commands, 04-deployment.yaml names no pushed image:\n%s", data)
	}
}

// TestREADMEInstallNamesThePushedImage: no release has published the
// controller's image, so the Install section builds and pushes one in a
// single command, and every way it installs the controller names that
// image: the Helm command sets its repository and tag, and the command
// that sets it in the plain manifests replaces their empty image (the only
// image line of each Deployment) with it.
func TestREADMEInstallNamesThePushedImage(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree: %v", err)
	}
	src := strings.TrimSpace(string(root))
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	run, skipped := installCommands(t, string(readme))
	var push, helm, setImage string
	for _, c := range append(run, skipped...) {
		switch {
		case strings.Contains(c, "crane") && strings.Contains(c, " push "):
			push = c
		case strings.HasPrefix(c, "helm install"):
			helm = c
		case strings.HasPrefix(c, "sed ") && strings.Contains(c, `image: ""`):
			setImage = c
		}
	}
	if push == "" || helm == "" || setImage == "" {
		t.Fatalf("the Install section lacks a command: push %q, helm %q, set image %q", push, helm, setImage)
	}
	if !strings.HasPrefix(push, "go run -C examples/image . && ") {
		t.Errorf("the push command %q does not build the image first, in the same command", push)
	}
	command, _, _ := strings.Cut(push, " #")
	fields := strings.Fields(command)
	image := fields[len(fields)-1]
	layout := fields[len(fields)-2]
	if layout != "dist/controller-oci" {
		t.Errorf("the push command pushes %s; the builder writes dist/controller-oci (of the repository)", layout)
	}
	repository, tag, ok := strings.Cut(image, ":")
	if !ok {
		t.Fatalf("the pushed image %q has no tag", image)
	}
	if want := "--set image.repository=" + repository + " --set image.tag=" + tag; !strings.Contains(helm, want) {
		t.Errorf("the Helm command %q does not set the pushed image (%s)", helm, want)
	}
	if want := `'s|image: ""|image: ` + image + `|'`; !strings.Contains(setImage, want) {
		t.Errorf("the manifests' command %q does not set the pushed image (%s)", setImage, want)
	}
	_, rest, _ := strings.Cut(setImage, "|' ")
	files := strings.Fields(rest)
	if len(files) == 0 {
		t.Fatalf("the manifests' command %q names no file", setImage)
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		var images []string
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); strings.HasPrefix(line, "image:") {
				images = append(images, line)
			}
		}
		if len(images) != 1 || images[0] != `image: ""` {
			t.Errorf("%s has the image lines %q, want one, empty", f, images)
		}
	}
}

// copyTracked copies the files git tracks under src (as they are in the
// work tree) into a temporary directory and returns it.
func copyTracked(t *testing.T, src string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", src, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		from, to := filepath.Join(src, name), filepath.Join(dst, name)
		info, err := os.Lstat(from)
		if err != nil || !info.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, info.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}
