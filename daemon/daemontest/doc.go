// Package daemontest helps test code that plans DaemonSets: builders that
// keep test fixtures short and readable. Like net/http/httptest, it is meant
// for tests, but it is an ordinary package: its builders are deterministic
// and perform no I/O.
package daemontest
