package main

import (
	"testing"

	"github.com/daemonplan/daemonplan/examples/controller/internal/app"
)

// TestMainExitCodes covers the command's exit codes for the arguments that
// stop it before it contacts a cluster; the flags themselves are tested in
// internal/app.
func TestMainExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{name: "help", args: []string{"--help"}, want: 0},
		{name: "version", args: []string{"--version"}, want: 0},
		{name: "unknown flag", args: []string{"--nope"}, want: 2},
		{name: "bad mode", args: []string{"--mode", "beside"}, want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := app.Main(tt.args); got != tt.want {
				t.Errorf("Main(%q) = %d, want %d", tt.args, got, tt.want)
			}
		})
	}
}
