package web

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBackupOnTheAdminListenerOnly asks for backups: the admin listener
// takes an absolute new directory and passes it on; a relative, existing,
// too long or unmakable one is answered 400 naming dir and the limit; a
// backup that fails once begun, 500; the public listener has no such
// route.
func TestBackupOnTheAdminListenerOnly(t *testing.T) {
	existing := t.TempDir()
	var asked []string
	backup := func(_ context.Context, dir string) error {
		asked = append(asked, dir)
		switch dir {
		case existing:
			return fmt.Errorf("backup %s: %w", dir, fs.ErrExist)
		case "/full":
			return fmt.Errorf("backup %s: write %s/repo/000002.sst: no space left on device", dir, dir)
		case "/afile/sub":
			return fmt.Errorf("backup %s: cannot make it: mkdir /afile: not a directory: %w", dir, fs.ErrInvalid)
		case "/data/index/bk":
			return fmt.Errorf("backup %s: inside the data directory /data: %w", dir, fs.ErrInvalid)
		}
		return nil
	}
	public, admin := withAdmin(t, Deps{Backup: backup})
	post := func(srv *httptest.Server, body string) (int, string) {
		t.Helper()
		return send(t, srv, http.MethodPost, "/api/v1/backup", body)
	}
	fresh := filepath.Join(existing, "new")
	if code, b := post(admin, `{"dir": "`+fresh+`/"}`); code != http.StatusCreated || !strings.Contains(b, `"dir":"`+fresh+`"`) {
		t.Errorf("backup to %s: %d %s, want 201 naming it", fresh, code, b)
	}
	for body, want := range map[string]string{
		`{"dir": "relative/dir"}`:                          `"field":"dir","value":"relative/dir"`,
		`{"dir": "` + existing + `"}`:                      `"field":"dir","value":"` + existing + `"`,
		`{"dir": "/x", "every": "1h"}`:                     `every`,
		`{"dir": ""}`:                                      `"field":"dir"`,
		`{"dir": "/tmp/a\u0000b"}`:                         `"field":"dir","value":"/tmp/a\u0000b","limit":"a path without NUL bytes"`,
		`{"dir": "/data/index/bk"}`:                        `"limit":"a new directory the server can make, outside its data directory","message":"backup /data/index/bk: inside the data directory /data`,
		`{"dir": "/afile/sub"}`:                            `"limit":"a new directory the server can make, outside its data directory","message":"backup /afile/sub: cannot make it: mkdir /afile: not a directory`,
		`{"dir": "/` + strings.Repeat("d/", 2100) + `"}`:   `"limit":"at most 4096 bytes","message":"dir is 4200 bytes long`,
		`{"dir": "/tmp/` + strings.Repeat("n", 256) + `"}`: `"limit":"names of at most 255 bytes between slashes","message":"dir names a 256-byte file name`,
	} {
		if code, b := post(admin, body); code != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("POST %s: %d %s, want 400 with %s", body, code, b, want)
		}
	}
	if code, b := post(admin, `{"dir": "/full"}`); code != http.StatusInternalServerError || !strings.Contains(b, "no space left on device") {
		t.Errorf("a backup that fails once begun: %d %s, want 500 saying why", code, b)
	}
	if code, b := post(public, `{"dir": "`+fresh+`"}`); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
		t.Errorf("backup on the public listener: %d %s, want no such route", code, b)
	}
	// The NUL and the lengths are refused before the backup is asked for.
	if len(asked) != 5 || asked[0] != fresh || !slices.Contains(asked, existing) || !slices.Contains(asked, "/data/index/bk") ||
		!slices.Contains(asked, "/afile/sub") || asked[4] != "/full" {
		t.Errorf("backups asked for %q, want %s, %s, /data/index/bk and /afile/sub, then /full", asked, fresh, existing)
	}
}
