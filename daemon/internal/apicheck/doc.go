// Package apicheck lists a package's exported API one line per name, in
// the manner of the Go project's api/go1.*.txt files: every exported
// constant with its type and value, variable, function, type (each
// exported struct field and interface method on a line of its own) and
// method with its full signature. The listing depends only on what a
// caller of the package can name or call, never on the order of the
// source, so two listings differ exactly when the API does.
//
// Its test keeps an api.txt beside each library package of the module
// (every package outside internal/, examples/ and the nested modules) and
// fails when one differs from the package's API, printing the difference
// and the command that records it:
//
//	go test ./daemon/internal/apicheck -run TestAPI -update
//
// An API change is then a change of a tracked file, visible in review,
// that belongs in CHANGELOG.md. The package performs no I/O: the test
// finds the packages and loads them.
package apicheck
