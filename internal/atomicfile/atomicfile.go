// Package atomicfile writes files so that a reader sees either the old
// content or the new, never a torn mix: the bytes go to a temporary file in
// the same directory, which is synced and then renamed into place.
//
//	err := atomicfile.Write("out/report.md", func(w io.Writer) error {
//		_, err := io.WriteString(w, report)
//		return err
//	})
//
// A process killed while writing leaves its temporary file behind; the next
// Write to the same path removes it.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Write creates or replaces path with what fill writes. On any error the
// previous file, if there was one, is left untouched. A new file gets the
// permissions os.Create gives (0666 less the umask); a replaced file keeps
// its own.
func Write(path string, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	perm, keep := fs.FileMode(0o666), false
	if fi, err := os.Stat(path); err == nil {
		perm, keep = fi.Mode().Perm(), true
	}
	tmp, err := createTemp(dir, base, perm)
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if keep {
		// The umask narrowed perm when the file was created; the replaced
		// file's bits are what its owner chose.
		if err = tmp.Chmod(perm); err != nil {
			return fmt.Errorf("atomicfile: chmod %s: %w", path, err)
		}
	}
	bw := bufio.NewWriter(tmp)
	if err = fill(bw); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("atomicfile: rename into %s: %w", path, err)
	}
	return nil
}

// WriteBytes is Write for content already in memory.
func WriteBytes(path string, b []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// tempPrefix starts the names of base's temporary files:
// ".BASE.tmp-PID-RANDOM", hidden, and naming the process that writes them.
func tempPrefix(base string) string { return "." + base + ".tmp-" }

// createTemp creates a new temporary file for base in dir with perm, which
// the umask narrows as for any new file (os.CreateTemp would give 0600).
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	prefix := tempPrefix(base) + strconv.Itoa(os.Getpid()) + "-"
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file for %s in %s: 100 names taken", base, dir)
}

// removeStale removes the temporary files of base in dir whose writing
// process no longer runs: a Write killed before its rename. Those of a
// live process, or whose process cannot be told, are left alone. It is
// best effort: a temporary it cannot remove costs space, not the write.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue // not a name this package gives
		}
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || processRuns(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// processRuns reports whether a process with this id may still run: false
// only when the system says it does not.
func processRuns(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return !errors.Is(err, os.ErrProcessDone) && !errors.Is(err, syscall.ESRCH)
	}
	defer p.Release()
	return !errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
