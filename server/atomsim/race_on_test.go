//go:build race

package atomsim

// raceDetector: the test binary runs with -race (about 10× slower).
const raceDetector = true
