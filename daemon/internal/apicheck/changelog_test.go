package apicheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestChangelog keeps CHANGELOG.md in the shape Keep a Changelog 1.1.0
// gives it, so that a tool or a reader finds what changed in a version:
// "# Changelog" first; "## [Unreleased]" the first section; then
// "## [X.Y.Z] - YYYY-MM-DD" sections, newest first, each version once and
// with its link at the end of the file; inside a section, only the six
// kinds of change, in the format's order, each once and none empty.
func TestChangelog(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, problem := range changelogProblems(string(data)) {
		t.Error("CHANGELOG.md: " + problem)
	}
}

var (
	versionHeading = regexp.MustCompile(`^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)\] - (\d{4}-\d{2}-\d{2})$`)
	linkDefinition = regexp.MustCompile(`^\[([^\]]+)\]: \S+$`)
	changeKinds    = []string{"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
)

// changelogProblems returns what in text breaks the rules TestChangelog
// states, each with its line number; none for a well-formed changelog.
func changelogProblems(text string) []string {
	var problems []string
	report := func(n int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("line %d: ", n)+fmt.Sprintf(format, args...))
	}
	lines := strings.Split(text, "\n")
	if lines[0] != "# Changelog" {
		report(1, `the first line is %q, want "# Changelog"`, lines[0])
	}
	var (
		sections []string // "Unreleased" and the versions, in order
		lastDate string
		kind     = -1 // index in changeKinds of the section's last "###"
		kindLine int  // its line, and whether an item followed it
		hasItem  bool
		links    = map[string]bool{}
	)
	endKind := func() {
		if kind >= 0 && !hasItem {
			report(kindLine, "### %s has no entry", changeKinds[kind])
		}
	}
	inFence := false
	for i, line := range lines {
		n := i + 1
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
		}
		switch {
		case inFence:
		case line == "## [Unreleased]":
			endKind()
			if len(sections) > 0 {
				report(n, "## [Unreleased] comes after %s; it must be the first section", sections[len(sections)-1])
			}
			sections, kind = append(sections, "Unreleased"), -1
		case strings.HasPrefix(line, "## "):
			endKind()
			m := versionHeading.FindStringSubmatch(line)
			if m == nil {
				report(n, `%q is not "## [Unreleased]" nor "## [X.Y.Z] - YYYY-MM-DD"`, line)
				continue
			}
			if len(sections) == 0 {
				report(n, "the first section is %s, want ## [Unreleased]", m[1])
			}
			if slices.Contains(sections, m[1]) {
				report(n, "version %s appears twice", m[1])
			}
			if lastDate != "" && m[2] > lastDate {
				report(n, "version %s (%s) is newer than the one above it (%s): newest first", m[1], m[2], lastDate)
			}
			sections, lastDate, kind = append(sections, m[1]), m[2], -1
		case strings.HasPrefix(line, "### "):
			endKind()
			k := slices.Index(changeKinds, strings.TrimPrefix(line, "### "))
			switch {
			case len(sections) == 0:
				report(n, "%q comes before any version section", line)
			case k < 0:
				report(n, "%q is not one of ### %s", line, strings.Join(changeKinds, ", "))
			case k <= kind:
				report(n, "%q comes after ### %s: the order is %s, each once", line, changeKinds[kind], strings.Join(changeKinds, ", "))
			}
			kind, kindLine, hasItem = k, n, false
		case strings.HasPrefix(line, "- "):
			hasItem = true
		default:
			if m := linkDefinition.FindStringSubmatch(line); m != nil {
				links[m[1]] = true
			}
		}
	}
	endKind()
	if len(sections) == 0 {
		report(len(lines), "no ## [Unreleased] section")
	}
	for _, s := range sections {
		if !links[s] {
			report(len(lines), "no link definition [%s]: URL at the end of the file", s)
		}
	}
	return problems
}

// TestChangelogProblems holds changelogProblems to the rules, one broken
// at a time.
func TestChangelogProblems(t *testing.T) {
	const links = "\n[Unreleased]: https://example.com/u\n[1.0.0]: https://example.com/1\n[0.9.0]: https://example.com/0\n"
	tests := []struct {
		name string
		text string
		want []string
	}{{
		name: "well formed",
		text: "# Changelog\n\nintro\n\n## [Unreleased]\n\n### Added\n\n- a\n\n### Fixed\n\n- b\n\n" +
			"## [1.0.0] - 2026-02-01\n\n### Changed\n\n- c\n\n## [0.9.0] - 2026-01-01\n\n### Removed\n\n- d\n" + links,
	}, {
		name: "no title, no Unreleased",
		text: "# Changes\n\n## [1.0.0] - 2026-02-01\n\n### Added\n\n- a\n" + links,
		want: []string{
			`line 1: the first line is "# Changes", want "# Changelog"`,
			"line 3: the first section is 1.0.0, want ## [Unreleased]",
		},
	}, {
		name: "kinds out of order, unknown, empty",
		text: "# Changelog\n## [Unreleased]\n### Fixed\n- a\n### Added\n- b\n### Improved\n- c\n### Removed\n" + links,
		want: []string{
			`line 5: "### Added" comes after ### Fixed: the order is Added, Changed, Deprecated, Removed, Fixed, Security, each once`,
			`line 7: "### Improved" is not one of ### Added, Changed, Deprecated, Removed, Fixed, Security`,
			"line 9: ### Removed has no entry",
		},
	}, {
		name: "versions: older above newer, twice, bad heading, no link",
		text: "# Changelog\n## [Unreleased]\n## [0.9.0] - 2026-01-01\n## [1.0.0] - 2026-02-01\n## [1.0.0] - 2026-02-01\n" +
			"## v1.1.0 (2026-03-01)\n## [2.0.0] - 2026-01-01\n" + links,
		want: []string{
			"line 4: version 1.0.0 (2026-02-01) is newer than the one above it (2026-01-01): newest first",
			"line 5: version 1.0.0 appears twice",
			`line 6: "## v1.1.0 (2026-03-01)" is not "## [Unreleased]" nor "## [X.Y.Z] - YYYY-MM-DD"`,
			"line 12: no link definition [2.0.0]: URL at the end of the file",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, changelogProblems(tt.text)); diff != "" {
				t.Errorf("changelogProblems (-want +got):\n%s", diff)
			}
		})
	}
}
