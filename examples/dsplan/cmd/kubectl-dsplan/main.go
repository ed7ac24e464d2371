// Command kubectl-dsplan is the live dsplan (see examples/dsplan/live)
// under the name kubectl looks for on the PATH, so that it runs as a
// kubectl plugin: kubectl dsplan plan, kubectl dsplan explain NODE,
// kubectl dsplan simulate --daemonset NS/NAME --image IMAGE, kubectl dsplan
// dump. Install it from a clone (the live module replaces the root module
// with ../../.., which go install PKG@VERSION does not allow):
//
//	cd examples/dsplan/live && go install ./cmd/kubectl-dsplan
package main

import (
	"os"

	"github.com/daemonplan/daemonplan/examples/dsplan/live/livecmd"
)

func main() {
	os.Exit(livecmd.Main())
}
