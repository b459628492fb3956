package main

import (
	"errors"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/deltaq/deltaq/configs"
	"github.com/deltaq/deltaq/repo"
)

// loadEval loads cmd's configuration and checks that --out names the
// evaluation's output directory.
func (a *app) loadEval(cmd *cobra.Command, out string) (*configs.Config, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, err
	}
	if out == "" {
		return nil, errors.New("--out: an output directory is required")
	}
	return cfg, nil
}

// loadRepo loads cmd's configuration, runs check (nil for none) on it
// before the data directory is touched, and opens the repository under
// dataDir with the configured logger, creating it if need be. The caller
// closes the repository.
func (a *app) loadRepo(cmd *cobra.Command, dataDir string, check func(*configs.Config) error) (*configs.Config, *repo.DB, *slog.Logger, error) {
	return a.loadRepoWith(cmd, dataDir, check, openRepo)
}

// loadCrawledRepo is loadRepo for the commands that read a repository,
// which must be there (openCrawledRepo).
func (a *app) loadCrawledRepo(cmd *cobra.Command, dataDir string, check func(*configs.Config) error) (*configs.Config, *repo.DB, *slog.Logger, error) {
	return a.loadRepoWith(cmd, dataDir, check, openCrawledRepo)
}

func (a *app) loadRepoWith(cmd *cobra.Command, dataDir string, check func(*configs.Config) error, open repoOpener) (*configs.Config, *repo.DB, *slog.Logger, error) {
	cfg, err := a.load(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	if check != nil {
		if err := check(cfg); err != nil {
			return nil, nil, nil, err
		}
	}
	logger := a.logger(cfg)
	db, err := open(dataDir, cfg, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, db, logger, nil
}
