package apply

import (
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// pullPolicy is the imagePullPolicy the API server gives a container (or
// an image volume) without one: Always when image is tagged "latest" or
// has neither tag nor digest, IfNotPresent otherwise. An image that is
// not a valid reference (upstream's parse fails and it goes on without a
// tag) gets IfNotPresent.
func pullPolicy(image string) corev1.PullPolicy {
	tag, digest, ok := parseImage(image)
	if ok && (tag == "latest" || tag == "" && digest == "") {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// The grammar of an image reference, as the container registries define
// it: [domain[:port]/]path[:tag][@digest], path components lowercase.
var (
	refAlnum      = `[a-z0-9]+`
	refSeparator  = `(?:[._]|__|[-]+)`
	refComponent  = refAlnum + `(?:` + refSeparator + refAlnum + `)*`
	refPath       = refComponent + `(?:/` + refComponent + `)*`
	refDomainPart = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refHost       = `(?:` + refDomainPart + `(?:\.` + refDomainPart + `)*|\[[a-fA-F0-9:]+\])`
	refDomain     = refHost + `(?::[0-9]+)?`
	refTag        = `[\w][\w.-]{0,127}`
	refDigest     = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`

	referenceRE = regexp.MustCompile(`^((?:` + refDomain + `/)?` + refPath + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	nameRE      = regexp.MustCompile(`^(?:(` + refDomain + `)/)?(` + refPath + `)$`)
	hex64RE     = regexp.MustCompile(`^[a-f0-9]{64}$`)
)

// digestLengths are the digest algorithms a reference may name, with the
// length of their lowercase hex encoding.
var digestLengths = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}

// parseImage returns the tag and digest of an image reference, and false
// when it does not parse. A name without a domain is on Docker Hub
// ("nginx" is docker.io/library/nginx); the repository path must be
// lowercase and at most 255 characters; a digest must be a sha256, sha384
// or sha512 one with its full lowercase hex.
func parseImage(image string) (tag, digest string, ok bool) {
	if hex64RE.MatchString(image) {
		return "", "", false // an image ID, not a name
	}
	domain, rest := splitDomain(image)
	remote, _, _ := strings.Cut(rest, ":")
	if strings.ToLower(remote) != remote {
		return "", "", false
	}
	m := referenceRE.FindStringSubmatch(domain + "/" + rest)
	if m == nil {
		return "", "", false
	}
	path := m[1]
	if n := nameRE.FindStringSubmatch(m[1]); n != nil {
		path = n[2]
	}
	if len(path) > 255 {
		return "", "", false
	}
	if d := m[3]; d != "" {
		alg, hex, _ := strings.Cut(d, ":")
		if n, known := digestLengths[alg]; !known || len(hex) != n || strings.ToLower(hex) != hex {
			return "", "", false
		}
	}
	return m[2], m[3], true
}

// splitDomain splits off the registry of an image reference the way
// container runtimes do: the first path element is a domain when it is
// "localhost", contains a "." or ":", or has an uppercase letter;
// otherwise the image is on Docker Hub, under library/ when it has no
// path of its own.
func splitDomain(image string) (domain, rest string) {
	first, after, found := strings.Cut(image, "/")
	switch {
	case !found:
		return "docker.io", "library/" + image
	case first == "localhost":
		return first, after
	case first == "index.docker.io":
		domain, rest = "docker.io", after
	case strings.ContainsAny(first, ".:") || strings.ToLower(first) != first:
		domain, rest = first, after
	default:
		domain, rest = "docker.io", image
	}
	if domain == "docker.io" && !strings.Contains(rest, "/") {
		rest = "library/" + rest
	}
	return domain, rest
}
