package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/index"
	"github.com/deltaq/deltaq/repo"
)

func (a *app) newBackupCmd() *cobra.Command {
	var dataDir string
	cmd := &cobra.Command{
		Use:   "backup --data DIR OUT",
		Short: "Copy the repository (a Pebble checkpoint) and the index into OUT, a data directory of its own",
		Long: `backup brings the index up to date with the repository, then writes a
Pebble checkpoint of the repository to OUT/repo and a copy of the index to
OUT/index. OUT must not exist. It is a data directory: restore by using it
as --data (or copying it where the data directory was). The crawl and the
server must be stopped, as they hold the repository open.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := a.load(cmd)
			if err != nil {
				return err
			}
			out := args[0]
			if _, err := os.Stat(out); err == nil {
				return fmt.Errorf("backup %s: already exists; give a new directory", out)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("backup %s: %w", out, err)
			}
			logger := a.logger(cfg)
			db, err := openCrawledRepo(dataDir, cfg, logger)
			if err != nil {
				return err
			}
			defer db.Close()
			// Catch up first, so the index's watermark in the checkpoint
			// matches the index copied beside it.
			if _, err := catchUpIndex(cmd.Context(), dataDir, cfg, db, logger); err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("backup %s: %w", out, err)
			}
			if err := db.Checkpoint(filepath.Join(out, repoDir)); err != nil {
				return err
			}
			if err := os.CopyFS(indexPath(out), os.DirFS(indexPath(dataDir))); err != nil {
				return fmt.Errorf("backup: copy the index: %w", err)
			}
			fmt.Fprintf(a.stdout, "backup of %s written to %s (repository checkpoint and index); use it as --data to restore\n", dataDir, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data", "", "data directory")
	return cmd
}

// catchUpIndex opens the index under dataDir, applies the change feed it
// has not yet applied, and closes it.
func catchUpIndex(ctx context.Context, dataDir string, cfg *configs.Config, db *repo.DB, logger *slog.Logger) (index.Stats, error) {
	ix, err := index.Open(indexPath(dataDir), cfg.Index, db, index.Options{Logger: logger})
	if err != nil {
		return index.Stats{}, err
	}
	st, err := ix.CatchUp(ctx)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	return st, err
}
