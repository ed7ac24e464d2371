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
