package cli

import (
	"errors"
	"strings"
	"time"
)

// nodeList is a flag of node names, repeated or comma-separated.
type nodeList []string

func (f *nodeList) String() string { return strings.Join(*f, ",") }
func (f *nodeList) Type() string   { return "nodes" }
func (f *nodeList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			return errors.New("empty node name")
		}
		*f = append(*f, name)
	}
	return nil
}

// durationFlag is a duration flag that knows whether it was set.
type durationFlag struct {
	d   time.Duration
	set bool
}

func (f *durationFlag) String() string { return f.d.String() }
func (f *durationFlag) Type() string   { return "duration" }
func (f *durationFlag) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	f.d, f.set = d, true
	return nil
}
