//go:build unix

package repo

import (
	"errors"
	"io"
	"io/fs"
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

// dirAccessProblem returns, as an error wrapping fs.ErrPermission or
// EROFS, that this process may not read, write and search the directory
// dir; nil otherwise, when the open's own error, if any, stands. Pebble
// retries a flush it cannot write without end, so opening a repository
// with an unflushed log in a directory it may not write would hang
// instead of failing.
func dirAccessProblem(dir string) error {
	err := unix.Access(dir, unix.R_OK|unix.W_OK|unix.X_OK)
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, unix.EROFS) {
		return &fs.PathError{Op: "access", Path: dir, Err: err}
	}
	return nil
}
