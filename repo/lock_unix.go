//go:build unix

package repo

import (
	"errors"
	"syscall"
)

// lockedElsewhere reports whether err is Pebble's directory lock held by
// another process: flock's EWOULDBLOCK. (Within one process Pebble says so
// itself: "lock held by current process".)
func lockedElsewhere(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }
