//go:build !unix

package repo

// lockedElsewhere reports whether err is Pebble's directory lock held by
// another process; only the flock error of Unix systems is recognised.
func lockedElsewhere(error) bool { return false }
