package progressive

import (
	"slices"
	"strings"
)

// Approval is what "kubectl dsplan rollout approve" records: the revision
// (its pod-template-hash) and the wave after which the rollout may go on
// (a wave name, as daemon.RolloutPolicy.WaveOf names it, or
// daemon.CanaryWave).
type Approval struct {
	Hash, Wave string
}

// String is the annotation's value: "<hash>/<wave>".
func (a Approval) String() string { return a.Hash + "/" + a.Wave }

// covers reports whether a, given for the revision hash, lets the rollout
// go on after the wave at index point of waves (Judgement.Waves): a names
// hash and that wave or a later one. An approval of another revision
// covers nothing, so that it does not carry over to the next rollout.
func (a *Approval) covers(hash string, waves []Tally, point int) bool {
	if a == nil || a.Hash != hash || hash == "" {
		return false
	}
	k := slices.IndexFunc(waves, func(t Tally) bool { return t.Wave == a.Wave })
	return k >= 0 && k >= point
}

// approvalPoint returns the index in waves (Judgement.Waves) of the latest
// approval point of g that is done: a wave named by PauseAfter whose
// waves up to it are all done; -1 when there is none. The last wave is
// never a point: nothing follows it.
func (g *Gates) approvalPoint(waves []Tally) int {
	point := -1
	for i := 0; i < len(waves)-1; i++ {
		if !waves[i].Done() {
			break
		}
		if g.isPoint(waves[i].Wave) {
			point = i
		}
	}
	return point
}

// isPoint reports whether PauseAfter names the wave called name (a wave
// but the last): "every-wave" names each, "canary" the canary wave, and a
// value v the wave "<order label>=v".
func (g *Gates) isPoint(name string) bool {
	for _, p := range g.PauseAfter {
		switch p {
		case pointEveryWave:
			return true
		case pointCanary:
			if name == pointCanary {
				return true
			}
		default:
			if label, value, ok := strings.Cut(name, "="); ok && label != "" && value == p {
				return true
			}
		}
	}
	return false
}

// Points returns the approval points of g among waves, the wave names of
// a rollout in the order it starts them (Judgement.Waves' names, or
// WavesOf's before it starts): the waves after which the rollout waits
// for an approval, in that order. The last wave is never one: nothing
// follows it. It is the reading Hold applies; a program that approves a
// point ahead of time checks its name against it. It modifies nothing.
func (g *Gates) Points(waves []string) []string {
	var out []string
	for _, w := range waves[:max(0, len(waves)-1)] {
		if g.isPoint(w) {
			out = append(out, w)
		}
	}
	return out
}
