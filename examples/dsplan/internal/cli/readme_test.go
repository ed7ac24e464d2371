package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADME keeps every "$ kubectl dsplan ..." block of the plugin's
// README.md (examples/dsplan/README.md, where TestMain runs the tests)
// what the command prints (stderr, then stdout, as a terminal shows a
// note before the report): each line of the block is a line of the
// output, in order; a line "  ..." stands for lines left out. Paths are as
// seen from the repository root; --svg writes to a temporary directory.
func TestREADME(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	const prompt = "$ kubectl dsplan"
	n := 0
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], prompt) {
			continue
		}
		cmdline := lines[i]
		var block []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			block = append(block, lines[i])
		}
		n++
		t.Run(strings.TrimPrefix(cmdline, prompt+" "), func(t *testing.T) {
			args := strings.Fields(strings.TrimPrefix(cmdline, prompt))
			paths := map[string]string{} // as the test runs it: as README.md has it
			for j, a := range args {
				args[j] = strings.TrimPrefix(a, "examples/dsplan/")
				if args[j] != a {
					paths[args[j]] = a
				}
				if j > 0 && args[j-1] == "--svg" {
					args[j] = filepath.Join(t.TempDir(), a)
				}
			}
			var stdout, stderr bytes.Buffer
			Run(args, nil, &stdout, &stderr, Options{})
			got := strings.Split(stderr.String()+stdout.String(), "\n")
			for j := range got {
				for run, shown := range paths {
					got[j] = strings.ReplaceAll(got[j], run, shown)
				}
			}
			if missing := notShown(block, got); missing != "" {
				t.Errorf("README.md shows %q, which dsplan %s does not print where the block has it; it prints:\n%s",
					missing, strings.Join(args, " "), strings.Join(got, "\n"))
			}
		})
	}
	if n < 5 {
		t.Errorf("README.md has %d dsplan blocks, want at least 5", n)
	}
}

// notShown returns the first line of block that is not the next line of
// got (after any lines a "  ..." line skips), or "" when block is got with
// lines left out where it says so.
func notShown(block, got []string) string {
	k := 0
	skip := false
	for _, want := range block {
		if strings.TrimSpace(want) == "..." {
			skip = true
			continue
		}
		for skip && k < len(got) && got[k] != want {
			k++
		}
		if k >= len(got) || got[k] != want {
			return want
		}
		k++
		skip = false
	}
	return ""
}
