package snapshot

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// NoteReason is why Add read past an object or changed it.
type NoteReason string

const (
	// NoteOtherKind: not one of the four kinds a plan reads (a Service,
	// a ConfigMap, ...); read past.
	NoteOtherKind NoteReason = "OtherKind"
	// NoteOtherVersion: a DaemonSet or ControllerRevision of an API version
	// other than apps/v1 (extensions/v1beta1, apps/v1beta2, ...), or a
	// Node or Pod of one other than v1; read past, as the controller reads
	// apps/v1 only.
	NoteOtherVersion NoteReason = "OtherVersion"
	// NoteReplaced: an object with the same kind, namespace and name as an
	// earlier one, which it replaced (the later one wins, as when two
	// captures overlap).
	NoteReplaced NoteReason = "Replaced"
	// NoteRevisionReescaped: a ControllerRevision whose data escaped
	// strings otherwise than the API server does (as jq writes "<", ">"
	// and "&" where Go writes \u003c, \u003e, \u0026); its data was
	// re-escaped the API server's way, since the controller compares it
	// byte for byte.
	NoteRevisionReescaped NoteReason = "RevisionReescaped"
)

// maxNoteNames is how many objects a Note names.
const maxNoteNames = 3

// Note says what Add read past or changed, and how often: the objects of
// one apiVersion and kind that share a reason.
type Note struct {
	Reason NoteReason
	// What is the objects' "apiVersion kind", as "apps/v1beta2 DaemonSet".
	What string
	// Count is how many objects.
	Count int
	// Names are the first objects, in input order, as "namespace/name"
	// (a name alone when cluster scoped); at most three.
	Names []string
}

// String reads as a sentence: "skipped 2 extensions/v1beta1 DaemonSet
// (kube-system/a, kube-system/b): ...".
func (n Note) String() string {
	names := ""
	if len(n.Names) > 0 {
		names = " (" + strings.Join(n.Names, ", ")
		if n.Count > len(n.Names) {
			names += ", ..."
		}
		names += ")"
	}
	switch n.Reason {
	case NoteOtherKind:
		return fmt.Sprintf("skipped %d %s%s: not a kind a plan reads", n.Count, n.What, names)
	case NoteOtherVersion:
		want := "v1"
		if strings.HasPrefix(n.What, "extensions/") || strings.HasPrefix(n.What, "apps/") {
			want = "apps/v1"
		}
		return fmt.Sprintf("skipped %d %s%s: an old API version; only %s is read, as the controller reads it (get it again with a current kubectl)", n.Count, n.What, names, want)
	case NoteReplaced:
		return fmt.Sprintf("%d %s%s appeared more than once: the later object was kept", n.Count, n.What, names)
	case NoteRevisionReescaped:
		return fmt.Sprintf("re-escaped the data of %d %s%s as the API server writes it (\\u003c, \\u003e, \\u0026; the input was re-encoded, as by jq)", n.Count, n.What, names)
	}
	return fmt.Sprintf("%s: %d %s%s", n.Reason, n.Count, n.What, names)
}

// addNote counts one object under reason and what, keeping s.Notes
// sorted by reason, then what.
func (s *Snapshot) addNote(reason NoteReason, what, name string) {
	i, found := slices.BinarySearchFunc(s.Notes, Note{Reason: reason, What: what}, func(a, b Note) int {
		return cmp.Or(strings.Compare(string(a.Reason), string(b.Reason)), strings.Compare(a.What, b.What))
	})
	if !found {
		s.Notes = slices.Insert(s.Notes, i, Note{Reason: reason, What: what})
	}
	n := &s.Notes[i]
	n.Count++
	if len(n.Names) < maxNoteNames && name != "" {
		n.Names = append(n.Names, name)
	}
}
