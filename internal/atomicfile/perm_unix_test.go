//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPermissions writes new files under two umasks and replaces files of
// several modes: a new file gets 0666 less the umask, as os.Create gives,
// and a replaced file keeps its mode. Write used to make every file 0644,
// readable by all under umask 077 and over a 0600 file.
func TestPermissions(t *testing.T) {
	for _, c := range []struct {
		name   string
		umask  int
		before fs.FileMode // 0: no file before
		want   fs.FileMode
	}{
		{"new under umask 022", 0o022, 0, 0o644},
		{"new under umask 077", 0o077, 0, 0o600},
		{"replacing 0600", 0o022, 0o600, 0o600},
		{"replacing 0664 under umask 022", 0o022, 0o664, 0o664},
		{"replacing 0640 under umask 077", 0o077, 0o640, 0o640},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f.txt")
			if c.before != 0 {
				if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(p, c.before); err != nil {
					t.Fatal(err)
				}
			}
			old := syscall.Umask(c.umask)
			err := WriteBytes(p, []byte("new"))
			syscall.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != c.want {
				t.Errorf("mode = %#o, want %#o", got, c.want)
			}
		})
	}
}
