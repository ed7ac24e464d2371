package snapshot

import (
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/fastread"
	"github.com/daemonplan/daemonplan/examples/dsplan/internal/snapshot/internal/share"
)

// The fast path (internal/fastread) reads the files kubectl writes item by
// item; objectDecoder decodes what it cuts by the general path's rules, so
// that the two read the same objects (FuzzFastDecode).

// fastDecode reads the objects of in the fast way. ok is false when the
// general path must read it instead; err is a read error.
func fastDecode(in fastread.Input) (objs []object, ok bool, err error) {
	return fastread.Read[object](in, objectDecoder{})
}

// objectDecoder is the general path's decoding, for the fast path.
type objectDecoder struct{}

// Document decodes a YAML document as addWhole does.
func (objectDecoder) Document(yaml []byte) ([]object, error) { return decodeDoc(yaml, false) }

// Object decodes a JSON object or a List's item as addWhole does.
func (objectDecoder) Object(js []byte, version, kind string) ([]object, error) {
	return decodeObject(js, version, kind)
}

// ListHeader is listHeader.
func (objectDecoder) ListHeader(header []byte) (version, itemKind string, ok bool, err error) {
	return listHeader(header)
}

// Worker decodes items of a known kind, each worker's pods and nodes
// sharing the strings of the like one it decoded before (see share.Sharer:
// a large snapshot takes a sixth less memory).
func (objectDecoder) Worker() func(js []byte, apiVersion, kind string) (object, error) {
	s := share.New()
	return func(js []byte, apiVersion, kind string) (object, error) {
		o, err := decodeKind(js, typeMeta{APIVersion: apiVersion, Kind: kind})
		switch {
		case err != nil:
		case o.pod != nil:
			s.Pod(o.pod)
		case o.node != nil:
			s.Node(o.node)
		}
		return o, err
	}
}
