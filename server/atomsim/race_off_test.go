//go:build !race

package atomsim

const raceDetector = false
