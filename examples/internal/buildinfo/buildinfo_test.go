package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOf(t *testing.T) {
	const rev = "3f69806a1b2c3d4e5f60718293a4b5c6d7e8f901"
	workTree := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-11-25T13:00:00Z"},
		{Key: "vcs.modified", Value: "true"}}}
	tests := []struct {
		name  string
		bi    *debug.BuildInfo
		stamp Stamp
		want  Info
		line  string
	}{
		{
			name: "no build information",
			want: Info{Version: "(unknown)"},
			line: "dsplan (unknown)",
		},
		{
			name: "go run: no version, no VCS stamp",
			bi:   &debug.BuildInfo{},
			want: Info{Version: "(devel)"},
			line: "dsplan (devel)",
		},
		{
			name: "a module version (go install PKG@v0.4.0)",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}},
			want: Info{Version: "v0.4.0"},
			line: "dsplan v0.4.0",
		},
		{
			name: "a work tree with uncommitted changes",
			bi:   workTree,
			want: Info{Version: "(devel)", Revision: rev, Date: "2026-11-25T13:00:00Z", Modified: true},
			line: "dsplan (devel) (commit 3f69806a1b2c, 2026-11-25T13:00:00Z, modified)",
		},
		{
			name:  "a release: the stamp wins, GoReleaser's version gets its v",
			bi:    workTree,
			stamp: Stamp{Version: "0.1.0", Commit: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z"},
			want:  Info{Version: "v0.1.0", Revision: "0123456789abcdef0123456789abcdef01234567", Date: "2026-12-01T10:00:00Z"},
			line:  "dsplan v0.1.0 (commit 0123456789ab, 2026-12-01T10:00:00Z)",
		},
		{
			name:  "only the version stamped: commit and time from the toolchain",
			bi:    workTree,
			stamp: Stamp{Version: "v0.2.0-rc.1"},
			want:  Info{Version: "v0.2.0-rc.1", Revision: rev, Date: "2026-11-25T13:00:00Z", Modified: true},
			line:  "dsplan v0.2.0-rc.1 (commit 3f69806a1b2c, 2026-11-25T13:00:00Z, modified)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.GoVersion = runtime.Version()
			tt.want.Platform = runtime.GOOS + "/" + runtime.GOARCH
			got := Of(tt.bi, tt.stamp)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Of() mismatch (-want +got):\n%s", diff)
			}
			wantLine := tt.line + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
			if diff := cmp.Diff(wantLine, got.Line("dsplan")); diff != "" {
				t.Errorf("Line() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOfDoesNotModifyItsInput(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}
	_ = Of(bi, Stamp{Version: "1.0.0", Commit: "def"})
	want := &debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}
	if diff := cmp.Diff(want, bi); diff != "" {
		t.Errorf("Of modified its build information (-want +got):\n%s", diff)
	}
}
