package nearest

// Distance is the Levenshtein distance of a and b (insertions, deletions
// and substitutions of bytes), or limit+1 when it exceeds limit; limit
// bounds the work for long inputs.
func Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit+1)
}

// Closest returns the word of words nearest to w within limit edits (the
// first of equally near ones), and false when none is.
func Closest(w string, words []string, limit int) (string, bool) {
	best, bestD := "", limit+1
	for _, c := range words {
		if d := Distance(w, c, limit); d < bestD {
			best, bestD = c, d
		}
	}
	return best, bestD <= limit
}
