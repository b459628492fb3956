//go:build race

package main

// raceDetector tells tests whether the binary runs under -race.
const raceDetector = true
