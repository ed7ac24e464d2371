// Package app is the controller command: its flags, the API client, the
// /healthz, /readyz and /metrics server, leader election, --version and
// signal handling around package controller. Main is the whole program;
// the command in examples/controller calls it with os.Args, and the e2e
// harness runs it as a process of its own.
package app
