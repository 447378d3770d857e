//go:build !race

package logseg_test

// raceEnabled: the race detector is on (see race_test.go).
const raceEnabled = false
