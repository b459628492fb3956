//go:build unix

package repo

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// lockedElsewhere reports whether err is Pebble's directory lock held by
// another process: flock's EWOULDBLOCK. (Within one process Pebble says so
// itself: "lock held by current process".)
func lockedElsewhere(err error) bool { return errors.Is(err, syscall.EWOULDBLOCK) }

// heldElsewhere reports whether another process holds the lock of the
// repository directory dir (Pebble's fcntl lock on dir/LOCK), without
// taking it: F_GETLK reports a conflicting lock and changes none. It is
// asked only of a directory this process has not opened, since closing
// any descriptor of a file drops the process's own fcntl locks on it.
func heldElsewhere(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "LOCK"))
	if err != nil {
		return false
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), unix.F_GETLK, &lk); err != nil {
		return false
	}
	return lk.Type != unix.F_UNLCK
}
