// Package parallel is the snapshot package's speed code for CPU: ForEach runs
// a loop's independent iterations on up to GOMAXPROCS goroutines, its
// outcome the same as the loop's. It decides nothing and performs no I/O.
package parallel
