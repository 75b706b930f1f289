//go:build race

package atompool

// raceDetector: the test binary runs with -race (about 10× slower).
const raceDetector = true
