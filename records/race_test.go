//go:build race

package records_test

// raceEnabled: the race detector is on, under which sync.Pool drops what
// is put in it at random, so that allocation counts are not the code's.
const raceEnabled = true
