package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// hostArch is the architecture --platform defaults to: this machine's, so
// that the image runs here.
func hostArch() string { return runtime.GOARCH }

// stamp is what the image says it is, in its labels and in the binary's
// --version.
type stamp struct {
	version  string // "" when unknown: the binary says (devel)
	revision string // full commit hash; "" when unknown
	created  time.Time
}

// resolveStamp fills what the flags leave open from git in repo and from
// $SOURCE_DATE_EPOCH. Without git (a source archive), the version and the
// revision stay unknown and the creation time is the Unix epoch, so that
// the image still builds and stays reproducible; it says so on stderr.
func resolveStamp(ctx context.Context, o options, repo string, stderr io.Writer) (stamp, error) {
	s := stamp{version: o.version, revision: o.revision, created: o.created}
	if s.created.IsZero() {
		if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch != "" {
			sec, err := strconv.ParseInt(epoch, 10, 64)
			if err != nil {
				return s, fmt.Errorf("$SOURCE_DATE_EPOCH %q is not a number of seconds: %w", epoch, err)
			}
			s.created = time.Unix(sec, 0)
		}
	}
	if s.version != "" && s.revision != "" && !s.created.IsZero() {
		s.created = s.created.UTC()
		return s, nil
	}
	head, err := git(ctx, repo, "rev-parse", "HEAD")
	if err != nil {
		fmt.Fprintf(stderr, "image: no git commit (%v): the image has no revision, version (devel), created 1970-01-01\n", err)
		if s.created.IsZero() {
			s.created = time.Unix(0, 0)
		}
		s.created = s.created.UTC()
		return s, nil
	}
	if s.revision == "" {
		s.revision = head
	}
	commitTime, err := git(ctx, repo, "log", "-1", "--format=%ct", head)
	if err != nil {
		return s, err
	}
	sec, err := strconv.ParseInt(commitTime, 10, 64)
	if err != nil {
		return s, fmt.Errorf("git log: commit time %q: %w", commitTime, err)
	}
	if s.created.IsZero() {
		s.created = time.Unix(sec, 0)
	}
	s.created = s.created.UTC()
	if s.version == "" {
		dirty := ""
		if status, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=no"); err == nil && status != "" {
			dirty = "+dirty"
		}
		if tag, err := git(ctx, repo, "describe", "--tags", "--exact-match", "--match", "v[0-9]*", head); err == nil {
			s.version = tag + dirty
		} else {
			// A Go pseudo-version of the commit: v0.0.0-TIME-HASH.
			s.version = "v0.0.0-" + time.Unix(sec, 0).UTC().Format("20060102150405") + "-" + head[:12] + dirty
		}
	}
	return s, nil
}

// git runs git in dir and returns its output, trimmed.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errOut.String()))
	}
	return strings.TrimSpace(out.String()), nil
}
