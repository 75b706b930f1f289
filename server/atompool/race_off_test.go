//go:build !race

package atompool

const raceDetector = false
