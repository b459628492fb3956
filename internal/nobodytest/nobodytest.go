//go:build unix

// Package nobodytest runs part of a test as user nobody, for the tests of
// permission problems: root may read and write any file, so a test run as
// root meets a refusal only in a child process of another user.
package nobodytest

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// UID is nobody's user and group id.
const UID = 65534

// Own makes every file and directory under root nobody's.
func Own(tb testing.TB, root string) {
	tb.Helper()
	if err := filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, UID, UID)
	}); err != nil {
		tb.Fatal(err)
	}
}

// Run runs the test named test of a copy of the current test binary, put
// in dir, as nobody, with env (NAME=value) added to its environment, and
// returns its output. tb fails if the child fails or runs over a minute.
// dir and the directory above it are made searchable by all, as a
// t.TempDir is not.
func Run(tb testing.TB, dir, test string, env ...string) string {
	tb.Helper()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	src, err := os.ReadFile(os.Args[0])
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(bin, src, 0o755); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^"+test+"$")
	cmd.Env = append(append(os.Environ(), env...), "TMPDIR=/tmp", "HOME=/tmp")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: UID}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	return string(out)
}
