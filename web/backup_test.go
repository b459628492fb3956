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
// takes an absolute new directory and passes it on; a relative or
// existing one is answered 400 naming dir; the public listener has no
// such route.
func TestBackupOnTheAdminListenerOnly(t *testing.T) {
	existing := t.TempDir()
	var asked []string
	backup := func(_ context.Context, dir string) error {
		asked = append(asked, dir)
		switch dir {
		case existing:
			return fmt.Errorf("backup %s: %w", dir, fs.ErrExist)
		case "/unwritable":
			return fmt.Errorf("backup %s: mkdir %s: permission denied", dir, dir)
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
		`{"dir": "relative/dir"}`:      `"field":"dir","value":"relative/dir"`,
		`{"dir": "` + existing + `"}`:  `"field":"dir","value":"` + existing + `"`,
		`{"dir": "/x", "every": "1h"}`: `every`,
		`{"dir": ""}`:                  `"field":"dir"`,
		`{"dir": "/tmp/a\u0000b"}`:     `"field":"dir","value":"/tmp/a\u0000b","limit":"a path without NUL bytes"`,
		`{"dir": "/data/index/bk"}`:    `"limit":"a new directory outside the server's data directory","message":"backup /data/index/bk: inside the data directory /data`,
	} {
		if code, b := post(admin, body); code != http.StatusBadRequest || !strings.Contains(b, want) {
			t.Errorf("POST %s: %d %s, want 400 with %s", body, code, b, want)
		}
	}
	if code, b := post(admin, `{"dir": "/unwritable"}`); code != http.StatusInternalServerError || !strings.Contains(b, "mkdir /unwritable: permission denied") {
		t.Errorf("a backup that fails: %d %s, want 500 saying why", code, b)
	}
	if code, b := post(public, `{"dir": "`+fresh+`"}`); code != http.StatusNotFound && code != http.StatusMethodNotAllowed {
		t.Errorf("backup on the public listener: %d %s, want no such route", code, b)
	}
	// The NUL is refused before the backup is asked for.
	if len(asked) != 4 || asked[0] != fresh || !slices.Contains(asked, existing) || !slices.Contains(asked, "/data/index/bk") || asked[3] != "/unwritable" {
		t.Errorf("backups asked for %q, want %s, %s and /data/index/bk, then /unwritable", asked, fresh, existing)
	}
}
