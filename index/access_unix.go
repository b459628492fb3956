//go:build unix

package index

import (
	"errors"
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// accessProblem returns the first file or directory under dir that this
// process may not read and write (and search, for a directory), as an
// error wrapping fs.ErrPermission; nil if it may use them all. Bleve
// reports index metadata it may not open as missing and a segment it may
// not open as unreadable, so without this an index owned by another user
// would be called damaged, and a rebuild offered for what a change of
// owner or mode mends.
func accessProblem(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return err
			}
			return nil // not ours to report: the open's own error stands
		}
		mode := uint32(unix.R_OK | unix.W_OK)
		if d.IsDir() {
			mode |= unix.X_OK
		}
		// Only a refusal is ours to name: a symbolic link loop, say, is
		// not mended by a change of owner or mode.
		if err := unix.Access(path, mode); errors.Is(err, fs.ErrPermission) {
			return &fs.PathError{Op: "access", Path: path, Err: err}
		}
		return nil
	})
}
