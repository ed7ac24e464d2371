package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/template"
)

// render is the manifest for tag from the krew-release-bot template text:
// {{ .TagName }} is tag, and {{ addURIAndSha URI TAG }} the platform's
// "uri:" and "sha256:" lines, as the bot writes them, with the checksum
// sha(uri) gives. With allowMissing, a platform whose archive does not
// exist (sha's error is fs.ErrNotExist) is left out.
func render(text, tag string, sha func(uri string) (string, error), allowMissing bool) ([]byte, error) {
	const missing = "\x00missing\x00"
	funcs := template.FuncMap{
		"addURIAndSha": func(uri, tag string) (string, error) {
			u, err := renderString(uri, tag)
			if err != nil {
				return "", err
			}
			sum, err := sha(u)
			if allowMissing && errors.Is(err, fs.ErrNotExist) {
				return missing, nil
			}
			if err != nil {
				return "", fmt.Errorf("sha256 of %s: %w", u, err)
			}
			// The bot's indentation: a platform's keys at four spaces.
			return "uri: " + u + "\n    sha256: " + sum, nil
		},
	}
	t, err := template.New("manifest").Funcs(funcs).Parse(text)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, map[string]string{"TagName": tag}); err != nil {
		return nil, err
	}
	if !strings.Contains(buf.String(), missing) {
		return buf.Bytes(), nil
	}
	return dropPlatforms(buf.String(), missing)
}

// renderString renders the template in s (a URI) for tag.
func renderString(s, tag string) (string, error) {
	t, err := template.New("uri").Parse(s)
	if err != nil {
		return "", err
	}
	var buf strings.Builder
	if err := t.Execute(&buf, map[string]string{"TagName": tag}); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// dropPlatforms removes the platform entries ("  - selector:" and the
// lines under it) that hold the marker.
func dropPlatforms(manifest, marker string) ([]byte, error) {
	lines := strings.SplitAfter(manifest, "\n")
	var out, entry []string
	inEntry, kept := false, 0
	flush := func() {
		if inEntry && !strings.Contains(strings.Join(entry, ""), marker) {
			out = append(out, entry...)
			kept++
		}
		entry = nil
	}
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "  - "):
			flush()
			inEntry = true
			entry = append(entry, l)
		case inEntry && strings.HasPrefix(l, "    "):
			entry = append(entry, l)
		default:
			flush()
			inEntry = false
			out = append(out, l)
		}
	}
	flush()
	if kept == 0 {
		return nil, errors.New("no archive found for any platform")
	}
	return []byte(strings.Join(out, "")), nil
}
