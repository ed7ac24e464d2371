package cli

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// A program with its own origin of objects, here a Snapshot built in
// memory, runs dsplan on them through Options.Source.
func ExampleRun() {
	src := func(f Flags) (Input, error) {
		return Input{Snapshot: exampleCluster(), Sources: []string{"memory"}}, nil
	}
	var out bytes.Buffer
	code := Run([]string{"plan"}, nil, &out, os.Stderr, Options{Source: src})
	first, _, _ := strings.Cut(out.String(), "\n")
	fmt.Println(code, first)
	// Output:
	// 0 input: memory: 3 DaemonSets, 11 nodes, 21 pods, 3 revisions
}
