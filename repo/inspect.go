package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// DirState is what a repository directory holds.
type DirState int

const (
	DirAbsent   DirState = iota // no such directory
	DirEmpty                    // an empty directory
	DirPartial                  // files, but no database: a copy or a backup cut short
	DirComplete                 // a database
)

// Inspect looks at the repository directory dir without changing it, as
// Open would not: Open makes a new, empty database among whatever files a
// directory holds. Pebble makes a database whole by placing its MANIFEST
// marker last (a checkpoint writes OPTIONS first), so a directory with
// files and no marker was never finished.
func Inspect(dir string) (DirState, error) {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return DirAbsent, nil
	case err != nil:
		return 0, fmt.Errorf("repo: inspect %s: %w", dir, err)
	case len(entries) == 0:
		return DirEmpty, nil
	}
	desc, err := pebble.Peek(dir, vfs.Default)
	if err != nil {
		return 0, fmt.Errorf("repo: inspect %s: %w", dir, err)
	}
	if !desc.Exists {
		// Pebble takes its lock before it writes the MANIFEST: a process
		// making the repository right now leaves, for a moment, what a
		// copy cut short leaves, and it is no copy to remove.
		if heldElsewhere(dir) {
			return 0, inUse(dir)
		}
		return DirPartial, nil
	}
	return DirComplete, nil
}
