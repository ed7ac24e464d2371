package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"sort"
	"strconv"
	"strings"
)

// auditEvent is the part of an audit log line the tests read.
type auditEvent struct {
	Stage string `json:"stage"`
	Verb  string `json:"verb"`
	User  struct {
		Username string `json:"username"`
	} `json:"user"`
	ResponseStatus struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
	ObjectRef struct {
		Resource    string `json:"resource"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
}

// writes counts the API writes the DaemonSet controller made, by
// "verb resource[/subresource]" with the response code appended when the
// write was rejected, from the API server's audit log.
func (c *cluster) writes() map[string]int {
	c.t.Helper()
	f, err := os.Open(c.auditLog)
	if err != nil {
		c.t.Fatalf("audit log: %v", err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev auditEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			c.t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		if ev.Stage != "ResponseComplete" || ev.User.Username != controllerUser {
			continue
		}
		if ev.ObjectRef.Resource == "tokenreviews" || ev.ObjectRef.Resource == "subjectaccessreviews" {
			// kube-controller-manager checking who reads its /metrics
			// (TestScale scrapes it), not a write of the DaemonSet
			// controller.
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		key := ev.Verb + " " + res
		if c := ev.ResponseStatus.Code; c >= 300 {
			// Rejected writes (conflicts, not found) are counted apart.
			key += " (" + strconv.Itoa(c) + ")"
		}
		out[key]++
	}
	if err := sc.Err(); err != nil {
		c.t.Fatalf("audit log: %v", err)
	}
	return out
}

func total(w map[string]int) int {
	n := 0
	for _, v := range w {
		n += v
	}
	return n
}

// summary renders the write counts compactly, e.g. "create pods 6, update daemonsets/status 4".
func summary(w map[string]int) string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + strconv.Itoa(w[k])
	}
	return strings.Join(parts, ", ")
}
