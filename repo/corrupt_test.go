package repo

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedTableFailsTheReadNotTheProcess: a table whose bytes were
// overwritten on disk fails the reads that reach it, with an error, and
// the damage is logged naming the file; Pebble's default would end the
// process (and this test with it).
func TestDamagedTableFailsTheReadNotTheProcess(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, testConfig(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	value := bytes.Repeat([]byte("stored before the damage "), 400)
	commit(t, db, func(b *Batch) error {
		for i := range 50 {
			if err := b.PutBucket("test", fmt.Sprintf("k%03d", i), value); err != nil {
				return err
			}
		}
		return nil
	})
	if err := db.pdb.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no table written")
	}
	for _, path := range tables {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		// Past the first block's start, before the footer: data blocks.
		if _, err := f.WriteAt(bytes.Repeat([]byte{0xA5}, 4096), 1024); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	var log bytes.Buffer
	db, err = Open(dir, testConfig(), Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("open after the damage: %v", err)
	}
	defer db.Close()
	var failed error
	for i := range 50 {
		if _, err := db.Bucket("test", fmt.Sprintf("k%03d", i)); err != nil && !errors.Is(err, ErrNotFound) {
			failed = err
			break
		}
	}
	if failed == nil {
		t.Fatal("every read of the damaged table succeeded")
	}
	if !strings.Contains(log.String(), "repository damaged") || !strings.Contains(log.String(), ".sst") {
		t.Errorf("log:\n%s\nwant the damage named with its file", log.String())
	}
}

// TestOpenOfADamagedRepositoryNamesTheRemedy: a repository whose MANIFEST
// is cut short or whose table is cut short or gone does not open, and the error names
// the directory and says how to get the data back: a backup used as
// --data, or a new repository.
func TestOpenOfADamagedRepositoryNamesTheRemedy(t *testing.T) {
	for name, damage := range map[string]func(t *testing.T, dir string){
		"a MANIFEST cut short": func(t *testing.T, dir string) {
			manifests, _ := filepath.Glob(filepath.Join(dir, "MANIFEST-*"))
			for _, m := range manifests {
				if err := os.Truncate(m, 10); err != nil {
					t.Fatal(err)
				}
			}
		},
		"a table cut short": func(t *testing.T, dir string) {
			tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			if len(tables) == 0 {
				t.Fatal("no table written")
			}
			for _, tb := range tables {
				if err := os.Truncate(tb, 100); err != nil {
					t.Fatal(err)
				}
			}
		},
		"a table missing": func(t *testing.T, dir string) {
			tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			if len(tables) == 0 {
				t.Fatal("no table written")
			}
			for _, tb := range tables {
				if err := os.Remove(tb); err != nil {
					t.Fatal(err)
				}
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			db, err := Open(dir, testConfig(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			commit(t, db, func(b *Batch) error { return b.PutBucket("test", "k", []byte("v")) })
			if err := db.pdb.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			damage(t, dir)
			db, err = Open(dir, testConfig(), Options{})
			if err == nil {
				db.Close()
				t.Fatal("Open of the damaged repository succeeded")
			}
			t.Log(err)
			for _, want := range []string{"repo: open " + dir + ": ", "the repository is damaged", "deltaq backup", "as --data", "move " + dir + " aside"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Open = %v, want it to say %q", err, want)
				}
			}
		})
	}
}
