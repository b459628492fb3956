package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"time"
)

// BackupFunc writes a backup of the server's repository and index into
// dir, a new data directory (an absolute path on the server's machine),
// while the server runs. An error wrapping fs.ErrExist means dir is
// there already; one wrapping fs.ErrInvalid, that dir is no place for a
// backup (inside the data directory, or a path the server cannot make:
// a parent that is a file, no permission).
type BackupFunc func(ctx context.Context, dir string) error

// maxBackupBytes bounds a backup request's body.
const maxBackupBytes = 16 << 10

// Bounds of dir: Linux's PATH_MAX and NAME_MAX, checked here so that the
// answer names them rather than the system's "file name too long".
const (
	maxBackupPath    = 4096
	maxBackupElement = 255
)

// backupRoutes adds the backup, served on the admin listener only: it
// writes where the operator says on the server's disk.
//
//	POST /api/v1/backup  {"dir": "/new/dir"}: 201 {"dir", "took_ms"}
func (s *Server) backupRoutes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/backup", s.handleBackup)
}

func (s *Server) handleBackup(w http.ResponseWriter, r *http.Request) {
	var q struct {
		Dir string `json:"dir"`
	}
	if !decodeJSONBody(w, r, &q, maxBackupBytes, "a backup request") {
		return
	}
	if strings.IndexByte(q.Dir, 0) >= 0 {
		writeInputError(w, &InputError{Field: "dir", Value: q.Dir, Limit: "a path without NUL bytes", Message: "dir holds a NUL byte, which no path on the server's machine can"})
		return
	}
	if !filepath.IsAbs(q.Dir) {
		writeInputError(w, &InputError{Field: "dir", Value: q.Dir, Limit: "an absolute path on the server's machine",
			Message: "dir must be an absolute path: the server's working directory is not the client's"})
		return
	}
	dir := filepath.Clean(q.Dir)
	if len(dir) > maxBackupPath {
		writeInputError(w, &InputError{Field: "dir", Value: dir, Limit: fmt.Sprintf("at most %d bytes", maxBackupPath),
			Message: fmt.Sprintf("dir is %d bytes long, longer than a path may be", len(dir))})
		return
	}
	for _, name := range strings.Split(dir, string(filepath.Separator)) {
		if len(name) > maxBackupElement {
			writeInputError(w, &InputError{Field: "dir", Value: dir, Limit: fmt.Sprintf("names of at most %d bytes between slashes", maxBackupElement),
				Message: fmt.Sprintf("dir names a %d-byte file name, longer than one may be", len(name))})
			return
		}
	}
	start := time.Now()
	err := s.deps.Backup(r.Context(), dir)
	if errors.Is(err, fs.ErrExist) {
		writeInputError(w, &InputError{Field: "dir", Value: dir, Limit: "a directory that does not exist yet", Message: "dir exists; give a new directory"})
		return
	}
	if errors.Is(err, fs.ErrInvalid) {
		writeInputError(w, &InputError{Field: "dir", Value: dir, Limit: "a new directory the server can make, outside its data directory", Message: err.Error()})
		return
	}
	if err != nil {
		// The directory was made; what went wrong (a full disk, a
		// failing repository) is the server's.
		s.logger.Error("backup failed", "dir", dir, "err", err)
		writeError(w, http.StatusInternalServerError, apiError{Code: CodeInternal, Field: "dir", Value: dir, Message: err.Error()})
		return
	}
	took := time.Since(start)
	s.logger.Info("backup written", "dir", dir, "took", took.Round(time.Millisecond))
	writeJSON(w, http.StatusCreated, map[string]any{"dir": dir, "took_ms": took.Milliseconds()})
}
