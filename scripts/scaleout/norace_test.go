//go:build !race

package scaleout

const raceEnabled = false
