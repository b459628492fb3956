//go:build !unix

package repo

// lockedElsewhere reports whether err is Pebble's directory lock held by
// another process; only the flock error of Unix systems is recognised.
func lockedElsewhere(error) bool { return false }

// heldElsewhere reports whether another process holds the lock of the
// repository directory dir; only Unix systems are asked.
func heldElsewhere(string) bool { return false }

// dirAccessProblem reports no permission problem: only Unix systems are
// asked.
func dirAccessProblem(string) error { return nil }
