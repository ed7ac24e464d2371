// Command krew renders kubectl dsplan's krew plugin manifest (the
// krew-release-bot template dsplan.yaml beside it) for a version and the
// release archives on this machine, each with its sha256, so that the
// plugin installs through krew before (or without) a release:
//
//	go -C examples/dsplan/krew run . --version v0.1.0 --archives ../../../dist --out ../../../dist/dsplan.yaml
//	kubectl krew install --manifest=dist/dsplan.yaml --archive=dist/kubectl-dsplan_v0.1.0_linux_amd64.tar.gz
//
// --archives is a directory holding the archives GoReleaser names
// (kubectl-dsplan_VERSION_OS_ARCH.tar.gz, .zip on windows), such as
// goreleaser release --snapshot's dist/; a platform whose archive is
// missing is an error unless --allow-missing drops it from the manifest.
//
// The tests render the template with placeholder checksums and validate the
// result with krew's own validate-krew-manifest (sigs.k8s.io/krew v0.4.3,
// a tool of this module: go tool validate-krew-manifest), the check the
// krew-index repository runs, and check it against .goreleaser.yaml.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("krew", flag.ContinueOnError)
	fs.SetOutput(stderr)
	tmpl := fs.String("template", "dsplan.yaml", "the krew-release-bot template")
	version := fs.String("version", "", "the release's tag, such as v0.1.0 (required)")
	archives := fs.String("archives", "", "directory of the release archives (required)")
	out := fs.String("out", "", "file to write the manifest to (default: standard output)")
	allowMissing := fs.Bool("allow-missing", false, "leave out the platforms whose archive is missing")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *version == "" || *archives == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "krew: give --version and --archives, and no arguments")
		return 2
	}
	text, err := os.ReadFile(*tmpl)
	if err != nil {
		fmt.Fprintln(stderr, "krew:", err)
		return 1
	}
	manifest, err := render(string(text), *version, func(uri string) (string, error) {
		return fileSHA256(filepath.Join(*archives, path.Base(uri)))
	}, *allowMissing)
	if err != nil {
		fmt.Fprintln(stderr, "krew:", err)
		return 1
	}
	if *out == "" {
		_, err = stdout.Write(manifest)
	} else {
		err = os.WriteFile(*out, manifest, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, "krew:", err)
		return 1
	}
	return 0
}

// fileSHA256 is the hex sha256 of the file at name.
func fileSHA256(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
