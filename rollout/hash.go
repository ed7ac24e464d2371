package rollout

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// ComputeHash returns the controller-revision-hash of a pod template, byte
// for byte the value kube-controller-manager computes: the FNV-32a hash of
// the k8s.io/utils/dump.ForHash rendering of *template, followed, when
// collisionCount is non-nil, by the collision count as 8 little-endian bytes
// (the low 4 holding the value), printed in decimal and encoded with
// apimachinery's rand.SafeEncodeString. A nil template hashes as the zero
// template. It modifies nothing.
//
// The result is 1 to 10 characters from "456789bcdf" (the images of the
// decimal digits). Its cost is dominated by the reflection-based rendering
// of the template, which is proportional to the template's size.
func ComputeHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	var value corev1.PodTemplateSpec
	if template != nil {
		value = *template
	}
	h := fnv.New32a()
	// The value, not the pointer, is rendered: the rendering starts with the
	// value's type name, exactly as upstream's DeepHashObject(*template).
	_, _ = io.WriteString(h, dump.ForHash(value))
	if collisionCount != nil {
		var b [8]byte
		binary.LittleEndian.PutUint32(b[:4], uint32(*collisionCount))
		_, _ = h.Write(b[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(h.Sum32()), 10))
}
