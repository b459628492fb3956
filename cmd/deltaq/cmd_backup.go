package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/index"
)

func (a *app) newBackupCmd() *cobra.Command {
	var dataDir, server string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "backup (--data DIR | --server ADMIN_URL) OUT",
		Short: "Copy the repository (a Pebble checkpoint) and the index into OUT, a data directory of its own",
		Long: `backup writes a Pebble checkpoint of the repository to OUT/repo and a copy
of the index that agrees with it to OUT/index. OUT must not exist. It is a
data directory: restore by using it as --data (or copying it where the data
directory was). The backup is built in a hidden directory beside OUT
(.OUT.tmp-*) and renamed to OUT once complete: a backup that fails or is
interrupted leaves no OUT, and a retry may use the same name. Only a
process killed outright (kill -9, a crash) leaves the hidden directory,
to be removed by hand.

With --data, the repository must not be in use: the index is brought up to
date, then copied. With --server, the running deltaq serve, run or demo
whose admin listener (server.admin.listen) is at ADMIN_URL writes the
backup itself, on its own machine, while it serves: OUT is taken as an
absolute path there; indexing waits while the index is copied. The
command waits for it at most --timeout; a server that has not answered by
then is asked to stop, and leaves no OUT.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := args[0]
			if out == "" {
				// The backup would be built beside the working directory
				// and then fail to be renamed to no name.
				return errors.New("OUT: empty; give the new directory to write the backup to")
			}
			if server != "" {
				if dataDir != "" {
					return errDataAndServer
				}
				if timeout <= 0 {
					return fmt.Errorf("--timeout %s: must be more than 0", timeout)
				}
				return a.backupThrough(cmd.Context(), server, out, timeout)
			}
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			if err := backupAbsent(out); err != nil {
				return err
			}
			logger := a.logger(cfg)
			db, err := openCrawledRepo(dataDir, cfg, logger)
			if err != nil {
				return err
			}
			defer db.Close()
			ix, err := openIndex(dataDir, cfg, db, index.Options{Logger: logger})
			if err != nil {
				return err
			}
			defer ix.Close()
			if _, err := ix.CatchUp(cmd.Context()); err != nil {
				return err
			}
			if err := backupData(cmd.Context(), ix, dataDir, out); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "backup of %s written to %s (repository checkpoint and index); use it as --data to restore\n", dataDir, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	cmd.Flags().StringVar(&server, "server", "", "admin listener of a running server, e.g. http://127.0.0.1:8081")
	cmd.Flags().DurationVar(&timeout, "timeout", time.Hour, "with --server, how long to wait for the server's backup")
	return cmd
}

// backupData writes a backup of the open index and its repository, whose
// data directory is dataDir, into out, a new data directory outside it
// (web.BackupFunc). The backup is built in a hidden directory beside out
// and renamed to out once complete, so a backup that fails or is
// interrupted leaves no out that would pass for a data directory.
func backupData(ctx context.Context, ix *index.Index, dataDir, out string) (err error) {
	if inData(dataDir, out) {
		// It would land among the repository's or the index's own files.
		return fmt.Errorf("backup %s: inside the data directory %s; give a directory outside it: %w", out, dataDir, fs.ErrInvalid)
	}
	if err := backupAbsent(out); err != nil {
		return err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return noPlace(out, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return noPlace(out, err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	// MkdirTemp makes it 0700; out is a data directory like any other.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("backup %s: %w", out, err)
	}
	if err := ix.Backup(ctx, filepath.Join(tmp, repoDir), indexPath(tmp)); err != nil {
		return err
	}
	// Rename would replace an empty directory made at out meanwhile.
	if err := backupAbsent(out); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("backup %s: %w", out, err)
	}
	return nil
}

// backupAbsent refuses an out that exists (fs.ErrExist): a backup goes
// to a new directory.
func backupAbsent(out string) error {
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("backup %s: already exists; give a new directory: %w", out, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return noPlace(out, err)
	}
	return nil
}

// noPlace is the error of an out that cannot be made (a parent that is a
// file, a path too long, no permission): it wraps fs.ErrInvalid as well
// as err, for the admin listener to answer it as the request's fault.
func noPlace(out string, err error) error {
	return &noPlaceError{out: out, err: err}
}

type noPlaceError struct {
	out string
	err error
}

func (e *noPlaceError) Error() string {
	return fmt.Sprintf("backup %s: cannot make it: %v", e.out, e.err)
}

func (e *noPlaceError) Unwrap() []error { return []error{e.err, fs.ErrInvalid} }

// backupThrough asks the server whose admin listener is at server to back
// itself up into out (made absolute here: the server's working directory
// is not this one).
func (a *app) backupThrough(ctx context.Context, server, out string, timeout time.Duration) error {
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("backup %s: %w", out, err)
	}
	var done struct {
		Dir    string `json:"dir"`
		TookMS int64  `json:"took_ms"`
	}
	if err := postAdmin(ctx, server, "/api/v1/backup", timeout, "--timeout", map[string]string{"dir": abs}, &done); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "backup written by %s to %s in %d ms (repository checkpoint and index); use it as --data to restore\n", server, done.Dir, done.TookMS)
	return nil
}
