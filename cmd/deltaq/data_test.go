package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestADataDirectoryThatIsASymlinkLoopIsNamed: a --data that is a
// symbolic link loop is refused as one by every kind of command, those
// that make a data directory and those that read one, where the first
// said "mkdir: file exists"; and the link is left as it was.
func TestADataDirectoryThatIsASymlinkLoopIsNamed(t *testing.T) {
	loop := filepath.Join(t.TempDir(), "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"crawl", "--seeds", "http://fruit.test/"},
		{"run", "--listen", "127.0.0.1:0"},
		{"hosts"},
		{"index", "rebuild"},
		{"serve", "--listen", "127.0.0.1:0"},
		{"backup", filepath.Join(t.TempDir(), "b")},
		{"watch", "key", "ada"},
	} {
		_, _, err := run(t, append(args, "--data", loop)...)
		if want := "--data " + loop + ": is a symbolic link loop"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("deltaq %s: %v, want it to say %q", strings.Join(args, " "), err, want)
		}
	}
	if target, err := os.Readlink(loop); err != nil || target != "loop" {
		t.Errorf("the link after the refusals: %q, %v; want it left as it was", target, err)
	}
}

// TestARepositoryOrIndexThatIsASymlinkLoopIsNamed: in a data directory, a
// repo or index that is a symbolic link loop is named as one, by the
// commands that make them and those that read them, and left as it was.
func TestARepositoryOrIndexThatIsASymlinkLoopIsNamed(t *testing.T) {
	for _, sub := range []string{"repo", "index"} {
		data := t.TempDir()
		loop := filepath.Join(data, sub)
		if err := os.Symlink(sub, loop); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"crawl", "--seeds", "http://fruit.test/"},
			{"hosts"},
			{"index", "rebuild"},
			{"serve", "--listen", "127.0.0.1:0"},
		} {
			_, _, err := run(t, append(args, "--data", data)...)
			if want := loop + " is a symbolic link loop"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: deltaq %s: %v, want it to say %q", sub, strings.Join(args, " "), err, want)
			}
		}
		if target, err := os.Readlink(loop); err != nil || target != sub {
			t.Errorf("%s after the refusals: %q, %v; want it left as it was", sub, target, err)
		}
	}
}
